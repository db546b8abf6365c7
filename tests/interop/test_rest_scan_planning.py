"""Server-side scan planning through PyIceberg 0.12's real client (catalog property
scan-planning-mode=server: PyIceberg sends planTableScan and fetches plan tasks): its plan
and its to_arrow() are compared with a client-side PyIceberg scan of the same table and
snapshot — with filters, column selection, time travel, deletes (DuckDB's and Spark's
merge-on-read position deletes) and the paged path (plan tasks).

The server answers plans of at most TASKS_PER_RESPONSE tasks in full and pages larger ones.

Incremental append scans (start-snapshot-id, end-snapshot-id) and use-snapshot-schema are sent
with requests: PyIceberg 0.12's planning client sends neither (its IncrementalAppendScan always
plans client-side, and a time-travel scan sends use-snapshot-schema false). skade's incremental
plans are compared with PyIceberg's client-side IncrementalAppendScan and with the files each
append added by PyIceberg's table.inspect.entries().
"""
import datetime as dt

import pyarrow as pa
import pytest
import requests
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.expressions import (
    And,
    EqualTo,
    GreaterThanOrEqual,
    In,
    IsNull,
    LessThan,
    Not,
    NotEqualTo,
    Or,
    StartsWith,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.table.snapshots import Operation
from pyiceberg.types import DateType, DoubleType, LongType, NestedField, StringType

from conftest import SkadeServer, spark_session
from duckdb_client import duckdb_rows

TASKS_PER_RESPONSE = 4

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "category", StringType(), required=False),
    NestedField(3, "price", DoubleType(), required=False),
    NestedField(4, "day", DateType(), required=False),
)
SPEC = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                    name="category"))
ARROW_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("category", pa.string()),
    pa.field("price", pa.float64()),
    pa.field("day", pa.date32()),
])
CATEGORIES = ["apple", "banana", "cherry"]


@pytest.fixture(scope="module")
def server(bin_dir, tmp_path_factory):
    server = SkadeServer(bin_dir, tmp_path_factory.mktemp("planning") / "warehouse",
                         extra_args=["--scan-tasks-per-response", str(TASKS_PER_RESPONSE)])
    yield server
    assert server.stop() == 0, f"server did not shut down cleanly:\n{server.log_path.read_text()}"


@pytest.fixture(scope="module")
def server_side(server):
    catalog = RestCatalog("skade", uri=server.uri, **{"scan-planning-mode": "server"})
    assert catalog.supports_server_side_planning()
    return catalog


@pytest.fixture(scope="module")
def client_side(server):
    catalog = RestCatalog("skade-client", uri=server.uri)
    assert not catalog.supports_server_side_planning()
    return catalog


def batch(start, count, category):
    base = dt.date(2026, 11, 1)
    return pa.table({
        "id": list(range(start, start + count)),
        "category": [None if category is None else category] * count,
        "price": [None if i % 7 == 0 else i * 1.5 for i in range(start, start + count)],
        "day": [base + dt.timedelta(days=i % 30) for i in range(start, start + count)],
    }, schema=ARROW_SCHEMA)


def plan_of(table, **scan_args):
    """What a plan says, comparable across the two clients: per task the data file's path,
    record count and format, and its delete files' paths."""
    return sorted(
        (task.file.file_path, task.file.record_count, str(task.file.file_format),
         tuple(sorted(d.file_path for d in task.delete_files)))
        for task in table.scan(**scan_args).plan_files())


def rows_of(table, **scan_args):
    arrow = table.scan(**scan_args).to_arrow()
    return sorted(arrow.to_pylist(), key=lambda row: tuple(str(v) for v in row.values()))


def assert_same_scan(server_side, client_side, name, **scan_args):
    remote = server_side.load_table(name)
    local = client_side.load_table(name)
    assert plan_of(remote, **scan_args) == plan_of(local, **scan_args), scan_args
    assert rows_of(remote, **scan_args) == rows_of(local, **scan_args), scan_args
    return plan_of(remote, **scan_args)


