"""Interop proof for skade's data plane (src/skade/data/): real readers read
the Parquet files skade writes, and skade's DataFile metrics and partition
transforms agree with PyIceberg's.

Everything is generated during the run with pyarrow; skade is driven through
build/bin/skade_data_tool (tests/data_tools/).
"""
import datetime
import decimal
import json
import math
import os
import random
import re
import uuid

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from pyiceberg.io.pyarrow import (
    compute_statistics_plan,
    data_file_statistics_from_parquet_metadata,
    parquet_path_to_id_mapping,
    schema_to_pyarrow,
)
from pyiceberg.schema import Schema
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    MonthTransform,
    TruncateTransform,
    YearTransform,
)
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "price", DoubleType()),
    NestedField(4, "ratio", FloatType()),
    NestedField(5, "flag", BooleanType()),
    NestedField(6, "day", DateType()),
    NestedField(7, "t", TimeType()),
    NestedField(8, "ts", TimestampType()),
    NestedField(9, "tstz", TimestamptzType()),
    NestedField(10, "tsn", TimestampNanoType()),
    NestedField(11, "amount", DecimalType(9, 2)),
    NestedField(12, "big", DecimalType(38, 6)),
    NestedField(13, "uid", UUIDType()),
    NestedField(14, "code", FixedType(4)),
    NestedField(15, "blob", BinaryType()),
    NestedField(16, "small", IntegerType()),
    NestedField(
        17,
        "point",
        StructType(NestedField(18, "x", DoubleType()), NestedField(19, "label", StringType())),
    ),
    NestedField(20, "tags", ListType(21, StringType(), element_required=False)),
    NestedField(22, "props", MapType(23, StringType(), 24, LongType(), value_required=False)),
)

WORDS = [
    "alpha",
    "Ünïcödé",
    "日本語のテキスト",
    "emoji 😀🎉 party",
    "a-very-long-string-well-past-sixteen-code-points",
    "zz" + "\U0010ffff" * 20,  # the upper bound must carry past U+10FFFF
    "e\u0301 combining",
    "",
]

DAY_MICROS = 86_400_000_000


def maybe(rng, value, null_percent=10):
    return None if rng.random() * 100 < null_percent else value


def make_table(rows, seed):
    rng = random.Random(seed)
    data = []
    for i in range(rows):
        price = maybe(rng, rng.choice([math.nan, rng.uniform(-1e6, 1e6), rng.uniform(-1, 1)]))
        ratio = maybe(rng, rng.choice([math.nan, rng.uniform(-100, 100)]))
        micros = rng.randint(-50 * 365 * DAY_MICROS, 60 * 365 * DAY_MICROS)
        data.append(
            {
                "id": i,
                "name": maybe(rng, rng.choice(WORDS) + str(rng.randint(0, 99))),
                "price": price,
                "ratio": ratio,
                "flag": maybe(rng, rng.random() < 0.5),
                "day": maybe(rng, rng.randint(-20000, 30000)),
                "t": maybe(rng, rng.randint(0, DAY_MICROS - 1)),
                "ts": maybe(rng, micros),
                "tstz": maybe(rng, micros + rng.randint(-10**9, 10**9)),
                "tsn": maybe(rng, micros * 1000 + rng.randint(0, 999)),
                "amount": maybe(rng, decimal.Decimal(rng.randint(-10**9 + 1, 10**9 - 1)).scaleb(-2)),
                "big": maybe(rng, decimal.Decimal(rng.randint(-10**37, 10**37)).scaleb(-6)),
                "uid": maybe(rng, uuid.UUID(int=rng.getrandbits(128)).bytes),
                "code": maybe(rng, bytes(rng.getrandbits(8) for _ in range(4))),
                "blob": maybe(rng, bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))),
                "small": maybe(rng, rng.randint(-(2**31), 2**31 - 1)),
                "point": maybe(
                    rng,
                    {"x": maybe(rng, rng.choice([math.nan, rng.uniform(-5, 5)])),
                     "label": maybe(rng, rng.choice(WORDS))},
                ),
                "tags": maybe(rng, [maybe(rng, rng.choice(WORDS)) for _ in range(rng.randint(0, 4))]),
                "props": maybe(
                    rng, [(f"k{j}", maybe(rng, rng.randint(-99, 99))) for j in range(rng.randint(0, 3))]
                ),
            }
        )
    # PyIceberg's own Arrow schema (large_string, large_list, arrow.uuid, ids).
    return pa.Table.from_pylist(data, schema=schema_to_pyarrow(SCHEMA))


