"""skade's Avro manifests and manifest lists against real Iceberg clients.

(a) fastavro reads every manifest and manifest list skade writes (format v1,
    v2, v3; codecs null, deflate, zstandard), sees Iceberg's field ids in the
    file schema and the values skade was given; partition summaries match
    bounds computed here with PyIceberg's own single-value serializer.
(b) skade reads the manifests and manifest lists PyIceberg writes (v1 and v2
    tables, partitioned with identity/bucket/day/truncate and unpartitioned,
    appended to several times) with the same entries PyIceberg sees,
    including inherited snapshot ids and sequence numbers.
(c) PyIceberg scans tables whose current snapshot points at a manifest list
    and manifests skade wrote for PyIceberg's data files.

Fixtures are created by PyIceberg, pyarrow and fastavro during the run.
"""

import datetime
import decimal
import json
import math
import pathlib
import time
import uuid

import fastavro
import fastavro.read
import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.conversions import to_bytes
from pyiceberg.expressions import EqualTo
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    IdentityTransform,
    TruncateTransform,
)
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
    UUIDType,
)

TOOL = "skade_avro_tool"
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
CODECS = ["null", "deflate", "zstandard", "snappy"]


def _read_varint_long(fo):
    shift, accumulated = 0, 0
    while True:
        byte = fo.read(1)[0]
        accumulated |= (byte & 0x7F) << shift
        if byte < 0x80:
            return (accumulated >> 1) ^ -(accumulated & 1)
        shift += 7


def _zstandard_read_block(fo):
    import io

    import zstandard

    data = fo.read(_read_varint_long(fo))
    return io.BytesIO(zstandard.ZstdDecompressor().decompressobj().decompress(data))


try:
    from backports import zstd  # noqa: F401  (fastavro's own zstandard support)
except ImportError:
    # fastavro 1.13 decodes "zstandard" blocks only with backports.zstd; the
    # venv has the `zstandard` package, so hand fastavro a block reader
    # built on it. fastavro still parses the container and every record.
    fastavro.read.BLOCK_READERS["zstandard"] = _zstandard_read_block


def local(location):
    return pathlib.Path(str(location).removeprefix("file://").removeprefix("file:"))


def run_json(run_tool, *args):
    return json.loads(run_tool(TOOL, *args).stdout)


