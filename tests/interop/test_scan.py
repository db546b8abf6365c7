"""`skade scan` against the real readers: every result is compared with PyIceberg's or Spark's
scan of the same table and snapshot — filters that prune, schema evolution, time travel, and the
row-level deletes Spark writes (DELETE FROM, UPDATE, MERGE INTO in merge-on-read mode: position
deletes in v2, deletion vectors in v3) and skade's own upserts write (equality deletes)."""
import datetime as dt
import json
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestampType


def skade_scan(bin_dir, server, table, *args, tmp_path, check=True):
    """Rows of `skade scan TABLE ARGS…` (through a Parquet file), as sorted tuples."""
    out = tmp_path / f"scan-{abs(hash((table,) + args))}.parquet"
    out.unlink(missing_ok=True)  # scan refuses to replace a file without --force
    proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(server.warehouse), "scan",
                           table, *args, "--format", "parquet", "--output", str(out)],
                          capture_output=True, text=True, timeout=300)
    if not check:
        return proc
    assert proc.returncode == 0, proc.stderr
    return sorted_rows(pq.read_table(out))


def sorted_rows(table):
    # By text: rows hold None and NaN, which do not order against numbers.
    return sorted((tuple(row.values()) for row in table.to_pylist()), key=repr)


def spark_rows(spark, sql):
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


@pytest.fixture(scope="module")
def catalog(module_server):
    return RestCatalog("skade", uri=module_server.uri)


@pytest.fixture(scope="module")
def events(catalog):
    """A table partitioned by region and day(ts), appended in three snapshots by PyIceberg."""
    catalog.create_namespace("scan")
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "region", StringType()),
                    NestedField(3, "amount", DoubleType()),
                    NestedField(4, "ts", TimestampType()))
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region"),
                         PartitionField(4, 1001, DayTransform(), "ts_day"))
    table = catalog.create_table("scan.events", schema=schema, partition_spec=spec)
    arrow_schema = table.schema().as_arrow()
    base = dt.datetime(2026, 11, 1)
    snapshots = []
    for batch in range(3):
        rows = [{"id": batch * 100 + i,
                 "region": [None, "eu", "us", "ap"][i % 4] if i % 7 else "eu",
                 "amount": float("nan") if i == 13 else (None if i % 11 == 0 else i * 1.5),
                 "ts": base + dt.timedelta(days=batch, hours=i)} for i in range(40)]
        table.append(pa.Table.from_pylist(rows, schema=arrow_schema))
        table = catalog.load_table("scan.events")
        snapshots.append(table.current_snapshot().snapshot_id)
    return table, snapshots


FILTERS = [
    # (skade --where, PyIceberg row_filter)
    ("region = 'eu'", "region = 'eu'"),
    ("region = 'eu' and id >= 120", "region = 'eu' and id >= 120"),
    ("id in (3, 104, 239, 999)", "id in (3, 104, 239, 999)"),
    ("region is null or amount < 3", "region is null or amount < 3"),
    ("not (region = 'us') and amount is not null", "not region = 'us' and amount is not null"),
    ("amount is nan", "amount is nan"),
    ("ts >= '2026-11-02T05:00:00' and ts < '2026-11-03T01:00:00'",
     "ts >= '2026-11-02T05:00:00' and ts < '2026-11-03T01:00:00'"),
    ("region starts with 'a'", "region like 'a%'"),
    ("id > 1000", "id > 1000"),
]


@pytest.mark.parametrize("where,pyiceberg_filter", FILTERS)
def test_scan_with_filter_matches_pyiceberg(bin_dir, module_server, events, tmp_path, where,
                                            pyiceberg_filter):
    table, _ = events
    mine = skade_scan(bin_dir, module_server, "scan.events", "--where", where, tmp_path=tmp_path)
    theirs = sorted_rows(table.scan(row_filter=pyiceberg_filter).to_arrow())
    # NaN never equals NaN: compare it as text.
    assert [repr(r) for r in mine] == [repr(r) for r in theirs]


