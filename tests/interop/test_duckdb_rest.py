"""DuckDB 1.5.5's Iceberg extension as a REST client of `skade serve` on a local warehouse,
tried as a new user would (ATTACH with the endpoint and no auth): CREATE SCHEMA, CREATE TABLE,
CREATE TABLE AS, INSERT, SELECT, DELETE and UPDATE. Every result is checked again with
PyIceberg reading the same table, and DuckDB reads tables PyIceberg wrote.

DuckDB runs in a subprocess (duckdb_client.py says why); each test has its own namespace on
the module's server.
"""
import datetime as dt
import pathlib

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.snapshots import Operation
from pyiceberg.transforms import DayTransform
from pyiceberg.types import DateType, DoubleType, LongType, NestedField, StringType

from duckdb_client import duckdb_rows, run_duckdb


@pytest.fixture(scope="module")
def catalog(module_server):
    return RestCatalog("skade", uri=module_server.uri)


def pyiceberg_rows(table, row_filter=None, columns=("id", "name")):
    scan = table.scan(row_filter=row_filter) if row_filter is not None else table.scan()
    return sorted(tuple(row[c] for c in columns) for row in scan.to_arrow().to_pylist())


def table_files(table):
    """Every file the table's current snapshot names: its manifest list, manifests, data and
    delete files."""
    snapshot = table.current_snapshot()
    files = {snapshot.manifest_list}
    for manifest in snapshot.manifests(table.io):
        files.add(manifest.manifest_path)
        for entry in manifest.fetch_manifest_entry(table.io):
            files.add(entry.data_file.file_path)
    return files


def local_path(location):
    return pathlib.Path(location.removeprefix("file://").removeprefix("file:"))


def test_create_table_as_select(module_server, catalog):
    # The regression: DuckDB stages the create, writes its first manifest into the new table's
    # metadata directory, then commits; that directory did not exist ("Cannot open file
    # …/metadata/…-m0.avro: No such file or directory").
    [_, _, summary, rows] = duckdb_rows(
        module_server.uri, "CREATE SCHEMA sk.ctas",
        "CREATE TABLE sk.ctas.t AS SELECT range AS id, 'n' || range AS name FROM range(100)",
        "SELECT count(*), sum(id), min(name), max(name) FROM sk.ctas.t",
        "SELECT id, name FROM sk.ctas.t WHERE id >= 95 ORDER BY id")
    assert summary == [[100, sum(range(100)), "n0", "n99"]]
    assert rows == [[i, f"n{i}"] for i in range(95, 100)]

    table = catalog.load_table("ctas.t")
    assert pyiceberg_rows(table) == [(i, f"n{i}") for i in range(100)]
    assert [s.summary.operation for s in table.snapshots()] == [Operation.APPEND]
    # Every file DuckDB wrote is inside the table's location, which skade chose.
    location = local_path(table.metadata.location)
    assert location == local_path(module_server.warehouse.as_uri()) / "ctas" / "t"
    files = table_files(table)
    assert all(local_path(f).is_relative_to(location) and local_path(f).is_file()
               for f in files), files


def test_create_insert_select(module_server, catalog):
    [_, _, _, _, everything, filtered, count] = duckdb_rows(
        module_server.uri, "CREATE SCHEMA sk.ins",
        "CREATE TABLE sk.ins.t (id BIGINT, name VARCHAR, price DOUBLE, day DATE)",
        "INSERT INTO sk.ins.t VALUES (1, 'a', 1.5, DATE '2026-11-01'), "
        "(2, 'b', NULL, DATE '2026-11-02'), (3, NULL, 3.25, NULL)",
        "INSERT INTO sk.ins.t SELECT range, 'r' || range, range / 4, DATE '2026-12-01' "
        "FROM range(10, 20)",
        "SELECT id, name, price, day FROM sk.ins.t ORDER BY id",
        "SELECT id FROM sk.ins.t WHERE price >= 3 AND day < DATE '2026-12-02' ORDER BY id",
        "SELECT count(*) FROM sk.ins.t")
    assert everything[:3] == [[1, "a", 1.5, "2026-11-01"], [2, "b", None, "2026-11-02"],
                              [3, None, 3.25, None]]
    assert [row[0] for row in everything[3:]] == list(range(10, 20))
    assert [row[0] for row in filtered] == list(range(12, 20))  # 3's day is null
    assert count == [[13]]

    table = catalog.load_table("ins.t")
    assert table.schema().find_field("id").field_type == LongType()
    assert table.schema().find_field("price").field_type == DoubleType()
    assert table.schema().find_field("day").field_type == DateType()
    assert [s.summary.operation for s in table.snapshots()] == [Operation.APPEND] * 2
    columns = ("id", "name", "price", "day")
    got = pyiceberg_rows(table, columns=columns)
    assert got == sorted(
        (row[0], row[1], row[2], None if row[3] is None else dt.date.fromisoformat(row[3]))
        for row in everything)
    assert [r[0] for r in pyiceberg_rows(table, GreaterThanOrEqual("price", 3.0))] == \
        [3, 12, 13, 14, 15, 16, 17, 18, 19]