def to_tool_value(value):
    """A Python value (from fastavro or PyIceberg) in the tool's JSON form."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return (value - EPOCH) // datetime.timedelta(microseconds=1)
    if isinstance(value, datetime.date):
        return (value - EPOCH.date()).days
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    raise TypeError(f"unexpected value {value!r}")


def same_value(tool_value, python_value):
    expected = to_tool_value(python_value)
    if isinstance(expected, decimal.Decimal):
        return tool_value is not None and decimal.Decimal(tool_value) == expected
    return tool_value == expected


def pairs(value):
    """An Iceberg int-keyed map as fastavro returns it (list of key/value
    records), or PyIceberg (dict), as {str(key): value}."""
    if value is None:
        return {}
    if hasattr(value, "items"):
        items = value.items()
    else:
        items = ((item["key"], item["value"]) for item in value)
    return {str(k): (v.hex() if isinstance(v, (bytes, bytearray)) else v) for k, v in items}


def field_ids(schema, path="", out=None):
    """Every (path, id attribute) in an Avro schema JSON."""
    out = {} if out is None else out
    if isinstance(schema, list):
        for branch in schema:
            field_ids(branch, path, out)
    elif isinstance(schema, dict):
        for key in ("element-id", "key-id", "value-id"):
            if key in schema:
                out[f"{path}.{key}"] = schema[key]
        for field in schema.get("fields", []):
            out[f"{path}.{field['name']}"] = field.get("field-id")
            field_ids(field["type"], f"{path}.{field['name']}", out)
        for key in ("items", "values"):
            if key in schema:
                field_ids(schema[key], f"{path}.{key}", out)
    return out


# ---- (a) fastavro reads what skade writes ---------------------------------

TABLE_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "ts", TimestamptzType(), required=False),
    NestedField(4, "price", DecimalType(9, 2), required=False),
    NestedField(5, "uid", UUIDType(), required=False),
    NestedField(6, "flag", BooleanType(), required=False),
    NestedField(7, "payload", BinaryType(), required=False),
    NestedField(8, "ratio", DoubleType(), required=False),
)
# (name, source id, transform, PyIceberg result type)
PARTITION_FIELDS = [
    ("name", 2, "identity", StringType()),
    ("id_bucket", 1, "bucket[8]", IntegerType()),
    ("ts_day", 3, "day", DateType()),
    ("name_trunc", 2, "truncate[3]", StringType()),
    ("price", 4, "identity", DecimalType(9, 2)),
    ("uid", 5, "identity", UUIDType()),
    ("flag", 6, "identity", BooleanType()),
    ("payload", 7, "identity", BinaryType()),
    ("ratio", 8, "identity", DoubleType()),
]
SNAPSHOT_ID = 4_611_686_018_427_387_904 + 12345


def partition_values(i):
    """Python values of file i's partition tuple (None for some)."""
    names = ["alpha", "beta", "gamma", "ünïcode"]
    return [
        None if i % 5 == 4 else names[i % 4],
        i % 8,
        None if i % 6 == 5 else datetime.date(2024, 1, 1) + datetime.timedelta(days=i),
        names[i % 4][:3],
        None if i % 7 == 3 else decimal.Decimal(i * 137 - 400).scaleb(-2),
        uuid.UUID(int=(i * 0x1234567890ABCDEF) << 60),
        i % 2 == 0,
        bytes([0x7F + i % 3, i]),
        float("nan") if i == 2 else (None if i == 3 else (i - 5) * 0.5),
    ]


def tool_partition(values):
    out = []
    for value in values:
        converted = to_tool_value(value)
        out.append(str(converted) if isinstance(converted, decimal.Decimal) else converted)
    return out


def data_file_json(i):
    return {
        "content": 0,
        "file_path": f"s3://bucket/warehouse/t/data/part-{i:05d}.parquet",
        "file_format": "PARQUET",
        "partition": tool_partition(partition_values(i)),
        "record_count": 1000 + i,
        "file_size_in_bytes": 65536 + i,
        "column_sizes": {"1": 4000 + i, "2": 9000},
        "value_counts": {"1": 1000 + i, "2": 1000 + i},
        "null_value_counts": {"1": 0, "2": i},
        "nan_value_counts": {"8": i % 2},
        "lower_bounds": {"1": (i).to_bytes(8, "little").hex(), "2": b"aa".hex()},
        "upper_bounds": {"1": (i + 999).to_bytes(8, "little").hex(), "2": b"zz".hex()},
        "split_offsets": [4, 30000 + i],
        "sort_order_id": 0 if i % 2 else None,
    }


def table_schema_json():
    return json.loads(TABLE_SCHEMA.model_dump_json())


def spec_json():
    return {
        "spec-id": 3,
        "fields": [
            {"name": name, "source-id": source, "field-id": 1000 + k, "transform": transform}
            for k, (name, source, transform, _) in enumerate(PARTITION_FIELDS)
        ],
    }