def test_select_limit_and_formats(bin_dir, module_server, events, tmp_path):
    table, _ = events
    mine = skade_scan(bin_dir, module_server, "scan.events", "--select", "amount,id", "--where",
                      "region = 'us'", tmp_path=tmp_path)
    theirs = sorted_rows(table.scan(row_filter="region = 'us'",
                                    selected_fields=("amount", "id")).to_arrow().select(["amount", "id"]))
    assert mine == theirs
    proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
                           "scan", "scan.events", "--select", "id", "--limit", "5", "--format",
                           "jsonl"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 5 and all(set(line) == {"id"} for line in lines)
    proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
                           "scan", "scan.events", "--where", "id < 3", "--format", "csv"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].replace('"', "") == "id,region,amount,ts"
    assert len(proc.stdout.splitlines()) == 1 + 3


def test_plan_reports_pruning(bin_dir, module_server, events):
    proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
                           "scan", "scan.events", "--where", "region = 'ap' and id >= 200",
                           "--plan"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "pruned by partition" in out and "to read" in out
    tasks = [line for line in out.splitlines() if line.startswith("  ")]
    # Region ap of the third append only: its 40 hours span two day partitions.
    assert len(tasks) == 2 and all("region=ap" in task for task in tasks), out


def test_time_travel_matches_pyiceberg(bin_dir, module_server, events, tmp_path):
    table, snapshots = events
    for snapshot in snapshots[:2]:
        mine = skade_scan(bin_dir, module_server, "scan.events", "--snapshot", str(snapshot),
                          tmp_path=tmp_path)
        theirs = sorted_rows(table.scan(snapshot_id=snapshot).to_arrow())
        assert [repr(r) for r in mine] == [repr(r) for r in theirs]
    first = table.snapshot_by_id(snapshots[0])
    mine = skade_scan(bin_dir, module_server, "scan.events", "--as-of", str(first.timestamp_ms),
                      tmp_path=tmp_path)
    assert len(mine) == 40
    proc = skade_scan(bin_dir, module_server, "scan.events", "--snapshot", "12345",
                      tmp_path=tmp_path, check=False)
    assert proc.returncode == 1 and "12345" in proc.stderr


def test_incremental_scan_matches_pyiceberg(bin_dir, module_server, events, tmp_path):
    """--from-snapshot reads what PyIceberg's IncrementalAppendScan reads: the rows appended
    after the start, up to --snapshot (the current snapshot by default)."""
    table, snapshots = events
    for start, end in [(snapshots[0], snapshots[2]), (snapshots[0], snapshots[1]),
                       (snapshots[1], None)]:
        args = ["--from-snapshot", str(start)] + (["--snapshot", str(end)] if end else [])
        mine = skade_scan(bin_dir, module_server, "scan.events", *args, "--where",
                          "region = 'eu'", tmp_path=tmp_path)
        theirs = sorted_rows(table.incremental_append_scan(
            from_snapshot_id_exclusive=start, to_snapshot_id_inclusive=end,
            row_filter="region = 'eu'").to_arrow())
        assert [repr(r) for r in mine] == [repr(r) for r in theirs] and mine, (start, end)
    assert skade_scan(bin_dir, module_server, "scan.events", "--from-snapshot",
                      str(snapshots[2]), tmp_path=tmp_path) == []
    proc = skade_scan(bin_dir, module_server, "scan.events", "--from-snapshot", str(snapshots[2]),
                      "--snapshot", str(snapshots[0]), tmp_path=tmp_path, check=False)
    assert proc.returncode != 0 and "is not an ancestor of end snapshot" in proc.stderr


