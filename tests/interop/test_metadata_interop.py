"""skade reads and re-writes table metadata that real PyIceberg produced.

A PyIceberg SqlCatalog (SQLite, local warehouse) creates format v1 and v2
tables, partitioned with every transform and unpartitioned, sorted, appended
to several times, evolved, tagged and branched; gzip metadata comes from
PyIceberg's own metadata writer. Every metadata file each table ever had goes
through `skade_metadata_roundtrip` (skade's parser, then skade's writer), and
PyIceberg must load skade's file as the same table and scan the same rows.
"""

import datetime
import gzip
import json
import pathlib

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.serializers import ToOutputFile
from pyiceberg.table import StaticTable
from pyiceberg.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
    YearTransform,
)
from pyiceberg.types import (
    DateType,
    DoubleType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
)

TOOL = "skade_metadata_roundtrip"
DAY_MS = 86_400_000

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "category", StringType(), required=False),
    NestedField(4, "ts", TimestampType(), required=False),
    NestedField(5, "ts_tz", TimestamptzType(), required=False),
    NestedField(6, "day", DateType(), required=False),
    NestedField(7, "price", DoubleType(), required=False),
    NestedField(8, "note", StringType(), required=False),
)

# Partition field ids are assigned by PyIceberg on create.
SPECS = {
    "identity_bucket_truncate_day": PartitionSpec(
        PartitionField(3, 1000, IdentityTransform(), "category"),
        PartitionField(1, 1001, BucketTransform(4), "id_bucket"),
        PartitionField(2, 1002, TruncateTransform(2), "name_trunc"),
        PartitionField(4, 1003, DayTransform(), "ts_day"),
    ),
    "year_month_hour": PartitionSpec(
        PartitionField(6, 1000, YearTransform(), "day_year"),
        PartitionField(5, 1001, MonthTransform(), "ts_tz_month"),
        PartitionField(4, 1002, HourTransform(), "ts_hour"),
    ),
    "unpartitioned": PartitionSpec(),
}

# name -> (format version, spec, extra table properties)
TABLES = {
    "v1_identity_bucket_truncate_day": ("1", "identity_bucket_truncate_day", {}),
    "v1_year_month_hour": ("1", "year_month_hour", {}),
    "v1_unpartitioned": ("1", "unpartitioned", {}),
    "v2_identity_bucket_truncate_day": ("2", "identity_bucket_truncate_day", {}),
    "v2_year_month_hour": ("2", "year_month_hour", {}),
    "v2_unpartitioned": ("2", "unpartitioned", {}),
    "v2_gzip": (
        "2",
        "identity_bucket_truncate_day",
        {"write.metadata.compression-codec": "gzip"},
    ),
}


def batch(first_id, rows, evolved=False):
    """`rows` rows with ids from `first_id`, in the initial or evolved schema."""
    ids = list(range(first_id, first_id + rows))
    base = datetime.datetime(2023, 11, 28, 5, 0, 0)
    utc = datetime.timezone.utc
    columns = {
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([f"name-{i}" for i in ids], pa.string()),
        "category": pa.array([["red", "green", "blue"][i % 3] for i in ids], pa.string()),
        "ts": pa.array([base + datetime.timedelta(hours=7 * i) for i in ids], pa.timestamp("us")),
        "ts_tz": pa.array(
            [base.replace(tzinfo=utc) + datetime.timedelta(days=17 * i) for i in ids],
            pa.timestamp("us", tz="UTC"),
        ),
        "day": pa.array(
            [datetime.date(2020 + i % 4, 1 + i % 12, 1 + i % 28) for i in ids], pa.date32()
        ),
    }
    if evolved:
        columns["cost"] = pa.array([i * 1.25 for i in ids], pa.float64())
        columns["extra"] = pa.array([None if i % 2 else f"x{i}" for i in ids], pa.string())
    else:
        columns["price"] = pa.array([i * 1.25 for i in ids], pa.float64())
        columns["note"] = pa.array([f"note {i}" for i in ids], pa.string())
    return pa.table(columns)