def added_manifest_json(version, codec, files):
    """The skade_avro_tool input of a manifest that adds `files`."""
    return {
        "format_version": version,
        "snapshot_id": SNAPSHOT_ID,
        "codec": codec,
        "schema": table_schema_json(),
        "partition_spec": spec_json(),
        "entries": [{"status": "added", "data_file": f} for f in files],
    }


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("version", [1, 2, 3])
def test_fastavro_reads_skade_manifest_and_manifest_list(tmp_path, run_tool, version, codec):
    files = [data_file_json(i) for i in range(12)]
    manifest_input = added_manifest_json(version, codec, files)
    (tmp_path / "manifest.json").write_text(json.dumps(manifest_input))
    manifest_path = tmp_path / "m0.avro"
    summary = run_json(run_tool, "write-manifest", tmp_path / "manifest.json", manifest_path)

    with open(manifest_path, "rb") as f:
        reader = fastavro.reader(f)
        metadata = reader.metadata
        records = list(reader)
    assert metadata["avro.codec"] == codec
    assert metadata["format-version"] == str(version)
    assert metadata["partition-spec-id"] == "3"
    assert json.loads(metadata["partition-spec"]) == spec_json()["fields"]
    assert json.loads(metadata["schema"])["fields"] == table_schema_json()["fields"]
    assert ("content" in metadata) == (version >= 2)
    schema = json.loads(metadata["avro.schema"])
    ids = field_ids(schema)
    assert ids[".status"] == 0 and ids[".snapshot_id"] == 1 and ids[".data_file"] == 2
    assert ids[".data_file.file_path"] == 100
    assert ids[".data_file.partition"] == 102
    for k, (name, *_rest) in enumerate(PARTITION_FIELDS):
        assert ids[f".data_file.partition.{name}"] == 1000 + k
    assert ids[".data_file.split_offsets.element-id"] == 133
    assert ids[".data_file.column_sizes.items.key"] == 117
    assert ids[".data_file.column_sizes.items.value"] == 118
    if version >= 2:
        assert ids[".sequence_number"] == 3 and ids[".data_file.content"] == 134
    if version >= 3:
        assert ids[".data_file.first_row_id"] == 142
    assert all(value is not None for value in ids.values()), ids

    assert len(records) == len(files)
    for i, (record, expected) in enumerate(zip(records, files)):
        assert record["status"] == 1
        assert record["snapshot_id"] == SNAPSHOT_ID
        if version >= 2:
            assert record["sequence_number"] is None
            assert record["data_file"]["content"] == 0
        data_file = record["data_file"]
        assert data_file["file_path"] == expected["file_path"]
        assert data_file["file_format"] == "PARQUET"
        assert data_file["record_count"] == expected["record_count"]
        assert data_file["file_size_in_bytes"] == expected["file_size_in_bytes"]
        if version == 1:
            assert data_file["block_size_in_bytes"] == 64 * 1024 * 1024
        for key in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts"):
            assert pairs(data_file[key]) == expected[key]
        assert pairs(data_file["lower_bounds"]) == expected["lower_bounds"]
        assert pairs(data_file["upper_bounds"]) == expected["upper_bounds"]
        assert data_file["split_offsets"] == expected["split_offsets"]
        assert data_file["sort_order_id"] == expected["sort_order_id"]
        values = partition_values(i)
        for (name, *_rest), value in zip(PARTITION_FIELDS, values):
            read = data_file["partition"][name]
            if isinstance(value, uuid.UUID):
                value = value.bytes  # fastavro reads uuid fixed values as bytes
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(read)
            else:
                assert read == value, (name, read, value)

    # The summary's bounds are PyIceberg's serialization of the min and max.
    assert summary["added_files_count"] == len(files)
    assert summary["added_rows_count"] == sum(f["record_count"] for f in files)
    assert summary["sequence_number"] == -1
    for k, (name, _source, _transform, iceberg_type) in enumerate(PARTITION_FIELDS):
        values = [partition_values(i)[k] for i in range(len(files))]
        present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
        field_summary = summary["partitions"][k]
        assert field_summary["contains_null"] == (None in values), name
        assert field_summary["contains_nan"] == any(isinstance(v, float) and math.isnan(v) for v in values)
        assert field_summary["lower_bound"] == to_bytes(iceberg_type, min(present)).hex(), name
        assert field_summary["upper_bound"] == to_bytes(iceberg_type, max(present)).hex(), name

    # A manifest list with this manifest and an older one.
    older = dict(summary, manifest_path="s3://bucket/warehouse/t/metadata/old.avro",
                 added_snapshot_id=17, sequence_number=1, min_sequence_number=1)
    list_input = {
        "format_version": version,
        "snapshot_id": SNAPSHOT_ID,
        "parent_snapshot_id": 17,
        "sequence_number": 2,
        "first_row_id": 500,
        "codec": codec,
        "manifests": [summary, older],
    }
    (tmp_path / "list.json").write_text(json.dumps(list_input))
    list_path = tmp_path / "snap.avro"
    written = run_json(run_tool, "write-manifest-list", tmp_path / "list.json", list_path)
    with open(list_path, "rb") as f:
        reader = fastavro.reader(f)
        metadata = reader.metadata
        manifests = list(reader)
    assert metadata["avro.codec"] == codec
    assert metadata["snapshot-id"] == str(SNAPSHOT_ID)
    assert metadata["parent-snapshot-id"] == "17"
    assert metadata["format-version"] == str(version)
    assert metadata.get("sequence-number") == (None if version == 1 else "2")
    assert metadata.get("first-row-id") == ("500" if version == 3 else None)
    ids = field_ids(json.loads(metadata["avro.schema"]))
    assert ids[".manifest_path"] == 500 and ids[".partitions"] == 507
    assert ids[".partitions.element-id"] == 508
    assert ids[".partitions.items.contains_null"] == 509
    assert [m["manifest_path"] for m in manifests] == [str(manifest_path), older["manifest_path"]]
    first = manifests[0]
    assert first["manifest_length"] == manifest_path.stat().st_size
    assert first["partition_spec_id"] == 3
    assert first["added_snapshot_id"] == SNAPSHOT_ID
    assert first["added_files_count"] == len(files)
    assert first["added_rows_count"] == summary["added_rows_count"]
    assert [
        {k: (v.hex() if isinstance(v, bytes) else v) for k, v in p.items()}
        for p in first["partitions"]
    ] == summary["partitions"]
    if version >= 2:
        assert first["content"] == 0
        # New manifests take the snapshot's sequence number; old ones keep theirs.
        assert (first["sequence_number"], first["min_sequence_number"]) == (2, 2)
        assert (manifests[1]["sequence_number"], manifests[1]["min_sequence_number"]) == (1, 1)
    if version >= 3:
        assert first["first_row_id"] == 500
        assert manifests[1]["first_row_id"] == 500 + summary["added_rows_count"]
        assert written["next_row_id"] == 500 + 2 * summary["added_rows_count"]

    # And skade reads back what it wrote.
    read = run_json(run_tool, "read-manifest", manifest_path)
    assert [e["data_file"]["file_path"] for e in read["entries"]] == [f["file_path"] for f in files]
    assert read["metadata"]["format_version"] == version