def test_schema_evolution_matches_pyiceberg(bin_dir, module_server, catalog, tmp_path):
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType()),
                    NestedField(3, "score", DoubleType()))
    table = catalog.create_table("scan.evolving", schema=schema)
    table.append(pa.Table.from_pylist([{"id": i, "name": f"n{i}", "score": i / 2} for i in range(5)],
                                      schema=table.schema().as_arrow()))
    with table.update_schema() as update:
        update.rename_column("name", "label")
        update.add_column("extra", StringType())
        update.delete_column("score")
    table = catalog.load_table("scan.evolving")
    table.append(pa.Table.from_pylist([{"id": 10, "label": "new", "extra": "x"}],
                                      schema=table.schema().as_arrow()))
    table = catalog.load_table("scan.evolving")
    mine = skade_scan(bin_dir, module_server, "scan.evolving", tmp_path=tmp_path)
    assert mine == sorted_rows(table.scan().to_arrow())
    assert (0, "n0", None) in mine and (10, "new", "x") in mine
    mine = skade_scan(bin_dir, module_server, "scan.evolving", "--where", "label = 'n3'",
                      tmp_path=tmp_path)
    assert mine == [(3, "n3", None)]


@pytest.mark.parametrize("format_version", [2, 3])
def test_spark_merge_on_read_deletes_match_spark(bin_dir, module_server, spark, tmp_path,
                                                 format_version):
    name = f"scan.mor_v{format_version}"
    spark.sql(f"""CREATE TABLE {name} (id BIGINT, customer STRING, amount DOUBLE)
                  USING iceberg PARTITIONED BY (bucket(2, id))
                  TBLPROPERTIES ('format-version'='{format_version}',
                                 'write.delete.mode'='merge-on-read',
                                 'write.update.mode'='merge-on-read',
                                 'write.merge.mode'='merge-on-read')""")
    spark.sql(f"INSERT INTO {name} SELECT id, concat('c', id), id * 1.0 FROM range(0, 200)")
    spark.sql(f"DELETE FROM {name} WHERE id % 7 = 0")
    spark.sql(f"UPDATE {name} SET amount = -1 WHERE id % 10 = 3")
    spark.sql("""CREATE OR REPLACE TEMPORARY VIEW mor_changes AS
                 SELECT * FROM VALUES (5L, 'five', 55.0), (500L, 'new', 5.0) AS t(id, customer, amount)""")
    spark.sql(f"""MERGE INTO {name} t USING mor_changes c ON t.id = c.id
                  WHEN MATCHED THEN UPDATE SET t.amount = c.amount, t.customer = c.customer
                  WHEN NOT MATCHED THEN INSERT *""")
    deletes = spark_rows(spark, f"SELECT content, file_format FROM {name}.delete_files")
    assert deletes, "Spark wrote no delete files: the test would prove nothing"
    if format_version == 3:
        assert any(fmt == "PUFFIN" for _, fmt in deletes)
    expected = spark_rows(spark, f"SELECT * FROM {name}")
    assert skade_scan(bin_dir, module_server, name, tmp_path=tmp_path) == expected
    expected = spark_rows(spark, f"SELECT * FROM {name} WHERE amount < 0 OR id = 500")
    assert skade_scan(bin_dir, module_server, name, "--where", "amount < 0 or id = 500",
                      tmp_path=tmp_path) == expected


def test_equality_deletes_of_skade_upserts_match_spark(bin_dir, module_server, spark, tmp_path):
    spark.sql("""CREATE TABLE scan.upserted (id BIGINT NOT NULL, v STRING)
                 USING iceberg TBLPROPERTIES ('format-version'='2')""")
    lines = "".join(json.dumps({"id": i % 30, "v": f"v{i}"}) + "\n" for i in range(100))
    proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
                           "ingest", "--stream", "--batch-rows", "10", "--upsert-key", "id",
                           "scan.upserted"], input=lines, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    spark.sql("REFRESH TABLE scan.upserted")  # skade committed behind Spark's cached table
    deletes = spark_rows(spark, "SELECT content FROM scan.upserted.delete_files")
    assert (2,) in deletes, "no equality deletes: the test would prove nothing"
    expected = spark_rows(spark, "SELECT * FROM scan.upserted")
    assert len(expected) == 30
    assert skade_scan(bin_dir, module_server, "scan.upserted", tmp_path=tmp_path) == expected


