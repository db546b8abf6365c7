"""Interop proof for skade's write path (src/skade/table/, src/skade/ingest/,
`skade ingest`): real PyIceberg, DuckDB, fastavro and Spark read the tables,
data files and manifests that skade writes, row for row equal to the input.

Everything runs against one `skade serve` on a warehouse that `skade ingest`
(a second process) writes into at the same time. Inputs are generated with
pyarrow during the run.
"""
import datetime as dt
import decimal
import glob
import json
import math
import os
import pathlib
import random
import re
import uuid

import duckdb
import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.io.pyarrow import schema_to_pyarrow
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform, TruncateTransform
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
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]

ALL_TYPES = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "price", DoubleType()),
    NestedField(4, "ratio", FloatType()),
    NestedField(5, "flag", BooleanType()),
    NestedField(6, "day", DateType()),
    NestedField(7, "t", TimeType()),
    NestedField(8, "ts", TimestampType()),
    NestedField(9, "tstz", TimestamptzType()),
    NestedField(10, "amount", DecimalType(9, 2)),
    NestedField(11, "big", DecimalType(38, 6)),
    NestedField(12, "uid", UUIDType()),
    NestedField(13, "code", FixedType(4)),
    NestedField(14, "blob", BinaryType()),
    NestedField(15, "small", IntegerType()),
    NestedField(16, "point", StructType(NestedField(17, "x", DoubleType()),
                                        NestedField(18, "label", StringType()))),
    NestedField(19, "tags", ListType(20, StringType(), element_required=False)),
    NestedField(21, "props", MapType(22, StringType(), 23, LongType(), value_required=False)),
)

WORDS = ["alpha", "Ünïcödé", "日本語のテキスト", "emoji 😀🎉", "a-very-long-string-past-sixteen", ""]
DAY_MICROS = 86_400_000_000
BASE = dt.datetime(2026, 11, 1)


def maybe(rng, value, null_percent=10):
    return None if rng.random() * 100 < null_percent else value


def all_types_table(rows, seed):
    rng = random.Random(seed)
    data = []
    for i in range(rows):
        micros = rng.randint(-50 * 365 * DAY_MICROS, 60 * 365 * DAY_MICROS)
        data.append({
            "id": i,
            "name": maybe(rng, rng.choice(WORDS) + str(rng.randint(0, 99))),
            "price": maybe(rng, rng.choice([math.nan, rng.uniform(-1e6, 1e6)])),
            "ratio": maybe(rng, rng.uniform(-100, 100)),
            "flag": maybe(rng, rng.random() < 0.5),
            "day": maybe(rng, dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-20000, 30000))),
            "t": maybe(rng, rng.randint(0, DAY_MICROS - 1)),
            "ts": maybe(rng, micros),
            "tstz": maybe(rng, micros + rng.randint(-10**9, 10**9)),
            "amount": maybe(rng, decimal.Decimal(rng.randint(-10**9 + 1, 10**9 - 1)).scaleb(-2)),
            "big": maybe(rng, decimal.Decimal(rng.randint(-10**37, 10**37)).scaleb(-6)),
            "uid": maybe(rng, uuid.UUID(int=rng.getrandbits(128)).bytes),
            "code": maybe(rng, bytes(rng.getrandbits(8) for _ in range(4))),
            "blob": maybe(rng, bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))),
            "small": maybe(rng, rng.randint(-(2**31), 2**31 - 1)),
            "point": maybe(rng, {"x": maybe(rng, rng.uniform(-5, 5)),
                                 "label": maybe(rng, rng.choice(WORDS))}),
            "tags": maybe(rng, [maybe(rng, rng.choice(WORDS)) for _ in range(rng.randint(0, 4))]),
            "props": maybe(rng, [(f"k{j}", maybe(rng, rng.randint(-99, 99)))
                                 for j in range(rng.randint(0, 3))]),
        })
    return pa.Table.from_pylist(data, schema=schema_to_pyarrow(ALL_TYPES))


def events_table(first, rows, days=5):
    """Rows of the partitioned "events" shape: ids from `first`, one of
    `days` days from 2026-11-01, one of three regions."""
    ids = list(range(first, first + rows))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "region": [["eu", "us", "ap"][i % 3] for i in ids],
        "name": [None if i % 11 == 0 else f"name-{i}" for i in ids],
        "score": [None if i % 7 == 0 else i / 4 for i in ids],
        "ts": pa.array([BASE + dt.timedelta(days=i % days, seconds=i % 3600) for i in ids],
                       pa.timestamp("us")),
    })