def rewrite_with_fastavro(source, target, codec):
    """`source` as fastavro writes it with `codec`: same schema, metadata and records."""
    with open(source, "rb") as f:
        reader = fastavro.reader(f)
        schema = json.loads(reader.metadata["avro.schema"])
        metadata = {k: v for k, v in reader.metadata.items() if not k.startswith("avro.")}
        records = list(reader)
    with open(target, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(schema, _write_hint=False), records,
                        codec=codec, metadata=metadata)


@pytest.mark.parametrize("codec", ["snappy", "deflate"])
@pytest.mark.parametrize("version", [1, 2, 3])
def test_skade_reads_manifests_fastavro_compressed(tmp_path, run_tool, version, codec):
    # A third-party writer's blocks (Avro's snappy framing: a CRC32 after each
    # block) read back the same as skade's own uncompressed ones.
    manifest_input = added_manifest_json(version, "null", [data_file_json(i) for i in range(12)])
    (tmp_path / "manifest.json").write_text(json.dumps(manifest_input))
    plain = tmp_path / "plain.avro"
    summary = run_json(run_tool, "write-manifest", tmp_path / "manifest.json", plain)
    list_input = {"format_version": version, "snapshot_id": SNAPSHOT_ID, "parent_snapshot_id": 17,
                  "sequence_number": 2, "first_row_id": 500, "codec": "null",
                  "manifests": [summary]}
    (tmp_path / "list.json").write_text(json.dumps(list_input))
    plain_list = tmp_path / "plain-list.avro"
    run_json(run_tool, "write-manifest-list", tmp_path / "list.json", plain_list)

    for command, source in (("read-manifest", plain), ("read-manifest-list", plain_list)):
        compressed = tmp_path / f"{codec}-{source.name}"
        rewrite_with_fastavro(source, compressed, codec)
        with open(compressed, "rb") as f:
            assert fastavro.reader(f).metadata["avro.codec"] == codec
        assert run_json(run_tool, command, compressed) == run_json(run_tool, command, source)