def build_table(catalog, name, version, spec_name, extra_properties):
    """Creates and evolves one table; each step writes a new metadata file."""
    table = catalog.create_table(
        f"interop.{name}",
        schema=SCHEMA,
        partition_spec=SPECS[spec_name],
        sort_order=SortOrder(
            SortField(source_id=1, transform=IdentityTransform()),
            SortField(
                source_id=2,
                transform=IdentityTransform(),
                direction=SortDirection.DESC,
                null_order=NullOrder.NULLS_LAST,
            ),
        ),
        properties={"format-version": version, "owner": "skade-interop", **extra_properties},
    )
    table.append(batch(0, 5))
    table.append(batch(5, 4))
    table.append(batch(9, 3))
    with table.update_schema() as update:
        update.add_column("extra", StringType(), doc="added later")
    with table.update_schema() as update:
        update.rename_column("price", "cost")
    with table.update_schema() as update:
        update.delete_column("note")
    table.append(batch(12, 6, evolved=True))
    with table.transaction() as transaction:
        transaction.set_properties({"commit.retry.num-retries": "7", "comment": "evolved"})
    snapshots = [snapshot.snapshot_id for snapshot in table.snapshots()]
    table.manage_snapshots().create_tag(snapshots[0], "first", max_ref_age_ms=30 * DAY_MS).commit()
    table.manage_snapshots().create_branch(
        snapshots[1],
        "audit",
        max_ref_age_ms=7 * DAY_MS,
        max_snapshot_age_ms=DAY_MS,
        min_snapshots_to_keep=2,
    ).commit()
    table.append(batch(18, 2, evolved=True))
    return table


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """Builds every table once; returns {name: final PyIceberg table}."""
    root = tmp_path_factory.mktemp("metadata_interop")
    catalog = SqlCatalog(
        "interop",
        uri=f"sqlite:///{root / 'catalog.db'}",
        warehouse=f"file://{root / 'warehouse'}",
    )
    catalog.create_namespace("interop")
    return {name: build_table(catalog, name, *spec) for name, spec in TABLES.items()}


def local_path(location):
    return pathlib.Path(location.removeprefix("file://").removeprefix("file:"))


def metadata_files(table):
    """Every metadata file the table has had, oldest first; checks that this
    is exactly the metadata-log plus the current file."""
    directory = local_path(table.metadata.location) / "metadata"
    files = sorted(directory.glob("*.metadata.json"))
    logged = [local_path(entry.metadata_file) for entry in table.metadata.metadata_log]
    assert files == sorted(logged + [local_path(table.metadata_location)])
    return files


def assert_same_metadata(expected, actual):
    assert actual.format_version == expected.format_version
    assert actual.table_uuid == expected.table_uuid
    assert actual.location == expected.location
    assert actual.last_updated_ms == expected.last_updated_ms
    assert actual.last_column_id == expected.last_column_id
    assert [s.schema_id for s in actual.schemas] == [s.schema_id for s in expected.schemas]
    assert actual.schemas == expected.schemas
    assert actual.current_schema_id == expected.current_schema_id
    assert actual.partition_specs == expected.partition_specs
    assert actual.default_spec_id == expected.default_spec_id
    assert actual.last_partition_id == expected.last_partition_id
    assert actual.sort_orders == expected.sort_orders
    assert actual.default_sort_order_id == expected.default_sort_order_id
    assert actual.properties == expected.properties
    assert actual.current_snapshot_id == expected.current_snapshot_id
    def lineage(snapshot):
        return (
            snapshot.snapshot_id,
            snapshot.parent_snapshot_id,
            snapshot.sequence_number,
            snapshot.timestamp_ms,
            snapshot.manifest_list,
            snapshot.schema_id,
        )

    assert [lineage(s) for s in actual.snapshots] == [lineage(s) for s in expected.snapshots]
    assert [s.summary for s in actual.snapshots] == [s.summary for s in expected.snapshots]
    assert actual.refs == expected.refs
    assert actual.snapshot_log == expected.snapshot_log
    assert actual.metadata_log == expected.metadata_log
    if expected.format_version >= 2:
        assert actual.last_sequence_number == expected.last_sequence_number
    # Nothing else differs either, except v1's legacy `schema` and
    # `partition-spec`: PyIceberg leaves them as they were at create time,
    # skade writes the current schema and default spec there, as Java does.
    legacy = ("schema", "schema_", "partition-spec", "partition_spec")
    expected_rest = {k: v for k, v in expected.model_dump().items() if k not in legacy}
    actual_rest = {k: v for k, v in actual.model_dump().items() if k not in legacy}
    assert actual_rest == expected_rest
    if expected.format_version == 1:
        assert actual.schema_ == actual.schema()
        assert actual.schema_.schema_id == actual.current_schema_id


def assert_same_rows(expected_table, actual_table, snapshot_id=None):
    expected = expected_table.scan(snapshot_id=snapshot_id).to_arrow()
    actual = actual_table.scan(snapshot_id=snapshot_id).to_arrow()
    assert actual.num_rows == expected.num_rows
    assert actual.sort_by("id").equals(expected.sort_by("id"))