def test_delete(module_server, catalog):
    [_, _, _, _, before, _, after] = duckdb_rows(
        module_server.uri, "CREATE SCHEMA sk.del",
        "CREATE TABLE sk.del.t (id BIGINT, name VARCHAR)",
        "INSERT INTO sk.del.t SELECT range, 'n' || range FROM range(20)",
        "INSERT INTO sk.del.t SELECT range, 'm' || range FROM range(20, 30)",
        "SELECT count(*) FROM sk.del.t",
        "DELETE FROM sk.del.t WHERE id % 3 = 0 OR id = 25",
        "SELECT id FROM sk.del.t ORDER BY id")
    assert before == [[30]]
    kept = [i for i in range(30) if i % 3 != 0 and i != 25]
    assert [row[0] for row in after] == kept

    table = catalog.load_table("del.t")
    assert [r[0] for r in pyiceberg_rows(table)] == kept
    assert table.snapshots()[-1].summary.operation == Operation.DELETE
    # DuckDB deletes rows with position delete files (merge-on-read), which PyIceberg applies.
    assert int(table.current_snapshot().summary["total-position-deletes"]) == 30 - len(kept)
    # The snapshot before the delete still has every row.
    previous = table.snapshots()[-2].snapshot_id
    assert len(table.scan(snapshot_id=previous).to_arrow()) == 30


def test_update(module_server, catalog):
    [_, _, _, _, rows] = duckdb_rows(
        module_server.uri, "CREATE SCHEMA sk.upd",
        "CREATE TABLE sk.upd.t (id BIGINT, name VARCHAR)",
        "INSERT INTO sk.upd.t SELECT range, 'n' || range FROM range(10)",
        "UPDATE sk.upd.t SET name = 'changed ' || id WHERE id IN (2, 7)",
        "SELECT id, name FROM sk.upd.t ORDER BY id")
    expected = [(i, f"changed {i}" if i in (2, 7) else f"n{i}") for i in range(10)]
    assert [tuple(row) for row in rows] == expected

    table = catalog.load_table("upd.t")
    assert pyiceberg_rows(table) == expected
    assert pyiceberg_rows(table, EqualTo("name", "changed 7")) == [(7, "changed 7")]


def test_duckdb_reads_what_pyiceberg_wrote(module_server, catalog):
    catalog.create_namespace("py")
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType(), required=False),
                    NestedField(3, "day", DateType(), required=False))
    spec = PartitionSpec(PartitionField(source_id=3, field_id=1000, transform=DayTransform(),
                                        name="day_day"))
    table = catalog.create_table("py.t", schema, partition_spec=spec)
    arrow_schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                              pa.field("name", pa.string()), pa.field("day", pa.date32())])

    def batch(ids, day):
        return pa.table({"id": ids, "name": [f"p{i}" for i in ids], "day": [day] * len(ids)},
                        schema=arrow_schema)

    table.append(batch(list(range(0, 10)), dt.date(2026, 11, 1)))
    table.append(batch(list(range(10, 20)), dt.date(2026, 11, 2)))
    table.delete(EqualTo("id", 4))  # copy-on-write: the file is rewritten without the row
    with table.update_schema() as update:
        update.add_column("note", StringType())
    table = catalog.load_table("py.t")
    expected = [(i, f"p{i}") for i in range(20) if i != 4]
    assert pyiceberg_rows(table) == expected

    [rows, one_day, notes] = duckdb_rows(
        module_server.uri, "SELECT id, name FROM sk.py.t ORDER BY id",
        "SELECT count(*) FROM sk.py.t WHERE day = DATE '2026-11-02'",
        "SELECT count(*) FROM sk.py.t WHERE note IS NULL")
    assert [tuple(row) for row in rows] == expected
    assert one_day == [[10]]
    assert notes == [[19]]

    # And DuckDB writes to it after PyIceberg: both see the same table.
    [_, rows] = duckdb_rows(
        module_server.uri,
        "INSERT INTO sk.py.t VALUES (100, 'd', DATE '2026-11-03', 'from duckdb')",
        "SELECT id, note FROM sk.py.t WHERE id >= 19 ORDER BY id")
    assert rows == [[19, None], [100, "from duckdb"]]
    table = catalog.load_table("py.t")
    assert pyiceberg_rows(table, columns=("id", "note"))[-2:] == [(19, None), (100, "from duckdb")]


def test_duckdb_version_and_errors_from_the_catalog(module_server):
    # The pinned DuckDB, and the catalog's errors reach the user as errors, not crashes.
    version, results = run_duckdb(
        module_server.uri, "SELECT * FROM sk.nowhere.t",
        "CREATE SCHEMA sk.twice", "CREATE SCHEMA sk.twice",
        "CREATE TABLE sk.twice.t (id BIGINT)", "CREATE TABLE sk.twice.t (id BIGINT)")
    assert version == "1.5.5"
    assert "does not exist" in results[0]["error"], results[0]
    assert "error" not in results[1] and "error" not in results[3]
    assert "already exists" in results[2]["error"], results[2]
    assert "already exists" in results[4]["error"], results[4]