def test_bad_input_is_a_clear_error(bin_dir, module_server, events, tmp_path):
    for args, message in ((("--where", "nope = 1"), "nope"),
                          (("--where", "id >"), "expected"),
                          (("--select", "id,missing"), "missing"),
                          (("--ref", "nobranch"), "nobranch")):
        proc = skade_scan(bin_dir, module_server, "scan.events", *args, tmp_path=tmp_path,
                          check=False)
        assert proc.returncode == 1, proc.stdout
        assert message in proc.stderr and proc.stderr.startswith("skade: ")


def test_page_index_prunes_pages_of_a_pyarrow_file(bin_dir, module_server, catalog, tmp_path):
    """A file pyarrow wrote with its page index and small pages, appended as it is: `skade scan`
    returns PyIceberg's rows and says that it left pages undecoded."""
    import re
    from urllib.parse import urlparse

    from pyiceberg.io.pyarrow import parquet_file_to_data_file

    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType()),
                    NestedField(3, "score", DoubleType()))
    table = catalog.create_table("scan.paged", schema=schema)
    rows = [{"id": i,
             "name": None if i % 13 == 0 else f"name{i:05d}",
             "score": float("nan") if i % 101 == 0 else (i * 7 % 1000) / 10} for i in range(6000)]
    # The table's Arrow schema carries the field ids, so statistics tie to columns.
    data = pa.Table.from_pylist(rows, schema=table.schema().as_arrow())
    path = urlparse(table.location()).path + "/data/paged.parquet"
    pq.write_table(data, path, write_page_index=True, data_page_size=512, row_group_size=2500)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).has_offset_index
    with table.transaction() as transaction:
        with transaction.update_snapshot().fast_append() as append:
            append.append_data_file(parquet_file_to_data_file(table.io, table.metadata, path))
    table = catalog.load_table("scan.paged")

    for where, selective in (("id >= 1200 and id < 1300", True),
                             ("id < 40 or id > 5950", True),
                             ("name = 'name03333'", True),
                             ("name starts with 'name045'", True),
                             ("score < 5 and id < 3000", False),
                             ("name is null and id > 4000", False)):
        out = tmp_path / f"paged-{abs(hash(where))}.parquet"
        proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
                               "scan", "scan.paged", "--where", where, "--stats", "--format",
                               "parquet", "--output", str(out)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        mine = sorted_rows(pq.read_table(out))
        theirs = sorted_rows(table.scan(row_filter=where.replace("starts with 'name045'",
                                                                 "like 'name045%'")).to_arrow())
        assert [repr(r) for r in mine] == [repr(r) for r in theirs], where
        stats = re.search(r"page index (\d+) data pages and (\d+) rows not decoded", proc.stderr)
        assert stats, proc.stderr
        if selective:
            # Of the 2500 rows of each row group the row-group statistics leave.
            assert int(stats.group(1)) > 0 and int(stats.group(2)) > 1000, (where, proc.stderr)