EVENTS = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "region", StringType()),
    NestedField(3, "name", StringType()),
    NestedField(4, "score", DoubleType()),
    NestedField(5, "ts", TimestampType()),
)
EVENTS_SPEC = PartitionSpec(
    PartitionField(5, 1000, DayTransform(), "ts_day"),
    PartitionField(2, 1001, IdentityTransform(), "region"),
    PartitionField(1, 1002, BucketTransform(4), "id_bucket"),
    PartitionField(3, 1003, TruncateTransform(2), "name_trunc"),
)


def normalized(rows):
    def norm(value):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [norm(v) for v in value]
        return value

    return [norm(row) for row in rows]


def rows_by_id(table):
    return normalized(sorted(table.to_pylist(), key=lambda row: row["id"]))


def local(path):
    return path[len("file://"):] if path.startswith("file://") else path


@pytest.fixture(scope="module")
def catalog(module_server):
    catalog = RestCatalog("skade", uri=module_server.uri)
    catalog.create_namespace_if_not_exists("interop")
    return catalog


@pytest.fixture(scope="module")
def ingest(run_module_tool, module_server):
    """`skade --warehouse <server's warehouse> ingest …`, beside the server."""

    def run(*args, check=True):
        return run_module_tool("skade", "--warehouse", module_server.warehouse, "ingest", *args,
                               check=check)

    return run