# ---- PyIceberg tables ------------------------------------------------------

PYICEBERG_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "ts", TimestamptzType(), required=False),
    NestedField(4, "category", StringType(), required=False),
    NestedField(5, "amount", DoubleType(), required=False),
)
PYICEBERG_SPECS = {
    "partitioned": PartitionSpec(
        PartitionField(4, 1000, IdentityTransform(), "category"),
        PartitionField(1, 1001, BucketTransform(4), "id_bucket"),
        PartitionField(3, 1002, DayTransform(), "ts_day"),
        PartitionField(2, 1003, TruncateTransform(2), "name_trunc"),
    ),
    "unpartitioned": PartitionSpec(),
}
TABLES = [(version, spec) for version in ("1", "2") for spec in PYICEBERG_SPECS]


def batch(first, count):
    ids = list(range(first, first + count))
    base = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array([None if i % 7 == 3 else f"n{i % 5}-{i}" for i in ids]),
            "ts": pa.array(
                [None if i % 9 == 4 else base + datetime.timedelta(hours=13 * i) for i in ids],
                pa.timestamp("us", tz="UTC"),
            ),
            "category": pa.array([["red", "green", None][i % 3] for i in ids]),
            "amount": pa.array([float("nan") if i == 5 else i * 0.25 for i in ids], pa.float64()),
        }
    )


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """PyIceberg tables {(version, spec name): table}, each appended to three
    times."""
    root = tmp_path_factory.mktemp("avro_interop")
    catalog = SqlCatalog(
        "avro", uri=f"sqlite:///{root / 'catalog.db'}", warehouse=f"file://{root / 'warehouse'}"
    )
    catalog.create_namespace("avro")
    out = {}
    for version, spec_name in TABLES:
        table = catalog.create_table(
            f"avro.t_v{version}_{spec_name}",
            schema=PYICEBERG_SCHEMA,
            partition_spec=PYICEBERG_SPECS[spec_name],
            properties={"format-version": version},
        )
        for first, count in ((0, 12), (12, 7), (19, 9)):
            table.append(batch(first, count))
        out[(version, spec_name)] = catalog.load_table(f"avro.t_v{version}_{spec_name}")
    return out


def assert_same_data_file(tool_file, data_file, partition_type):
    assert tool_file["file_path"] == data_file.file_path
    assert tool_file["file_format"] == data_file.file_format.name
    assert tool_file["content"] == int(data_file.content)
    assert tool_file["record_count"] == data_file.record_count
    assert tool_file["file_size_in_bytes"] == data_file.file_size_in_bytes
    assert tool_file["column_sizes"] == pairs(data_file.column_sizes)
    assert tool_file["value_counts"] == pairs(data_file.value_counts)
    assert tool_file["null_value_counts"] == pairs(data_file.null_value_counts)
    assert tool_file["nan_value_counts"] == pairs(data_file.nan_value_counts)
    assert tool_file["lower_bounds"] == pairs(data_file.lower_bounds)
    assert tool_file["upper_bounds"] == pairs(data_file.upper_bounds)
    assert tool_file["split_offsets"] == list(data_file.split_offsets or [])
    assert tool_file["sort_order_id"] == data_file.sort_order_id
    assert len(tool_file["partition"]) == len(partition_type)
    for k, value in enumerate(tool_file["partition"]):
        assert same_value(value, data_file.partition[k]), (k, value, data_file.partition[k])