def normalized_rows(table):
    """Rows as Python values comparable across readers: NaN as "NaN",
    nanosecond timestamps as integers, maps as sorted pairs."""

    def norm(value):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, tuple):
            return tuple(norm(v) for v in value)
        return value

    columns = {}
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_timestamp(column.type) and column.type.unit == "ns":
            column = column.cast(pa.int64())
        columns[name] = column
    return [norm(row) for row in pa.table(columns).to_pylist()]


def skade_write(run_tool, tmp_path, table, out_name, *extra):
    source = tmp_path / (out_name + ".arrow")
    feather.write_feather(table, source, compression="uncompressed")
    out = tmp_path / out_name
    proc = run_tool(
        "skade_data_tool",
        "write-parquet",
        source,
        out,
        "--schema-json",
        SCHEMA.model_dump_json(),
        *extra,
    )
    return out, json.loads(proc.stdout)


@pytest.fixture(scope="module")
def table():
    return make_table(3000, seed=20240601)


@pytest.fixture
def written(run_tool, tmp_path, table):
    out, result = skade_write(
        run_tool,
        tmp_path,
        table,
        "data.parquet",
        "--property",
        "write.parquet.row-group-size-bytes=65536",
    )
    assert len(result["files"]) == 1
    return out, result["files"][0]


def parquet_field_ids(path):
    """(dotted path, field id) of every node of the Parquet schema, from
    DuckDB's parquet_schema(), an independent reader."""
    rows = duckdb.sql(
        f"SELECT name, field_id, num_children FROM parquet_schema('{path}')"
    ).fetchall()
    out = []
    stack = []  # [name, children left]
    for name, field_id, children in rows[1:]:  # rows[0] is the root
        while stack and stack[-1][1] == 0:
            stack.pop()
        if stack:
            stack[-1][1] -= 1
        path_name = ".".join([s[0] for s in stack] + [name])
        out.append((path_name, field_id))
        if children:
            stack.append([name, children])
    return out


def iceberg_id_for_parquet_path(path):
    """The Iceberg field a Parquet node stands for, or None for the
    3-level list/map wrapper groups that carry no id."""
    parts = path.split(".")
    names = []
    for i, part in enumerate(parts):
        if part in ("list", "key_value") and i > 0:
            continue
        names.append(part)
    full = ".".join(names)
    if parts[-1] in ("list", "key_value"):
        return None
    field = SCHEMA.find_field(full)
    return field.field_id


# --- Readers -------------------------------------------------------------


def test_pyarrow_reads_rows_and_field_ids(written, table):
    path, _ = written
    back = pq.read_table(path)
    assert back.num_rows == table.num_rows
    assert normalized_rows(back) == normalized_rows(table)
    # Field ids on every Parquet node (nested too), as the spec requires.
    text = str(pq.ParquetFile(path).schema)
    without_ids = [line.strip() for line in text.splitlines() if "field_id=-1" in line]
    assert all(re.search(r"group field_id=-1 (schema|list|key_value) \{", line) for line in without_ids), text
    ids = parquet_field_ids(path)
    assert len(ids) >= 20
    for node, field_id in ids:
        expected = iceberg_id_for_parquet_path(node)
        if expected is None:
            continue
        assert field_id == expected, node


def test_pyarrow_sees_iceberg_types(written):
    path, _ = written
    parquet_schema = pq.ParquetFile(path).schema
    logical = {parquet_schema.column(i).path: str(parquet_schema.column(i).logical_type)
               for i in range(len(parquet_schema))}
    physical = {parquet_schema.column(i).path: parquet_schema.column(i).physical_type
                for i in range(len(parquet_schema))}
    assert physical["amount"] == "INT32"  # decimal(9, 2)
    assert physical["big"] == "FIXED_LEN_BYTE_ARRAY"  # decimal(38, 6)
    assert logical["uid"] == "UUID"
    assert "isAdjustedToUTC=false" in logical["ts"] and "microseconds" in logical["ts"]
    assert "isAdjustedToUTC=true" in logical["tstz"]
    assert "nanoseconds" in logical["tsn"]
    assert "isAdjustedToUTC=false" in logical["t"]
    assert logical["name"] == "String"
    assert pq.ParquetFile(path).metadata.created_by.startswith("skade version ")
    arrow_schema = pq.read_schema(path)
    assert arrow_schema.field("uid").type == pa.uuid()
    assert arrow_schema.field("tstz").type == pa.timestamp("us", tz="UTC")