@pytest.fixture(scope="module")
def run_module_tool(bin_dir):
    import subprocess

    def run(name, *args, check=True):
        proc = subprocess.run([str(bin_dir / name), *map(str, args)], capture_output=True,
                              text=True, timeout=300)
        if check and proc.returncode != 0:
            pytest.fail(f"{name} {' '.join(map(str, args))} exited {proc.returncode}\n"
                        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    return run


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return tmp_path_factory.mktemp("inputs")


def data_files(table):
    return [local(task.file.file_path) for task in table.scan().plan_files()]


def test_create_from_parquet_all_types_overlapped(catalog, ingest, inputs):
    source = all_types_table(3000, seed=7)
    pq.write_table(source, inputs / "all.parquet")
    proc = ingest("--table", "interop.all_types", "--create", "--overlap", "--rows-per-file", 500,
                  "--files-per-commit", 2, "--channel-depth", 3, inputs / "all.parquet")
    assert "ingested 3000 rows" in proc.stdout and "6 files" in proc.stdout
    # Three snapshots; overlapped, groups written during a commit share the next one.
    assert re.search(r"(3 commits|3 snapshots, [12] commits?) in", proc.stdout), proc.stdout

    table = catalog.load_table("interop.all_types")
    assert len(table.metadata.snapshots) == 3
    summary = table.current_snapshot().summary
    assert summary.operation.value == "append"
    assert summary["added-data-files"] == "2" and summary["total-data-files"] == "6"
    assert summary["total-records"] == "3000" and summary["total-delete-files"] == "0"
    assert summary["engine-name"] == "skade"
    got = table.scan().to_arrow()
    assert got.num_rows == 3000
    assert rows_by_id(got) == rows_by_id(source)
    # Same columns and types (the catalog assigns fresh field ids, as Java's).
    assert schema_to_pyarrow(table.schema()).equals(schema_to_pyarrow(ALL_TYPES),
                                                    check_metadata=False)

    # DuckDB reads the data files directly.
    files = data_files(table)
    assert len(files) == 6 and all(path.endswith(".parquet") for path in files)
    [(count, total, names)] = duckdb.sql(
        f"SELECT count(*), sum(id), count(name) FROM read_parquet({files!r})").fetchall()
    assert (count, total, names) == (3000, sum(range(3000)), pc.count(source.column("name")).as_py())


def test_ingest_into_a_pyiceberg_partitioned_table(catalog, ingest, inputs):
    table = catalog.create_table("interop.events", schema=EVENTS, partition_spec=EVENTS_SPEC)
    source = events_table(0, 4000)
    pq.write_table(source, inputs / "events.parquet")
    ingest("--table", "interop.events", "--rows-per-file", 1000, inputs / "events.parquet")

    table = catalog.load_table("interop.events")
    assert len(table.metadata.snapshots) == 1
    got = table.scan().to_arrow()
    assert rows_by_id(got) == rows_by_id(source)
    # Partition pruning in PyIceberg sees skade's partition tuples and summaries.
    day2 = table.scan(row_filter="ts >= '2026-11-02T00:00:00' and ts < '2026-11-03T00:00:00' "
                                 "and region == 'us'").to_arrow()
    mask = pc.and_(pc.equal(pc.day(source.column("ts")), 2), pc.equal(source.column("region"), "us"))
    assert rows_by_id(day2) == rows_by_id(source.filter(mask))
    partitions = table.inspect.partitions()
    assert sum(partitions.column("record_count").to_pylist()) == 4000
    # Java's Hive-style partition paths.
    for path in data_files(table):
        assert "/data/ts_day=2026-11-0" in path and "/region=" in path and "/id_bucket=" in path


def test_csv_then_jsonl(catalog, ingest, inputs):
    pacsv.write_csv(events_table(0, 500), inputs / "events.csv")
    ingest("--table", "interop.texts", "--create", "--partition-by", "day(ts)",
           inputs / "events.csv")
    # What the CSV holds, as pyarrow reads it back (no nulls for strings).
    first = pacsv.read_csv(inputs / "events.csv")
    with open(inputs / "events.jsonl", "w") as out:
        for i in range(500, 520):
            out.write(json.dumps({"id": i, "region": "eu", "name": f"j{i}", "score": 0.5,
                                  "ts": f"2026-11-0{1 + i % 3}T10:00:00"}) + "\n")
    ingest("--table", "interop.texts", "--overlap", inputs / "events.jsonl")

    table = catalog.load_table("interop.texts")
    assert [f.name for f in table.schema().fields] == ["id", "region", "name", "score", "ts"]
    assert str(table.schema().find_field("ts").field_type) == "timestamp"
    got = rows_by_id(table.scan().to_arrow())
    assert len(got) == 520
    assert got[:500] == rows_by_id(first)
    assert got[510] == {"id": 510, "region": "eu", "name": "j510", "score": 0.5,
                        "ts": dt.datetime(2026, 11, 1, 10, 0)}
    assert len(table.metadata.snapshots) == 2


def test_replace_partitions_over_several_commits(catalog, ingest, inputs):
    """With --files-per-commit, each snapshot of a --replace-partitions ingest replaces
    only the partitions it adds files to: a reader of any snapshot sees each partition
    either with all its old rows or with new rows only, never emptied ahead of its new
    files. --overwrite with --files-per-commit is one snapshot."""
    name = "interop.replaced_in_steps"
    catalog.create_table(name, schema=EVENTS, partition_spec=PartitionSpec(
        PartitionField(5, 1000, DayTransform(), "ts_day"),
        PartitionField(2, 1001, IdentityTransform(), "region")))
    base = events_table(0, 3000)
    pq.write_table(base, inputs / "steps_base.parquet")
    ingest("--table", name, inputs / "steps_base.parquet")
    before = len(catalog.load_table(name).metadata.snapshots)

    fresh = events_table(100000, 300, days=2)
    pq.write_table(fresh, inputs / "steps_fresh.parquet")
    ingest("--table", name, "--replace-partitions", "--files-per-commit", 1,
           "--rows-per-file", 100, inputs / "steps_fresh.parquet")
    table = catalog.load_table(name)
    steps = table.metadata.snapshots[before:]
    assert len(steps) > 1

    def by_partition(rows):
        out = {}
        for row in rows:
            out.setdefault((row["ts"].date(), row["region"]), set()).add(row["id"])
        return out

    old = by_partition(base.to_pylist())
    replaced = set(by_partition(fresh.to_pylist()))
    still_old = []
    for snapshot in steps[:-1]:
        seen = by_partition(table.scan(snapshot_id=snapshot.snapshot_id).to_arrow().to_pylist())
        for key, ids in old.items():
            got = seen.get(key, set())
            if key not in replaced:
                assert got == ids, key
            else:
                assert got == ids or (got and got.isdisjoint(ids)), (snapshot.snapshot_id, key)
        still_old.append(sum(1 for key in replaced if seen.get(key) == old[key]))
    assert still_old[0] == len(replaced) - 1  # the first snapshot replaced one partition
    early = pc.less(base.column("ts"), pa.scalar(BASE + dt.timedelta(days=2), pa.timestamp("us")))
    expected = pa.concat_tables([base.filter(pc.invert(early)), fresh])
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(expected)

    count = len(table.metadata.snapshots)
    ingest("--table", name, "--overwrite", "--files-per-commit", 1, "--rows-per-file", 100,
           inputs / "steps_fresh.parquet")
    table = catalog.load_table(name)
    assert len(table.metadata.snapshots) == count + 1
    assert table.current_snapshot().summary.operation.value == "overwrite"
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(fresh)


def test_overwrite_replace_partitions_and_delete(catalog, ingest, inputs):
    table = catalog.create_table("interop.replaced", schema=EVENTS,
                                 partition_spec=PartitionSpec(
                                     PartitionField(5, 1000, DayTransform(), "ts_day"),
                                     PartitionField(2, 1001, IdentityTransform(), "region")))
    base = events_table(0, 3000)
    pq.write_table(base, inputs / "base.parquet")
    ingest("--table", "interop.replaced", inputs / "base.parquet")

    # Replace the partitions the new data touches (day 2026-11-01 and 02).
    fresh = events_table(100000, 300, days=2)
    pq.write_table(fresh, inputs / "fresh.parquet")
    ingest("--table", "interop.replaced", "--replace-partitions", inputs / "fresh.parquet")
    table = catalog.load_table("interop.replaced")
    summary = table.current_snapshot().summary
    assert summary.operation.value == "overwrite"
    early = pc.less(base.column("ts"), pa.scalar(BASE + dt.timedelta(days=2), pa.timestamp("us")))
    kept = base.filter(pc.invert(early))
    assert summary["deleted-records"] == str(base.num_rows - kept.num_rows)
    expected = pa.concat_tables([kept, fresh])
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(expected)

    # Replace one partition by its path values.
    patch = events_table(200000, 9, days=1)
    patch = patch.filter(pc.equal(patch.column("region"), "eu"))
    pq.write_table(patch, inputs / "patch.parquet")
    ingest("--table", "interop.replaced", "--overwrite-where", "ts_day=2026-11-01",
           "--overwrite-where", "region=eu", inputs / "patch.parquet")
    gone = pc.and_(pc.equal(pc.day(expected.column("ts")), 1),
                   pc.equal(expected.column("region"), "eu"))
    expected = pa.concat_tables([expected.filter(pc.invert(gone)), patch])
    assert rows_by_id(catalog.load_table("interop.replaced").scan().to_arrow()) == rows_by_id(expected)

    # Delete a partition (no input files).
    proc = ingest("--table", "interop.replaced", "--overwrite-where", "region=us")
    assert proc.stdout.startswith("deleted ")
    table = catalog.load_table("interop.replaced")
    assert table.current_snapshot().summary.operation.value == "delete"
    expected = expected.filter(pc.not_equal(expected.column("region"), "us"))
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(expected)
    assert table.current_snapshot().summary["total-records"] == str(expected.num_rows)

    # Replace everything.
    ingest("--table", "interop.replaced", "--overwrite", inputs / "fresh.parquet")
    table = catalog.load_table("interop.replaced")
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(fresh)
    assert table.current_snapshot().summary["total-data-files"] == str(len(data_files(table)))


def test_fastavro_reads_manifests_with_field_ids(catalog, ingest, inputs):
    pq.write_table(events_table(0, 600), inputs / "m.parquet")
    ingest("--table", "interop.manifests", "--create", "--partition-by", "region",
           "--rows-per-file", 200, "--files-per-commit", 3, inputs / "m.parquet")
    table = catalog.load_table("interop.manifests")
    snapshot = table.current_snapshot()
    with open(local(snapshot.manifest_list), "rb") as f:
        reader = fastavro.reader(f)
        assert reader.metadata["snapshot-id"] == str(snapshot.snapshot_id)
        assert reader.metadata["format-version"] == "2"
        list_schema = json.loads(reader.metadata["avro.schema"])
        manifests = list(reader)
    assert {field["name"]: field["field-id"] for field in list_schema["fields"]}["manifest_path"] == 500
    # Newest manifest first; each append added one.
    assert len(manifests) == len(table.metadata.snapshots) == 3
    assert manifests[0]["added_snapshot_id"] == snapshot.snapshot_id
    assert [m["sequence_number"] for m in manifests] == [3, 2, 1]

    paths, records = [], 0
    for manifest in manifests:
        with open(local(manifest["manifest_path"]), "rb") as f:
            reader = fastavro.reader(f)
            schema = json.loads(reader.metadata["avro.schema"])
            assert reader.metadata["partition-spec-id"] == "0"
            assert json.loads(reader.metadata["partition-spec"])[0]["name"] == "region"
            for entry in reader:
                assert entry["status"] == 1  # ADDED
                assert entry["snapshot_id"] == manifest["added_snapshot_id"]
                paths.append(entry["data_file"]["file_path"])
                records += entry["data_file"]["record_count"]
                assert entry["data_file"]["partition"]["region"] in ("eu", "us", "ap")
                assert set(entry["data_file"]["value_counts"][0].keys()) == {"key", "value"}
        ids = {field["name"]: field["field-id"] for field in schema["fields"]}
        assert ids == {"status": 0, "snapshot_id": 1, "sequence_number": 3,
                       "file_sequence_number": 4, "data_file": 2}
        data_file = next(f for f in schema["fields"] if f["name"] == "data_file")["type"]
        file_ids = {field["name"]: field["field-id"] for field in data_file["fields"]}
        assert file_ids["file_path"] == 100 and file_ids["record_count"] == 103
        assert file_ids["partition"] == 102
    assert records == 600
    assert sorted(local(p) for p in paths) == sorted(data_files(table))
    assert all(os.path.exists(local(p)) for p in paths)


def test_format_v3_row_lineage(catalog, ingest, inputs, module_server, run_module_tool):
    schema = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"},
        {"id": 2, "name": "region", "required": False, "type": "string"},
        {"id": 3, "name": "name", "required": False, "type": "string"},
        {"id": 4, "name": "score", "required": False, "type": "double"},
        {"id": 5, "name": "ts", "required": False, "type": "timestamp"},
    ]}
    (inputs / "v3.json").write_text(json.dumps(schema))
    run_module_tool("skade", "--warehouse", module_server.warehouse, "table", "create",
                    "interop.v3", "--schema", inputs / "v3.json", "--format-version", 3)
    source = events_table(0, 900)
    pq.write_table(source, inputs / "v3.parquet")
    ingest("--table", "interop.v3", "--rows-per-file", 300, "--files-per-commit", 1, "--overlap",
           inputs / "v3.parquet")
    table = catalog.load_table("interop.v3")
    assert table.metadata.format_version == 3
    assert table.metadata.next_row_id == 900
    assert [s.first_row_id for s in table.metadata.snapshots] == [0, 300, 600]
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(source)