def read_json(path):
    data = pathlib.Path(path).read_bytes()
    return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_metadata_file_round_trips(name, warehouse, run_tool, tmp_path):
    table = warehouse[name]
    files = metadata_files(table)
    # create + 4 appends + 3 schema changes + properties + tag + branch + append
    assert len(files) == 12
    for index, original in enumerate(files):
        out = tmp_path / f"{index:05d}-skade.metadata.json"
        run_tool(TOOL, original, out)
        written = read_json(out)
        expected = StaticTable.from_metadata(str(original))
        actual = StaticTable.from_metadata(str(out))
        assert_same_metadata(expected.metadata, actual.metadata)
        assert_same_rows(expected, actual)

        # The fields docs/REST-CHECKLIST.md §5 asks for, per version.
        version = expected.metadata.format_version
        assert written["format-version"] == version
        assert ("schema" in written) == (version == 1)
        assert ("partition-spec" in written) == (version == 1)
        if version == 1:
            default_spec = actual.metadata.spec()
            assert written["partition-spec"] == [
                json.loads(field.model_dump_json(by_alias=True)) for field in default_spec.fields
            ]
        assert ("last-sequence-number" in written) == (version >= 2)
        assert "next-row-id" not in written
        assert "refs" in written
        if expected.metadata.current_snapshot_id is None:
            assert written["current-snapshot-id"] == -1
        else:
            assert written["refs"]["main"]["snapshot-id"] == expected.metadata.current_snapshot_id

    # The history the final file describes: refs, schema versions, specs.
    final = StaticTable.from_metadata(str(files[-1]))
    out = tmp_path / "final-skade.metadata.json"
    run_tool(TOOL, files[-1], out)
    round_tripped = StaticTable.from_metadata(str(out))
    metadata = round_tripped.metadata
    assert len(metadata.schemas) == 4
    assert metadata.schema().find_field("cost").field_id == 7
    assert metadata.schema().find_field("extra").doc == "added later"
    assert len(metadata.snapshots) == 5
    assert metadata.refs["first"].snapshot_ref_type == "tag"
    assert metadata.refs["first"].max_ref_age_ms == 30 * DAY_MS
    assert metadata.refs["audit"].snapshot_ref_type == "branch"
    assert metadata.refs["audit"].min_snapshots_to_keep == 2
    assert metadata.refs["audit"].max_snapshot_age_ms == DAY_MS
    assert metadata.properties["commit.retry.num-retries"] == "7"
    assert metadata.sort_orders[-1].fields[1].direction == SortDirection.DESC
    for ref in metadata.refs.values():
        assert_same_rows(final, round_tripped, snapshot_id=ref.snapshot_id)


def test_gzip_metadata_round_trips(warehouse, run_tool, tmp_path):
    # PyIceberg 0.12 ignores write.metadata.compression-codec when it names
    # new metadata files, but gzips whatever its metadata writer puts under a
    # `.gz.metadata.json` name (and reads such files back), so PyIceberg's own
    # writer makes the gzip files from every version of the gzip table.
    table = warehouse["v2_gzip"]
    assert table.metadata.properties["write.metadata.compression-codec"] == "gzip"
    for index, plain in enumerate(metadata_files(table)):
        original = tmp_path / f"{index:05d}-pyiceberg.gz.metadata.json"
        ToOutputFile.table_metadata(
            StaticTable.from_metadata(str(plain)).metadata, table.io.new_output(str(original))
        )
        assert original.read_bytes()[:2] == b"\x1f\x8b"
        expected = StaticTable.from_metadata(str(original))
        for out in (
            tmp_path / f"{index:05d}-skade.gz.metadata.json",
            tmp_path / f"{index:05d}-skade.metadata.json",
        ):
            run_tool(TOOL, original, out)
            is_gzip = out.read_bytes()[:2] == b"\x1f\x8b"
            assert is_gzip == out.name.endswith(".gz.metadata.json")
            actual = StaticTable.from_metadata(str(out))
            assert_same_metadata(expected.metadata, actual.metadata)
            assert_same_rows(expected, actual)


def test_truncated_metadata_is_rejected(warehouse, run_tool, tmp_path):
    original = metadata_files(warehouse["v2_identity_bucket_truncate_day"])[-1]
    text = original.read_bytes()
    truncated = tmp_path / "truncated.metadata.json"
    truncated.write_bytes(text[: len(text) // 2])
    out = tmp_path / "out.metadata.json"
    proc = run_tool(TOOL, truncated, out, check=False)
    assert proc.returncode != 0
    assert "InvalidArgument" in proc.stderr and "malformed JSON" in proc.stderr
    assert not out.exists()

    compressed = gzip.compress(text)
    truncated_gzip = tmp_path / "truncated.gz.metadata.json"
    truncated_gzip.write_bytes(compressed[: len(compressed) // 2])
    proc = run_tool(TOOL, truncated_gzip, out, check=False)
    assert proc.returncode != 0
    assert "Corruption" in proc.stderr
    assert not out.exists()