def test_duckdb_reads_same_rows(written, table):
    path, _ = written
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    assert con.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0][0] == table.num_rows
    got = con.sql(
        f"""SELECT id, name, isnan(price), price, ratio, flag, day, t, ts, epoch_ns(tsn), amount, big,
                   uid, code, blob, small, point.x, point.label, tags, map_keys(props), map_values(props)
            FROM read_parquet('{path}') ORDER BY id"""
    ).fetchall()
    expected = []
    rows = pa.table(
        {name: (table.column(name).cast(pa.int64()) if name == "tsn" else table.column(name))
         for name in table.column_names}
    ).to_pylist()
    for row in rows:
        price = row["price"]
        point = row["point"] or {}
        props = row["props"]
        expected.append(
            (
                row["id"],
                row["name"],
                None if price is None else math.isnan(price),
                price,
                row["ratio"],
                row["flag"],
                row["day"],
                row["t"],
                row["ts"],
                row["tsn"],
                row["amount"],
                row["big"],
                row["uid"],
                row["code"],
                row["blob"],
                row["small"],
                point.get("x"),
                point.get("label"),
                row["tags"],
                None if props is None else [k for k, _ in props],
                None if props is None else [v for _, v in props],
            )
        )

    def comparable(r):
        return tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in r)

    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert comparable(g) == comparable(e)


# --- Metrics ---------------------------------------------------------------


def leaf_ids_outside_lists_and_maps():
    ids = set()

    def walk(field, repeated):
        t = field.field_type
        if t.is_primitive:
            if not repeated:
                ids.add(field.field_id)
            return
        if isinstance(t, StructType):
            for child in t.fields:
                walk(child, repeated)
        elif isinstance(t, ListType):
            walk(t.element_field, True)
        elif isinstance(t, MapType):
            walk(t.key_field, True)
            walk(t.value_field, True)

    for f in SCHEMA.fields:
        walk(f, False)
    return ids


def test_metrics_match_the_parquet_footer(written):
    path, data_file = written
    metadata = pq.read_metadata(path)
    assert data_file["file_format"] == "PARQUET"
    assert data_file["record_count"] == metadata.num_rows
    assert data_file["file_size_in_bytes"] == os.path.getsize(path)
    assert metadata.num_row_groups > 1
    id_by_path = parquet_path_to_id_mapping(SCHEMA)
    sizes, values, nulls, starts = {}, {}, {}, []
    for r in range(metadata.num_row_groups):
        rg = metadata.row_group(r)
        first = rg.column(0)
        starts.append(
            first.dictionary_page_offset
            if first.has_dictionary_page and first.dictionary_page_offset < first.data_page_offset
            else first.data_page_offset
        )
        for c in range(rg.num_columns):
            col = rg.column(c)
            fid = id_by_path[col.path_in_schema]
            sizes[fid] = sizes.get(fid, 0) + col.total_compressed_size
            values[fid] = values.get(fid, 0) + col.num_values
            nulls[fid] = nulls.get(fid, 0) + col.statistics.null_count
    assert {int(k): v for k, v in data_file["column_sizes"].items()} == sizes
    plain = leaf_ids_outside_lists_and_maps()
    assert {int(k) for k in data_file["value_counts"]} == plain
    for fid in plain:
        assert data_file["value_counts"][str(fid)] == values[fid]
        assert data_file["null_value_counts"][str(fid)] == nulls[fid]
    assert data_file["split_offsets"] == sorted(starts)


def test_nan_counts_match_the_data(written, table):
    _, data_file = written
    assert set(data_file["nan_value_counts"]) == {"3", "4", "18"}
    for fid, column in ((3, table.column("price")), (4, table.column("ratio"))):
        expected = pc.sum(pc.is_nan(column)).as_py() or 0
        assert expected > 0
        assert data_file["nan_value_counts"][str(fid)] == expected
    x = pc.struct_field(table.column("point"), "x")
    valid_point = pc.is_valid(table.column("point"))
    expected_x = sum(
        1 for v, p in zip(x.to_pylist(), valid_point.to_pylist()) if p and v is not None and math.isnan(v)
    )
    assert data_file["nan_value_counts"]["18"] == expected_x