def test_bad_input_commits_nothing(catalog, ingest, inputs):
    pq.write_table(events_table(0, 100), inputs / "ok.parquet")
    ingest("--table", "interop.strict", "--create", inputs / "ok.parquet")
    before = catalog.load_table("interop.strict")
    files_before = sorted(glob.glob(local(before.location()) + "/data/**/*.parquet", recursive=True))
    pq.write_table(pa.table({"id": ["not a number"]}), inputs / "bad.parquet")
    proc = ingest("--table", "interop.strict", inputs / "ok.parquet", inputs / "bad.parquet",
                  check=False)
    assert proc.returncode == 1
    assert "id" in proc.stderr
    after = catalog.load_table("interop.strict")
    assert after.metadata.current_snapshot_id == before.metadata.current_snapshot_id
    assert sorted(glob.glob(local(after.location()) + "/data/**/*.parquet",
                            recursive=True)) == files_before
    proc = ingest("--table", "interop.missing", inputs / "ok.parquet", check=False)
    assert proc.returncode == 1 and "NoSuchTable" in proc.stderr


def test_rerunning_a_failed_create(catalog, ingest, inputs):
    """A --create whose input fails leaves the table it created, empty; the
    same command run again with good input fills it, --partition-by
    included, and another partitioning is refused."""
    pq.write_table(events_table(0, 100), inputs / "rerun-ok.parquet")
    pq.write_table(pa.table({"id": ["not a number"]}), inputs / "rerun-bad.parquet")
    create = ("--table", "interop.rerun", "--create", "--partition-by", "day(ts)",
              "--partition-by", "region")
    proc = ingest(*create, inputs / "rerun-ok.parquet", inputs / "rerun-bad.parquet", check=False)
    assert proc.returncode == 1
    assert catalog.load_table("interop.rerun").metadata.current_snapshot_id is None
    ingest(*create, inputs / "rerun-ok.parquet")
    assert catalog.load_table("interop.rerun").scan().to_arrow().num_rows == 100
    for other in (["--partition-by", "region"], ["--partition-by", "day(ts)"],
                  ["--partition-by", "region", "--partition-by", "day(ts)"],
                  ["--partition-by", "month(ts)", "--partition-by", "region"]):
        proc = ingest("--table", "interop.rerun", "--create", *other, inputs / "rerun-ok.parquet",
                      check=False)
        assert proc.returncode == 1 and "another partitioning" in proc.stderr, other
    assert catalog.load_table("interop.rerun").scan().to_arrow().num_rows == 100