FILTERS = [
    EqualTo("category", "banana"),
    NotEqualTo("category", "banana"),
    GreaterThanOrEqual("id", 250),
    And(GreaterThanOrEqual("id", 100), LessThan("id", 130)),
    Or(EqualTo("category", "cherry"), LessThan("price", 10.0)),
    In("category", {"apple", "cherry"}),
    IsNull("price"),
    IsNull("category"),
    Not(StartsWith("category", "ba")),
    GreaterThanOrEqual("day", "2026-11-20"),
]


@pytest.fixture(scope="module")
def fruit(server_side):
    """Eleven data files over four partitions, three snapshots."""
    server_side.create_namespace("shop")
    table = server_side.create_table("shop.fruit", SCHEMA, partition_spec=SPEC)
    for i, category in enumerate(CATEGORIES * 3):
        table.append(batch(40 * i, 40, category))
    first = table.current_snapshot().snapshot_id
    table.append(batch(1000, 10, "date"))
    table.append(batch(2000, 5, "apple"))
    return {"name": "shop.fruit", "first_snapshot": first}


def test_the_server_plans_what_the_client_plans(server_side, client_side, fruit):
    plan = assert_same_scan(server_side, client_side, fruit["name"])
    assert len(plan) == 11  # more than TASKS_PER_RESPONSE: paged through plan tasks


@pytest.mark.parametrize("row_filter", FILTERS, ids=repr)
def test_filters(server_side, client_side, fruit, row_filter):
    assert_same_scan(server_side, client_side, fruit["name"], row_filter=row_filter)


def test_filters_prune_on_the_server(server_side, fruit):
    table = server_side.load_table(fruit["name"])
    assert len(plan_of(table, row_filter=EqualTo("category", "banana"))) == 3
    assert len(plan_of(table, row_filter=GreaterThanOrEqual("id", 2000))) == 1
    assert plan_of(table, row_filter=EqualTo("id", -1)) == []


def test_selected_columns_and_case_insensitive_names(server_side, client_side, fruit):
    assert_same_scan(server_side, client_side, fruit["name"], selected_fields=("id", "price"),
                     row_filter=LessThan("id", 50))
    assert_same_scan(server_side, client_side, fruit["name"], row_filter="CATEGORY = 'apple'",
                     case_sensitive=False)


def test_time_travel(server_side, client_side, fruit):
    plan = assert_same_scan(server_side, client_side, fruit["name"],
                            snapshot_id=fruit["first_snapshot"])
    assert len(plan) == 9


def test_paged_plan_over_raw_http(server, fruit):
    """The paged path as the spec has it: plan-id, plan-tasks, fetchPlanningResult,
    fetchScanTasks and cancelPlanning, with the spec's errors once a plan is gone."""
    base = f"{server.uri}/v1/namespaces/shop/tables/fruit"
    planned = requests.post(f"{base}/plan", json={}).json()
    assert planned["status"] == "completed"
    plan_id, plan_tasks = planned["plan-id"], planned["plan-tasks"]
    assert len(plan_tasks) == 3  # 11 tasks, 4 per plan task

    pending = requests.get(f"{base}/plan/{plan_id}").json()
    assert pending == {"status": "completed", "plan-tasks": plan_tasks}
    page = requests.post(f"{base}/tasks", json={"plan-task": plan_tasks[0]})
    assert page.status_code == 200
    assert len(page.json()["file-scan-tasks"]) == TASKS_PER_RESPONSE

    cancelled = requests.delete(f"{base}/plan/{plan_id}")
    assert cancelled.status_code == 204
    gone = requests.post(f"{base}/tasks", json={"plan-task": plan_tasks[1]})
    assert gone.status_code == 404
    assert gone.json()["error"]["type"] == "NoSuchPlanTaskException"
    gone = requests.get(f"{base}/plan/{plan_id}")
    assert gone.status_code == 404
    assert gone.json()["error"]["type"] == "NoSuchPlanIdException"

    bad = requests.post(f"{base}/plan", json={"filter": {"type": "eq", "term": "nope", "value": 1}})
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "BadRequestException"
    config = requests.get(f"{server.uri}/v1/config").json()
    assert "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan" in config["endpoints"]