@pytest.mark.parametrize("version,spec_name", TABLES)
def test_skade_reads_pyiceberg_manifests(tables, run_tool, version, spec_name):
    table = tables[(version, spec_name)]
    io = table.io
    snapshots = list(table.snapshots())
    assert len(snapshots) == 3
    for snapshot in snapshots:
        manifest_list = local(snapshot.manifest_list)
        read_list = run_json(run_tool, "read-manifest-list", manifest_list)
        assert read_list["metadata"]["snapshot_id"] == snapshot.snapshot_id
        assert read_list["metadata"]["parent_snapshot_id"] == snapshot.parent_snapshot_id
        assert read_list["metadata"]["format_version"] == int(version)
        pyiceberg_manifests = snapshot.manifests(io)
        assert len(read_list["manifests"]) == len(pyiceberg_manifests)
        for tool_manifest, manifest in zip(read_list["manifests"], pyiceberg_manifests):
            assert tool_manifest["manifest_path"] == manifest.manifest_path
            assert tool_manifest["manifest_length"] == manifest.manifest_length
            assert tool_manifest["partition_spec_id"] == manifest.partition_spec_id
            assert tool_manifest["content"] == int(manifest.content)
            assert tool_manifest["sequence_number"] == manifest.sequence_number
            assert tool_manifest["min_sequence_number"] == manifest.min_sequence_number
            assert tool_manifest["added_snapshot_id"] == manifest.added_snapshot_id
            assert tool_manifest["added_files_count"] == manifest.added_files_count
            assert tool_manifest["existing_files_count"] == manifest.existing_files_count
            assert tool_manifest["added_rows_count"] == manifest.added_rows_count
            summaries = [
                {
                    "contains_null": p.contains_null,
                    "contains_nan": p.contains_nan,
                    "lower_bound": p.lower_bound.hex() if p.lower_bound is not None else None,
                    "upper_bound": p.upper_bound.hex() if p.upper_bound is not None else None,
                }
                for p in manifest.partitions or []
            ]
            assert tool_manifest["partitions"] == summaries

            # Entries with inheritance applied, as PyIceberg reads them.
            read = run_json(
                run_tool,
                "read-manifest",
                local(manifest.manifest_path),
                "--inherit-from",
                manifest_list,
            )
            assert read["metadata"]["format_version"] == int(version)
            assert read["metadata"]["partition_spec_id"] == manifest.partition_spec_id
            spec = table.specs()[manifest.partition_spec_id]
            partition_type = spec.partition_type(table.schema())
            assert [(f["id"], f["name"]) for f in read["partition_type"]] == [
                (f.field_id, f.name) for f in partition_type.fields
            ]
            # As stored: fastavro sees the same raw (uninherited) values.
            raw = run_json(run_tool, "read-manifest", local(manifest.manifest_path))
            with open(local(manifest.manifest_path), "rb") as f:
                records = list(fastavro.reader(f))
            assert [
                (e["status"], e["snapshot_id"], e["sequence_number"], e["data_file"]["file_path"])
                for e in raw["entries"]
            ] == [
                (
                    r["status"],
                    r["snapshot_id"],
                    r.get("sequence_number", 0),  # v1 files have none: read as 0
                    r["data_file"]["file_path"],
                )
                for r in records
            ]
            entries = manifest.fetch_manifest_entry(io, discard_deleted=False)
            assert len(read["entries"]) == len(entries)
            for tool_entry, entry in zip(read["entries"], entries):
                assert tool_entry["status"] == int(entry.status)
                assert tool_entry["snapshot_id"] == entry.snapshot_id
                assert tool_entry["sequence_number"] == entry.sequence_number
                assert tool_entry["file_sequence_number"] == entry.file_sequence_number
                assert tool_entry["data_file"]["spec_id"] == manifest.partition_spec_id
                assert_same_data_file(tool_entry["data_file"], entry.data_file, partition_type.fields)