def pyiceberg_statistics(path, properties):
    stats = data_file_statistics_from_parquet_metadata(
        parquet_metadata=pq.read_metadata(path),
        stats_columns=compute_statistics_plan(SCHEMA, properties),
        parquet_column_mapping=parquet_path_to_id_mapping(SCHEMA),
    )
    return stats.to_serialized_dict()


@pytest.mark.parametrize(
    "properties",
    [
        {},
        {"write.metadata.metrics.default": "truncate(4)"},
        {"write.metadata.metrics.default": "full"},
        {"write.metadata.metrics.default": "counts", "write.metadata.metrics.column.name": "truncate(2)"},
    ],
    ids=["default", "truncate4", "full", "counts+column"],
)
def test_metrics_match_pyiceberg(run_tool, tmp_path, table, properties):
    # PyIceberg cannot read timestamp_ns statistics without pandas; both
    # sides keep only counts for that column.
    properties = {**properties, "write.metadata.metrics.column.tsn": "counts"}
    extra = []
    for key, value in properties.items():
        extra += ["--property", f"{key}={value}"]
    out, result = skade_write(
        run_tool, tmp_path, table, "m.parquet", "--property", "write.parquet.row-group-size-bytes=65536", *extra
    )
    ours = result["files"][0]
    theirs = pyiceberg_statistics(out, properties)
    assert ours["record_count"] == theirs["record_count"]
    assert ours["split_offsets"] == theirs["split_offsets"]
    assert {int(k): v for k, v in ours["column_sizes"].items()} == theirs["column_sizes"]
    # PyIceberg also counts leaves inside lists and maps; Iceberg Java (and
    # skade) keep no metrics for them. Everything else must agree.
    plain = leaf_ids_outside_lists_and_maps()
    for key in ("value_counts", "null_value_counts"):
        theirs_plain = {k: v for k, v in theirs[key].items() if k in plain}
        assert {int(k): v for k, v in ours[key].items()} == theirs_plain, key
    # PyIceberg computes bounds for top-level columns only; compare those.
    top_level = {f.field_id for f in SCHEMA.fields if f.field_type.is_primitive}
    for key in ("lower_bounds", "upper_bounds"):
        ours_top = {int(k): bytes.fromhex(v) for k, v in ours[key].items() if int(k) in top_level}
        assert ours_top == theirs[key], key
    assert theirs["lower_bounds"], "the comparison must not be vacuous"
    # Struct fields get bounds from skade as from Iceberg Java.
    if properties.get("write.metadata.metrics.default") in (None, "full", "truncate(4)"):
        assert "18" in ours["lower_bounds"] and "19" in ours["lower_bounds"]


def test_truncated_string_bounds_are_bounds(written, table):
    _, data_file = written
    names = [n for n in table.column("name").to_pylist() if n is not None]
    lower = bytes.fromhex(data_file["lower_bounds"]["2"]).decode("utf-8")
    upper = bytes.fromhex(data_file["upper_bounds"]["2"]).decode("utf-8")
    assert len(lower) <= 16 and len(upper) <= 16
    # Compare as UTF-8 bytes (code point order), as Iceberg does.
    assert all(lower.encode() <= n.encode() for n in names)
    assert all(upper.encode() >= n.encode() for n in names)


def test_writes_are_deterministic(run_tool, tmp_path, table):
    a, _ = skade_write(run_tool, tmp_path, table, "a.parquet",
                       "--property", "write.parquet.row-group-size-bytes=65536")
    b, _ = skade_write(run_tool, tmp_path, table, "b.parquet",
                       "--property", "write.parquet.row-group-size-bytes=65536")
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("codec", ["zstd", "snappy", "gzip", "lz4", "uncompressed"])
def test_codecs_readable_by_pyarrow_and_duckdb(run_tool, tmp_path, table, codec):
    out, _ = skade_write(run_tool, tmp_path, table, f"{codec}.parquet",
                         "--property", f"write.parquet.compression-codec={codec}")
    # The codec as the Thrift footer names it (Arrow's "lz4" is LZ4_RAW).
    expected = {"lz4": "LZ4_RAW"}.get(codec, codec.upper())
    codecs = duckdb.sql(f"SELECT DISTINCT compression FROM parquet_metadata('{out}')").fetchall()
    assert codecs == [(expected,)]
    assert normalized_rows(pq.read_table(out)) == normalized_rows(table)
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}')").fetchall()[0][0] == table.num_rows