@pytest.fixture(scope="module")
def null_partition(server_side):
    table = server_side.create_table("shop.nulls", SCHEMA, partition_spec=SPEC)
    table.append(batch(0, 5, "apple"))
    table.append(pa.concat_tables([batch(5, 5, "apple"), batch(10, 5, None)]))
    return "shop.nulls"


def test_a_null_partition_value_is_json_null(server, null_partition):
    planned = requests.post(f"{server.uri}/v1/namespaces/shop/tables/nulls/plan", json={}).json()
    partitions = sorted(str(task["data-file"]["partition"]) for task in planned["file-scan-tasks"])
    assert partitions == ["['apple']", "['apple']", "[None]"]


@pytest.mark.xfail(strict=True, raises=ValueError,
                   reason="PyIceberg 0.12's RESTContentFile.partition is list[PrimitiveTypeValue] "
                          "and rejects the JSON null that stands for a null partition value (as "
                          "Iceberg Java writes it)")
def test_pyiceberg_reads_a_null_partition_value(server_side, client_side, null_partition):
    assert_same_scan(server_side, client_side, null_partition)


def test_position_deletes_written_by_duckdb(server, server_side, client_side):
    duckdb_rows(server.uri, "CREATE SCHEMA sk.duck",
                "CREATE TABLE sk.duck.t (id BIGINT, name VARCHAR)",
                "INSERT INTO sk.duck.t SELECT range, 'n' || range FROM range(50)",
                "INSERT INTO sk.duck.t SELECT range, 'm' || range FROM range(50, 80)",
                "DELETE FROM sk.duck.t WHERE id % 4 = 0",
                "UPDATE sk.duck.t SET name = 'changed' WHERE id = 51")
    plan = assert_same_scan(server_side, client_side, "duck.t")
    assert any(deletes for *_, deletes in plan), plan
    rows = rows_of(server_side.load_table("duck.t"))
    assert [r["id"] for r in sorted(rows, key=lambda r: r["id"])] == \
        [i for i in range(80) if i % 4 != 0]
    assert {r["name"] for r in rows if r["id"] == 51} == {"changed"}
    assert_same_scan(server_side, client_side, "duck.t", row_filter=GreaterThanOrEqual("id", 60))


def test_merge_on_read_deletes_written_by_spark(server, server_side, client_side):
    spark = spark_session(server.uri, "skade-scan-planning")
    try:
        spark.sql("CREATE NAMESPACE IF NOT EXISTS sparkns")
        spark.sql("""CREATE TABLE sparkns.orders (id BIGINT, region STRING, amount DOUBLE)
                     USING iceberg PARTITIONED BY (region)
                     TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',
                                    'write.update.mode'='merge-on-read',
                                    'write.merge.mode'='merge-on-read')""")
        spark.sql("""INSERT INTO sparkns.orders VALUES
                     (1, 'eu', 10.0), (2, 'eu', 20.0), (3, 'us', 30.0), (4, 'us', 40.0),
                     (5, 'apac', 50.0), (6, 'apac', 60.0)""")
        spark.sql("DELETE FROM sparkns.orders WHERE id IN (2, 5)")
        spark.sql("""MERGE INTO sparkns.orders t
                     USING (SELECT 3 AS id, 'us' AS region, 33.0 AS amount UNION ALL
                            SELECT 7, 'eu', 70.0) s
                     ON t.id = s.id
                     WHEN MATCHED THEN UPDATE SET t.amount = s.amount
                     WHEN NOT MATCHED THEN INSERT *""")
        expected = sorted(tuple(r) for r in spark.sql(
            "SELECT id, region, amount FROM sparkns.orders").collect())
    finally:
        spark.stop()
    plan = assert_same_scan(server_side, client_side, "sparkns.orders")
    assert any(deletes for *_, deletes in plan), plan
    got = sorted((r["id"], r["region"], r["amount"])
                 for r in rows_of(server_side.load_table("sparkns.orders")))
    assert got == expected
    assert_same_scan(server_side, client_side, "sparkns.orders", row_filter=EqualTo("region", "us"))


