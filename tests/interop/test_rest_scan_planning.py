"""Server-side scan planning through PyIceberg 0.12's real client (catalog property
scan-planning-mode=server: PyIceberg sends planTableScan and fetches plan tasks): its plan
and its to_arrow() are compared with a client-side PyIceberg scan of the same table and
snapshot — with filters, column selection, time travel, deletes (DuckDB's and Spark's
merge-on-read position deletes) and the paged path (plan tasks).

The server answers plans of at most TASKS_PER_RESPONSE tasks in full and pages larger ones.
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