def test_rolling_files_by_target_size(run_tool, tmp_path, table):
    out, result = skade_write(
        run_tool, tmp_path, table, "roll.parquet",
        "--property", "write.target-file-size-bytes=60000",
        "--property", "write.parquet.row-group-size-bytes=20000",
    )
    files = result["files"]
    assert len(files) > 2
    assert sum(f["record_count"] for f in files) == table.num_rows
    tables = [pq.read_table(f["file_path"]) for f in files]
    for f, t in zip(files, tables):
        assert t.num_rows == f["record_count"]
        assert f["file_size_in_bytes"] == os.path.getsize(f["file_path"])
    assert normalized_rows(pa.concat_tables(tables)) == normalized_rows(table)


# --- Partitioning ------------------------------------------------------------


def pyiceberg_value(iceberg_type, value):
    """An Arrow Python value in the form PyIceberg's transforms take."""
    if value is None:
        return None
    if isinstance(iceberg_type, DateType):
        return (value - datetime.date(1970, 1, 1)).days
    if isinstance(iceberg_type, TimeType):
        return (value.hour * 3600 + value.minute * 60 + value.second) * 1_000_000 + value.microsecond
    if isinstance(iceberg_type, (TimestampType, TimestamptzType)):
        if value.tzinfo is not None:
            value = value.replace(tzinfo=None) - value.utcoffset()
        delta = value - datetime.datetime(1970, 1, 1)
        return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return value