def planned_files(server, name, body):
    """The (path, record count) of every task of a planTableScan answer, paged or not, and
    the answer's delete files."""
    namespace, table = name.split(".")
    base = f"{server.uri}/v1/namespaces/{namespace}/tables/{table}"
    response = requests.post(f"{base}/plan", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["status"] == "completed"
    pages = [answer]
    for plan_task in answer.get("plan-tasks", []):
        page = requests.post(f"{base}/tasks", json={"plan-task": plan_task})
        assert page.status_code == 200, page.text
        pages.append(page.json())
    files, deletes = [], []
    for page in pages:
        files += [(t["data-file"]["file-path"], t["data-file"]["record-count"])
                  for t in page.get("file-scan-tasks", [])]
        deletes += page.get("delete-files", [])
    return sorted(files), deletes


def incremental_body(start, end, **more):
    return {"start-snapshot-id": start, "end-snapshot-id": end, **more}


def client_incremental(table, start, end, **scan_args):
    scan = table.incremental_append_scan(from_snapshot_id_exclusive=start,
                                         to_snapshot_id_inclusive=end, **scan_args)
    return sorted((task.file.file_path, task.file.record_count) for task in scan.plan_files())


def history(table):
    """The snapshot ids of the current branch, oldest first."""
    ids, snapshot = [], table.current_snapshot()
    while snapshot is not None:
        ids.append(snapshot.snapshot_id)
        parent = snapshot.parent_snapshot_id
        snapshot = table.snapshot_by_id(parent) if parent is not None else None
    return ids[::-1]


def test_incremental_ranges_match_pyiceberg(server, client_side, fruit):
    """Every (start, end] range of the fruit table's eleven appends, paged when large."""
    table = client_side.load_table(fruit["name"])
    ids = history(table)
    assert len(ids) == 11
    for i, start in enumerate(ids):
        for end in ids[i + 1:]:
            files, deletes = planned_files(server, fruit["name"], incremental_body(start, end))
            assert files == client_incremental(table, start, end), (start, end)
            assert deletes == []
        # (start, start] is empty (PyIceberg's and Java's APIs refuse it instead).
        assert planned_files(server, fruit["name"], incremental_body(start, start)) == ([], [])


def test_incremental_range_is_the_files_each_append_added(server, client_side, fruit):
    table = client_side.load_table(fruit["name"])
    entries = table.inspect.entries().to_pylist()
    ids = history(table)
    for parent, child in zip(ids, ids[1:]):
        added = sorted((e["data_file"]["file_path"], e["data_file"]["record_count"])
                       for e in entries if e["snapshot_id"] == child and e["status"] == 1)
        assert planned_files(server, fruit["name"], incremental_body(parent, child))[0] == added


INCREMENTAL_FILTERS = [
    (EqualTo("category", "banana"), {"type": "eq", "term": "category", "value": "banana"}),
    (GreaterThanOrEqual("id", 250), {"type": "gt-eq", "term": "id", "value": 250}),
    (And(GreaterThanOrEqual("id", 100), LessThan("id", 130)),
     {"type": "and", "left": {"type": "gt-eq", "term": "id", "value": 100},
      "right": {"type": "lt", "term": "id", "value": 130}}),
    (IsNull("price"), {"type": "is-null", "term": "price"}),
]


@pytest.mark.parametrize("row_filter,json_filter", INCREMENTAL_FILTERS, ids=repr)
def test_incremental_filters_match_pyiceberg(server, client_side, fruit, row_filter, json_filter):
    table = client_side.load_table(fruit["name"])
    ids = history(table)
    for start, end in [(ids[0], ids[-1]), (ids[2], ids[8]), (fruit["first_snapshot"], ids[-1])]:
        files, _ = planned_files(server, fruit["name"],
                                 incremental_body(start, end, filter=json_filter,
                                                  select=["id", "category"]))
        assert files == client_incremental(table, start, end, row_filter=row_filter), (start, end)


def test_incremental_skips_what_is_not_an_append(server, server_side, client_side):
    """Deletes and overwrites in the range are skipped, as PyIceberg's (and Java's)
    IncrementalAppendScan skip them; a start off the end's history is 400."""
    table = server_side.create_table("shop.changing", SCHEMA, partition_spec=SPEC)
    table.append(batch(0, 20, "apple"))
    table.append(batch(20, 20, "banana"))
    table.delete(EqualTo("category", "apple"))
    table.append(batch(40, 20, "cherry"))
    table.delete(LessThan("id", 45))  # rewrites the cherry file: an overwrite
    table.overwrite(batch(60, 5, "banana"), overwrite_filter=EqualTo("category", "banana"))
    table.append(batch(70, 5, "apple"))
    local = client_side.load_table("shop.changing")
    ids = history(local)
    operations = [local.snapshot_by_id(i).summary.operation for i in ids]
    assert {Operation.APPEND, Operation.DELETE, Operation.OVERWRITE} <= set(operations), operations
    for i, start in enumerate(ids):
        for end in ids[i + 1:]:
            files, deletes = planned_files(server, "shop.changing", incremental_body(start, end))
            assert files == client_incremental(local, start, end), (start, end, operations)
            assert deletes == []
    base = f"{server.uri}/v1/namespaces/shop/tables/changing/plan"
    backwards = requests.post(base, json=incremental_body(ids[-1], ids[0]))
    assert backwards.status_code == 400, backwards.text
    assert backwards.json()["error"]["type"] == "BadRequestException"
    assert "is not an ancestor of end snapshot" in backwards.json()["error"]["message"]


def test_use_snapshot_schema(server, server_side, client_side):
    """A snapshot written before a rename and an added column: use-snapshot-schema true binds
    select and filter to its schema, false (the default) to the table's current one; the files
    are PyIceberg's client-side plan of that snapshot either way."""
    table = server_side.create_table("shop.evolving", SCHEMA, partition_spec=SPEC)
    table.append(batch(0, 30, "apple"))
    table.append(batch(30, 30, "banana"))
    first = table.current_snapshot().snapshot_id
    with table.update_schema() as update:
        update.rename_column("price", "cost")
        update.add_column("note", StringType())
    table = server_side.load_table("shop.evolving")
    table.append(pa.table({
        "id": [100, 101], "category": ["cherry", "cherry"], "cost": [1.0, 2.0],
        "day": [dt.date(2026, 11, 1)] * 2, "note": ["x", None],
    }, schema=table.schema().as_arrow()))
    expected = sorted((path, count) for path, count, *_ in
                      plan_of(client_side.load_table("shop.evolving"), snapshot_id=first))
    assert len(expected) == 2
    base = f"{server.uri}/v1/namespaces/shop/tables/evolving/plan"

    def plan(use_snapshot_schema, select, json_filter):
        return requests.post(base, json={"snapshot-id": first, "select": select,
                                         "filter": json_filter,
                                         "use-snapshot-schema": use_snapshot_schema})

    old = (["id", "price"], {"type": "not-null", "term": "price"})
    new = (["id", "cost", "note"], {"type": "is-null", "term": "note"})
    for use_snapshot_schema, (select, json_filter) in [(True, old), (False, new), (None, new)]:
        files, _ = planned_files(server, "shop.evolving",
                                 {"snapshot-id": first, "select": select, "filter": json_filter,
                                  **({} if use_snapshot_schema is None
                                     else {"use-snapshot-schema": use_snapshot_schema})})
        assert files == expected, use_snapshot_schema
    for use_snapshot_schema, (select, json_filter), missing in [(True, new, "cost"),
                                                                (False, old, "price")]:
        refused = plan(use_snapshot_schema, select, json_filter)
        assert refused.status_code == 400, refused.text
        assert missing in refused.json()["error"]["message"]
    # A filter on the renamed column prunes by the same field's metrics in either schema.
    low_old = planned_files(server, "shop.evolving", {
        "snapshot-id": first, "use-snapshot-schema": True,
        "filter": {"type": "lt", "term": "id", "value": 30}})[0]
    low_new = planned_files(server, "shop.evolving", {
        "snapshot-id": first, "use-snapshot-schema": False,
        "filter": {"type": "lt", "term": "id", "value": 30}})[0]
    assert low_old == low_new and len(low_old) == 1
    # PyIceberg's own server-side time travel (it sends use-snapshot-schema false).
    assert_same_scan(server_side, client_side, "shop.evolving", snapshot_id=first)