@pytest.mark.parametrize("version,spec_name", TABLES)
def test_skade_reserializes_pyiceberg_avro_schemas(tables, run_tool, version, spec_name):
    table = tables[(version, spec_name)]
    snapshot = table.current_snapshot()
    files = [local(snapshot.manifest_list)] + [
        local(m.manifest_path) for m in snapshot.manifests(table.io)
    ]
    for path in files:
        with open(path, "rb") as f:
            original = json.loads(fastavro.reader(f).metadata["avro.schema"])
        rewritten = json.loads(run_tool(TOOL, "avro-schema", path).stdout)
        fastavro.parse_schema(rewritten)
        assert field_ids(rewritten) == field_ids(original)


# ---- (c) PyIceberg reads tables whose manifests skade wrote ------------------


def entry_json(entry, status, partition_type):
    data_file = entry.data_file
    partition = []
    for k, _field in enumerate(partition_type.fields):
        converted = to_tool_value(data_file.partition[k])
        partition.append(str(converted) if isinstance(converted, decimal.Decimal) else converted)
    return {
        "status": status,
        "snapshot_id": entry.snapshot_id,
        "sequence_number": entry.sequence_number if status != "added" else None,
        "file_sequence_number": entry.file_sequence_number if status != "added" else None,
        "data_file": {
            "content": int(data_file.content),
            "file_path": data_file.file_path,
            "file_format": data_file.file_format.name,
            "partition": partition,
            "record_count": data_file.record_count,
            "file_size_in_bytes": data_file.file_size_in_bytes,
            "column_sizes": pairs(data_file.column_sizes),
            "value_counts": pairs(data_file.value_counts),
            "null_value_counts": pairs(data_file.null_value_counts),
            "nan_value_counts": pairs(data_file.nan_value_counts),
            "lower_bounds": pairs(data_file.lower_bounds),
            "upper_bounds": pairs(data_file.upper_bounds),
            "split_offsets": list(data_file.split_offsets or []),
            "sort_order_id": data_file.sort_order_id,
        },
    }


def rows(arrow_table):
    return sorted(
        (
            tuple(
                "nan" if isinstance(v, float) and math.isnan(v) else v
                for v in row.values()
            )
            for row in arrow_table.to_pylist()
        ),
        key=repr,
    )


# (table version, spec, version skade writes): v3 snapshots go on top of a v2
# table, since PyIceberg reads v3 metadata but cannot write it.
SCAN_CASES = [(v, spec, v) for v, spec in TABLES] + [("2", spec, "3") for spec in PYICEBERG_SPECS]