def table_data_files_on_disk(table):
    return sorted(glob.glob(local(table.location()) + "/data/**/*.parquet", recursive=True))


def test_overwrite_where_names_a_field_of_an_older_spec(catalog, ingest, inputs):
    """A table no longer partitioned by `region` still holds files of the spec that was: their
    partitions can be named (and deleted) as before."""
    name = "interop.overwrite_older_spec"
    pq.write_table(events_table(0, 300), inputs / "older.parquet")
    ingest("--table", name, "--create", "--partition-by", "region", inputs / "older.parquet")
    with catalog.load_table(name).update_spec() as update:
        update.remove_field("region")
    ingest("--table", name, "--overwrite-where", "region=eu")
    regions = catalog.load_table(name).scan().to_arrow().column("region").to_pylist()
    assert len(regions) == 200 and "eu" not in regions


def test_overwrite_where_refuses_what_it_would_not_replace(catalog, ingest, inputs):
    """--overwrite-where with a NAME that is no partition field (a typo) is refused, and so
    is an input with rows outside the filter (Spark's static overwrite refuses them too):
    otherwise each rerun would add those rows again. Nothing is committed or left behind."""
    name = "interop.overwrite_refusals"
    base = events_table(0, 300)
    pq.write_table(base, inputs / "refusals.parquet")
    ingest("--table", name, "--create", "--partition-by", "region", inputs / "refusals.parquet")
    before = catalog.load_table(name)
    files_before = table_data_files_on_disk(before)

    for args in (["--overwrite-where", "regoin=eu", inputs / "refusals.parquet"],
                 ["--overwrite-where", "regoin=eu"]):  # the delete without input files too
        proc = ingest("--table", name, *args, check=False)
        assert proc.returncode == 1, proc.stdout
        assert "'regoin' is not a partition field of interop.overwrite_refusals" in proc.stderr
        assert "its partition fields are: region" in proc.stderr

    proc = ingest("--table", name, "--overwrite-where", "region=eu", inputs / "refusals.parquet",
                  check=False)
    assert proc.returncode == 1, proc.stdout
    assert re.search(r"cannot overwrite region=eu: the input has rows in partition region=(us|ap)",
                     proc.stderr), proc.stderr
    after = catalog.load_table(name)
    assert after.metadata.current_snapshot_id == before.metadata.current_snapshot_id
    assert table_data_files_on_disk(after) == files_before

    # Rows of the named partition only: replaced, and a rerun changes nothing.
    eu = base.filter(pc.equal(base.column("region"), "eu"))
    pq.write_table(eu, inputs / "refusals_eu.parquet")
    for _ in range(2):
        ingest("--table", name, "--overwrite-where", "region=eu", inputs / "refusals_eu.parquet")
    assert rows_by_id(catalog.load_table(name).scan().to_arrow()) == rows_by_id(base)