def skade_json_value(iceberg_type, value):
    """PyIceberg's transform result in skade_data_tool's JSON form."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, uuid.UUID):
        return value.bytes.hex()
    if isinstance(value, decimal.Decimal):
        return int(value.scaleb(iceberg_type.scale))
    return value


TRANSFORM_CASES = [
    ("id", LongType(), ["bucket[16]", "bucket[1000]", "truncate[10]", "truncate[1]"]),
    ("small", IntegerType(), ["bucket[7]", "truncate[10]", "truncate[3]"]),
    ("name", StringType(), ["bucket[16]", "truncate[1]", "truncate[3]", "truncate[16]"]),
    ("blob", BinaryType(), ["bucket[32]", "truncate[2]"]),
    ("code", FixedType(4), ["bucket[5]"]),
    ("uid", UUIDType(), ["bucket[64]"]),
    ("amount", DecimalType(9, 2), ["bucket[10]", "truncate[50]", "truncate[1]"]),
    ("big", DecimalType(38, 6), ["bucket[10]", "truncate[1000]"]),
    ("day", DateType(), ["bucket[8]", "year", "month", "day"]),
    ("t", TimeType(), ["bucket[8]"]),
    ("ts", TimestampType(), ["bucket[8]", "year", "month", "day", "hour"]),
    ("tstz", TimestamptzType(), ["bucket[8]", "year", "month", "day", "hour"]),
]


def pyiceberg_transform(text):
    if text.startswith("bucket["):
        return BucketTransform(int(text[7:-1]))
    if text.startswith("truncate["):
        return TruncateTransform(int(text[9:-1]))
    return {"year": YearTransform(), "month": MonthTransform(), "day": DayTransform(), "hour": HourTransform()}[text]


@pytest.mark.parametrize(
    "column,iceberg_type,transform",
    [(c, t, x) for c, t, xs in TRANSFORM_CASES for x in xs],
    ids=[f"{c}-{x}" for c, _, xs in TRANSFORM_CASES for x in xs],
)
def test_transforms_match_pyiceberg(run_tool, tmp_path, table, column, iceberg_type, transform):
    source = tmp_path / "values.arrow"
    feather.write_feather(table.select([column]), source, compression="uncompressed")
    got = json.loads(run_tool("skade_data_tool", "transform", source, column, transform).stdout)
    fn = pyiceberg_transform(transform).transform(iceberg_type)
    values = table.column(column).to_pylist()
    if isinstance(iceberg_type, UUIDType):
        values = [None if v is None else uuid.UUID(bytes=v) if isinstance(v, bytes) else v for v in values]
    expected = [skade_json_value(iceberg_type, fn(pyiceberg_value(iceberg_type, v))) for v in values]
    assert len(got) == len(expected)
    mismatches = [(v, g, e) for v, g, e in zip(values, got, expected) if g != e]
    assert not mismatches, mismatches[:5]


def test_timestamp_ns_transforms_match_pyiceberg(run_tool, tmp_path, table):
    source = tmp_path / "ns.arrow"
    feather.write_feather(table.select(["tsn"]), source, compression="uncompressed")
    nanos = table.column("tsn").cast(pa.int64()).to_pylist()
    for text in ["bucket[8]", "year", "month", "day", "hour"]:
        got = json.loads(run_tool("skade_data_tool", "transform", source, "tsn", text).stdout)
        fn = pyiceberg_transform(text).transform(TimestampNanoType())
        expected = [None if v is None else fn(v) for v in nanos]
        assert got == expected, text


def test_fanout_partitions_match_pyiceberg(run_tool, tmp_path, table):
    out, result = skade_write(
        run_tool, tmp_path, table, "parts", "--partition-by", "day:year", "--partition-by", "id:bucket[4]"
    )
    files = result["files"]
    year = YearTransform().transform(DateType())
    bucket = BucketTransform(4).transform(LongType())
    seen = set()
    total = 0
    for f in files:
        partition = tuple(f["partition"])
        assert partition not in seen
        seen.add(partition)
        rows = pq.read_table(f["file_path"])
        total += rows.num_rows
        assert rows.num_rows == f["record_count"]
        for day, row_id in zip(rows.column("day").to_pylist(), rows.column("id").to_pylist()):
            assert (year(pyiceberg_value(DateType(), day)), bucket(row_id)) == partition
        # Rows keep their input order inside a partition.
        ids = rows.column("id").to_pylist()
        assert ids == sorted(ids)
        # Hive-style directory names as Iceberg writes them.
        directory = os.path.relpath(os.path.dirname(f["file_path"]), out)
        year_text = "null" if partition[0] is None else f"{1970 + partition[0]:04d}"
        assert directory == f"day_year={year_text}/id_bucket={partition[1]}"
    assert total == table.num_rows
    expected = {
        (year(pyiceberg_value(DateType(), d)), bucket(i))
        for d, i in zip(table.column("day").to_pylist(), table.column("id").to_pylist())
    }
    assert seen == expected
    assert duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{out}/*/*/*.parquet', hive_partitioning = false)"
    ).fetchall()[0][0] == table.num_rows


# --- Schemas and errors ------------------------------------------------------


def test_schema_from_arrow_matches_pyiceberg_ids(run_tool, tmp_path, table):
    source = tmp_path / "s.arrow"
    feather.write_feather(table, source, compression="uncompressed")
    ours = json.loads(run_tool("skade_data_tool", "schema", source).stdout)
    assert ours["type"] == "struct"
    expected = json.loads(SCHEMA.model_dump_json())
    # Same ids, names, types and nesting (required flags follow Arrow
    # nullability, which schema_to_pyarrow keeps).
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("schema-id", "identifier-field-ids")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    assert strip(ours) == strip(expected)


@pytest.mark.parametrize(
    "arrow_type,message",
    [
        (pa.time32("ms"), "microseconds"),
        (pa.uint64(), "unsigned 64-bit"),
        (pa.timestamp("us", tz="America/New_York"), "UTC"),
        (pa.duration("s"), "no Iceberg equivalent"),
        (pa.dictionary(pa.int32(), pa.string()), "dictionary"),
    ],
)
def test_unwritable_arrow_types_are_clear_errors(run_tool, tmp_path, arrow_type, message):
    values = pa.array([None, None], type=arrow_type)
    t = pa.table({"ok": pa.array([1, 2]), "outer": pa.StructArray.from_arrays([values], names=["bad"])})
    source = tmp_path / "bad.arrow"
    feather.write_feather(t, source, compression="uncompressed")
    proc = run_tool("skade_data_tool", "schema", source, check=False)
    assert proc.returncode == 1
    assert "InvalidArgument" in proc.stderr
    assert "'outer.bad'" in proc.stderr
    assert message in proc.stderr
    proc = run_tool("skade_data_tool", "write-parquet", source, tmp_path / "bad.parquet", check=False)
    assert proc.returncode == 1
    assert not (tmp_path / "bad.parquet").exists()