@pytest.mark.parametrize("codec", ["deflate", "zstandard", "null"])
@pytest.mark.parametrize("version,spec_name,write_version", SCAN_CASES)
def test_pyiceberg_scans_snapshot_with_skade_manifests(
    tables, tmp_path, run_tool, version, spec_name, write_version, codec
):
    table = tables[(version, spec_name)]
    current = table.current_snapshot()
    metadata_dir = local(table.metadata_location).parent
    spec = table.spec()
    partition_type = spec.partition_type(table.schema())

    # Every live file of the current snapshot: the first half carried over as
    # EXISTING (keeping PyIceberg's snapshot ids and sequence numbers), the
    # rest re-added by the new snapshot.
    entries = [e for m in current.manifests(table.io) for e in m.fetch_manifest_entry(table.io)]
    assert len(entries) >= 3
    half = len(entries) // 2
    new_snapshot_id = 5_000_000_000_000 + int(write_version) * 10 + len(codec)
    sequence_number = table.metadata.last_sequence_number + 1 if version == "2" else 0
    first_row_id = 1_000
    manifest_input = {
        "format_version": int(write_version),
        "snapshot_id": new_snapshot_id,
        "codec": codec,
        "schema": json.loads(table.schema().model_dump_json()),
        "partition_spec": json.loads(spec.model_dump_json()),
        "entries": [
            entry_json(e, "existing" if k < half else "added", partition_type)
            for k, e in enumerate(entries)
        ],
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest_input))
    manifest_location = f"file://{metadata_dir}/skade-{new_snapshot_id}-m0.avro"
    summary = run_json(run_tool, "write-manifest", tmp_path / "manifest.json", manifest_location)
    assert summary["existing_files_count"] == half
    assert summary["added_files_count"] == len(entries) - half

    list_input = {
        "format_version": int(write_version),
        "snapshot_id": new_snapshot_id,
        "parent_snapshot_id": current.snapshot_id,
        "sequence_number": sequence_number,
        "first_row_id": first_row_id,
        "codec": codec,
        "manifests": [summary],
    }
    (tmp_path / "list.json").write_text(json.dumps(list_input))
    list_location = f"file://{metadata_dir}/snap-{new_snapshot_id}-skade.avro"
    written = run_json(run_tool, "write-manifest-list", tmp_path / "list.json", list_location)

    # New table metadata whose current snapshot is skade's.
    metadata = json.loads(local(table.metadata_location).read_text())
    now = int(time.time() * 1000)
    snapshot = {
        "snapshot-id": new_snapshot_id,
        "parent-snapshot-id": current.snapshot_id,
        "timestamp-ms": now,
        "manifest-list": list_location,
        "summary": {"operation": "append"},
        "schema-id": metadata["current-schema-id"],
    }
    if version == "2":
        snapshot["sequence-number"] = sequence_number
        metadata["last-sequence-number"] = sequence_number
    if write_version == "3":
        # Row lineage: the manifest list assigned ids from first_row_id on.
        added_rows = written["next_row_id"] - first_row_id
        assert added_rows == sum(e.data_file.record_count for e in entries)
        snapshot["first-row-id"] = first_row_id
        snapshot["added-rows"] = added_rows
        metadata["format-version"] = 3
        metadata["next-row-id"] = written["next_row_id"]
    metadata["snapshots"].append(snapshot)
    metadata["current-snapshot-id"] = new_snapshot_id
    metadata["refs"] = {"main": {"snapshot-id": new_snapshot_id, "type": "branch"}}
    metadata["snapshot-log"].append({"snapshot-id": new_snapshot_id, "timestamp-ms": now})
    metadata["last-updated-ms"] = now
    metadata_path = tmp_path / "skade.metadata.json"
    metadata_path.write_text(json.dumps(metadata))

    static = StaticTable.from_metadata(str(metadata_path))
    assert static.metadata.format_version == int(write_version)
    assert static.current_snapshot().snapshot_id == new_snapshot_id
    assert rows(static.scan().to_arrow()) == rows(table.scan().to_arrow())
    # Partition pruning goes through skade's summaries and partition tuples.
    for name in ("red", "green"):
        expected = rows(table.scan(row_filter=EqualTo("category", name)).to_arrow())
        assert expected
        assert rows(static.scan(row_filter=EqualTo("category", name)).to_arrow()) == expected

    # PyIceberg sees skade's entries with the right statuses and inheritance.
    [manifest] = static.current_snapshot().manifests(static.io)
    assert manifest.added_snapshot_id == new_snapshot_id
    assert manifest.sequence_number == sequence_number
    read_entries = manifest.fetch_manifest_entry(static.io, discard_deleted=False)
    assert [int(e.status) for e in read_entries] == [0] * half + [1] * (len(entries) - half)
    for k, (read, original) in enumerate(zip(read_entries, entries)):
        assert read.data_file.file_path == original.data_file.file_path
        assert read.data_file.partition == original.data_file.partition
        if k < half:
            assert read.snapshot_id == original.snapshot_id
            assert read.sequence_number == original.sequence_number
        else:
            assert read.snapshot_id == new_snapshot_id
            assert read.sequence_number == sequence_number