def test_overwrite_with_an_input_without_rows(catalog, ingest, inputs):
    """An overwrite whose input has no rows replaces what it names with nothing, as
    --overwrite-where without input files deletes it."""
    name = "interop.overwrite_empty"
    base = events_table(0, 300)
    pq.write_table(base, inputs / "ow_empty_base.parquet")
    pq.write_table(base.slice(0, 0), inputs / "ow_empty.parquet")
    ingest("--table", name, "--create", "--partition-by", "region", inputs / "ow_empty_base.parquet")

    ingest("--table", name, "--overwrite-where", "region=eu", inputs / "ow_empty.parquet")
    table = catalog.load_table(name)
    assert table.current_snapshot().summary.operation.value == "delete"
    expected = base.filter(pc.not_equal(base.column("region"), "eu"))
    assert rows_by_id(table.scan().to_arrow()) == rows_by_id(expected)

    ingest("--table", name, "--overwrite", inputs / "ow_empty.parquet")
    table = catalog.load_table(name)
    assert table.scan().to_arrow().num_rows == 0
    assert table.current_snapshot().summary["total-records"] == "0"


def test_a_stop_signal_stops_a_plain_ingest(catalog, inputs, module_server, bin_dir):
    """SIGINT (or SIGTERM) during a plain ingest stops it: nothing uncommitted is left,
    and the error says what was committed. The signal is made pending before skade
    starts (blocked across exec), so the outcome does not depend on timing."""
    import signal
    import subprocess

    name = "interop.stopped"
    pq.write_table(events_table(0, 3000), inputs / "stopped.parquet")
    skade = [str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse), "ingest"]
    subprocess.run([*skade, "--table", name, "--create", str(inputs / "stopped.parquet")],
                   check=True, capture_output=True)
    before = catalog.load_table(name)
    files_before = table_data_files_on_disk(before)

    for sig in (signal.SIGINT, signal.SIGTERM):
        def pending_signal():
            signal.pthread_sigmask(signal.SIG_BLOCK, {sig})
            os.kill(os.getpid(), sig)

        proc = subprocess.run([*skade, "--table", name, "--rows-per-file", "500",
                               "--files-per-commit", "1", str(inputs / "stopped.parquet")],
                              capture_output=True, text=True, timeout=300,
                              preexec_fn=pending_signal)
        assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
        assert f"skade: {sig.name}: stopping the ingest" in proc.stderr
        assert (f"{sig.name}: Ingest cancelled (ingest stopped; 0 snapshots committed before the "
                "failure: 0 rows in 0 data files)") in proc.stderr
        after = catalog.load_table(name)
        assert after.metadata.current_snapshot_id == before.metadata.current_snapshot_id
        assert table_data_files_on_disk(after) == files_before