def test_files_with_other_arrow_spellings_match_pyiceberg(bin_dir, module_server, catalog,
                                                          tmp_path):
    """Regression: a file added as pyarrow and pandas write it, with a categorical (dictionary)
    string, a string_view and a large_list, failed to scan ("…has Arrow type dictionary<…>,
    which cannot be read as string"); PyIceberg reads it."""
    from urllib.parse import urlparse

    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                     "cat": pa.array(["x", "y", None]).dictionary_encode(),
                     "view": pa.array(["a", None, "c"], pa.string_view()),
                     "nums": pa.array([[1, 2], None, []], pa.large_list(pa.int32()))})
    catalog.create_namespace_if_not_exists("scan")
    table = catalog.create_table("scan.spellings", schema=data.schema)
    path = urlparse(table.location()).path + "/data/spellings.parquet"
    pq.write_table(data, path)
    assert pq.read_schema(path).field("cat").type == pa.dictionary(pa.int32(), pa.string())
    table.add_files([path])
    table = catalog.load_table("scan.spellings")
    theirs = sorted_rows(table.scan().to_arrow())
    assert theirs == [(1, "x", "a", [1, 2]), (2, "y", None, None), (3, None, "c", [])]
    assert skade_scan(bin_dir, module_server, "scan.spellings", tmp_path=tmp_path) == theirs
    assert skade_scan(bin_dir, module_server, "scan.spellings", "--where", "cat = 'y'",
                      tmp_path=tmp_path) == [(2, "y", None, None)]


def test_text_formats_write_uuid_and_binary_as_text(bin_dir, module_server, catalog):
    """Regression: jsonl and table wrote a uuid as Arrow's "[\\n  1234…\\n]", the table wrote
    binary as raw bytes (lines broken, not UTF-8), and CSV failed with "Unsupported
    Type:extension<arrow.uuid>" even for no rows. Every text format now writes a uuid as
    PyIceberg shows it and binary as base64 (as jsonl always did), the table one line a row."""
    import base64
    import csv
    import io
    import uuid

    from pyiceberg.types import BinaryType, FixedType, UUIDType

    catalog.create_namespace_if_not_exists("scan")
    table = catalog.create_table("scan.text_types", schema=Schema(
        NestedField(1, "id", LongType(), required=True), NestedField(2, "u", UUIDType()),
        NestedField(3, "bin", BinaryType()), NestedField(4, "fx", FixedType(3)),
        NestedField(5, "s", StringType())))

    def scan(fmt):
        proc = subprocess.run([str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
                               "scan", "scan.text_types", "--format", fmt],
                              capture_output=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.decode("utf-8")  # strict: no raw bytes

    assert list(csv.reader(io.StringIO(scan("csv")))) == [["id", "u", "bin", "fx", "s"]]

    data = pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "u": pa.array([uuid.UUID("12345678-1234-5678-1234-567812345678").bytes, None,
                       uuid.UUID(int=0).bytes], pa.binary(16)),
        "bin": pa.array([b"\x00\xff\n\"", None, b""], pa.binary()),
        "fx": pa.array([b"abc", b"\x00\x01\x02", None], pa.binary(3)),
        "s": ["a\nb", None, "tab\there"]})
    table.append(data.cast(pa.schema([pa.field("id", pa.int64(), nullable=False)] +
                                     list(data.schema)[1:])))
    table = catalog.load_table("scan.text_types")

    def text(value):
        if isinstance(value, uuid.UUID):
            return str(value)
        if isinstance(value, bytes):
            return base64.b64encode(value).decode()
        return value

    expected = [{k: text(v) for k, v in row.items()}
                for row in sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"])]
    assert expected[0]["u"] == "12345678-1234-5678-1234-567812345678"

    jsonl = sorted((json.loads(line) for line in scan("jsonl").splitlines()),
                   key=lambda r: r["id"])
    assert jsonl == expected

    csv_rows = sorted(csv.DictReader(io.StringIO(scan("csv"), newline="")),
                      key=lambda r: int(r["id"]))
    assert csv_rows == [{k: "" if v is None else str(v) for k, v in row.items()}
                        for row in expected]

    lines = scan("table").splitlines()
    assert len(lines) == 2 + 3 + 1 and lines[-1] == "(3 rows)", lines
    cells = sorted(([cell.strip() for cell in line.split(" | ")] for line in lines[2:5]),
                   key=lambda cells: int(cells[0]))
    assert cells == [["NULL" if v is None else str(v).replace("\n", "\\n").replace("\t", "\\t")
                      for v in row.values()] for row in expected]