def test_a_stop_signal_stops_coalesce(catalog, inputs, module_server, bin_dir):
    """Regression: SIGTERM killed --coalesce (143), silently, leaving data files no snapshot
    lists. It stops as a plain ingest does: no write starts after the signal, the one being
    committed lands or fails whole, and the error (exit 1) says what was committed. First with
    the signal pending when skade starts, then sent once a commit is visible (each write waits
    a second for company, so many remain)."""
    import signal
    import subprocess
    import time

    name = "interop.coalesce_stopped"
    paths = []
    for i in range(12):
        path = inputs / f"coalesce_stopped_{i}.parquet"
        pq.write_table(events_table(i * 100, 100), path)
        paths.append(str(path))
    skade = [str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse), "ingest"]
    subprocess.run([*skade, "--table", name, "--create", paths[0]], check=True,
                   capture_output=True)
    before = catalog.load_table(name)
    files_before = table_data_files_on_disk(before)
    coalesce = [*skade, "--coalesce", "--writers", 1, "--max-delay-ms", 1000, name, *paths]

    def pending_sigint():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        os.kill(os.getpid(), signal.SIGINT)

    proc = subprocess.run(list(map(str, coalesce)), capture_output=True, text=True, timeout=300,
                          preexec_fn=pending_sigint)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "skade: SIGINT: stopping the ingest" in proc.stderr
    assert "SIGINT: ingest stopped; committed 0 rows of 0 writes" in proc.stderr, proc.stderr
    after = catalog.load_table(name)
    assert after.metadata.current_snapshot_id == before.metadata.current_snapshot_id
    assert table_data_files_on_disk(after) == files_before

    proc = subprocess.Popen(list(map(str, coalesce)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    while len(catalog.load_table(name).metadata.snapshots) == len(before.metadata.snapshots):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.terminate()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, (proc.returncode, out, err)
    match = re.search(r"SIGTERM: ingest stopped; committed (\d+) rows of \d+ writes; "
                      r"not \(wholly\) committed: ", err)
    assert match, err
    committed = int(match.group(1))
    after = catalog.load_table(name)
    assert 100 <= committed < 1200
    assert len(after.scan().to_arrow()) == 100 + committed
    assert table_data_files_on_disk(after) == sorted(data_files(after))


def test_coalesce_failure_reports_only_what_was_committed(ingest, inputs):
    """After a bad file, --coalesce's summary counts only the files committed, and the
    error names the bad file once before its reason."""
    paths = []
    for i in range(3):
        path = inputs / f"coalesce_mid_{i}.parquet"
        pq.write_table(pa.table({"id": pa.array(range(i * 100, (i + 1) * 100), pa.int64())}), path)
        paths.append(path)
    ingest("--table", "interop.coalesce_mid", "--create", paths[0])
    damaged = paths[1].read_bytes()  # its footer intact, its first page header not
    paths[1].write_bytes(damaged[:4] + b"\0" * 50 + damaged[54:])
    proc = ingest("--coalesce", "--writers", 1, "interop.coalesce_mid", *paths, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith("ingested 100 rows from 1 of 3 files into interop.coalesce_mid")
    assert proc.stderr.startswith(f"skade: {paths[1]}: "), proc.stderr
    assert f"{paths[1]}: {paths[1]}" not in proc.stderr, proc.stderr
    assert f"not (wholly) committed: {paths[1]}, {paths[2]}" in proc.stderr, proc.stderr


# --- Spark, through `skade serve` ---------------------------------------------


def spark_rows(spark, sql):
    return [tuple(row) for row in spark.sql(sql).collect()]


def test_spark_reads_what_skade_ingests(spark, catalog, ingest, inputs):
    source = events_table(0, 2000)
    pq.write_table(source, inputs / "spark.parquet")
    ingest("--table", "interop.spark_events", "--create", "--partition-by", "day(ts)",
           "--partition-by", "region", "--rows-per-file", 400, "--files-per-commit", 2,
           "--overlap", inputs / "spark.parquet")
    expected = sorted((row["id"], row["region"], row["name"], row["score"], row["ts"])
                      for row in source.to_pylist())
    got = spark_rows(spark, "SELECT id, region, name, score, ts FROM interop.spark_events ORDER BY id")
    assert got == expected
    snapshots = spark_rows(spark, "SELECT snapshot_id, operation FROM interop.spark_events.snapshots")
    assert len(snapshots) == len(catalog.load_table("interop.spark_events").metadata.snapshots)
    assert {op for _, op in snapshots} == {"append"}
    (files,) = spark_rows(spark, "SELECT count(*) FROM interop.spark_events.files")[0:1]
    assert files[0] == len(data_files(catalog.load_table("interop.spark_events")))
    # Spark's partition pruning over skade's manifests.
    assert spark_rows(spark, "SELECT count(*) FROM interop.spark_events "
                             "WHERE ts >= TIMESTAMP '2026-11-03 00:00:00' "
                             "AND ts < TIMESTAMP '2026-11-04 00:00:00' AND region = 'ap'") == [
        (sum(1 for row in source.to_pylist()
             if row["ts"].day == 3 and row["region"] == "ap"),)]

    # After a delete and a partition replace, Spark sees what PyIceberg sees.
    ingest("--table", "interop.spark_events", "--overwrite-where", "region=eu")
    patch = events_table(500000, 30, days=1)
    pq.write_table(patch, inputs / "spark_patch.parquet")
    ingest("--table", "interop.spark_events", "--replace-partitions", inputs / "spark_patch.parquet")
    spark.sql("REFRESH TABLE interop.spark_events")
    via_spark = spark_rows(spark, "SELECT id FROM interop.spark_events ORDER BY id")
    via_pyiceberg = sorted(catalog.load_table("interop.spark_events").scan().to_arrow()
                           .column("id").to_pylist())
    assert [row[0] for row in via_spark] == via_pyiceberg
    assert not any(row["region"] == "eu" and row["id"] < 500000
                   for row in catalog.load_table("interop.spark_events").scan().to_arrow().to_pylist())

    # Every type, nested ones included.
    # Spark has no TIME type: every other column.
    all_types = all_types_table(500, seed=11).drop_columns(["t"])
    pq.write_table(all_types, inputs / "spark_all.parquet")
    ingest("--table", "interop.spark_all_types", "--create", inputs / "spark_all.parquet")
    got = spark.sql("SELECT * FROM interop.spark_all_types ORDER BY id").toArrow()
    assert got.num_rows == 500
    for column in ["id", "name", "flag", "day", "ts", "amount", "big", "small", "code", "blob"]:
        assert got.column(column).to_pylist() == all_types.column(column).to_pylist(), column
    assert normalized(got.column("price").to_pylist()) == normalized(
        all_types.column("price").to_pylist())
    assert got.column("point").to_pylist() == all_types.column("point").to_pylist()
    assert got.column("tags").to_pylist() == all_types.column("tags").to_pylist()
