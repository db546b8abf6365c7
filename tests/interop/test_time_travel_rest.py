"""skade's time-travel REST extension (/v1/skade/…) against a real `skade serve`
with a table PyIceberg wrote: a snapshot expired from the current metadata
still loads by id, as-of loads the table between commits, the commit log
lists every commit, resolve answers found and not-found; and PyIceberg and
Spark keep working unchanged on a server that advertises the extension."""
import time

import pyarrow as pa
import pytest
import requests
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.types import LongType, NestedField, StringType

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "city", StringType(), required=False),
)
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string())])
EXTENSION_ENDPOINTS = [
    "GET /v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/snapshots/{snapshot-id}",
    "GET /v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/as-of",
    "GET /v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/history",
    "POST /v1/{prefix}/skade/resolve",
]


def batch(start):
    return pa.table({"id": list(range(start, start + 10)), "city": ["oslo"] * 10}, schema=ARROW_SCHEMA)


def ids_of(arrow_table):
    return sorted(arrow_table.column("id").to_pylist())


@pytest.fixture(scope="module")
def expired_table(module_server):
    """tt.events: created, appended three times (ids 0-9, 10-19, 20-29), then
    its first snapshot expired with PyIceberg's own expire_snapshots."""
    catalog = load_catalog("skade", type="rest", uri=module_server.uri)
    catalog.create_namespace("tt")
    table = catalog.create_table("tt.events", SCHEMA)
    snapshot_ids = []
    for start in (0, 10, 20):
        table.append(batch(start))
        snapshot_ids.append(table.current_snapshot().snapshot_id)
        time.sleep(0.02)  # commits a few milliseconds apart, so as-of can fall between them
    table.maintenance.expire_snapshots().by_id(snapshot_ids[0]).commit()
    current = catalog.load_table("tt.events")
    assert snapshot_ids[0] not in [s.snapshot_id for s in current.snapshots()]
    return snapshot_ids, current.metadata_location


def extension(server, path):
    return f"{server.uri}/v1/skade/namespaces/tt/tables/events/{path}"


def test_an_expired_snapshot_still_loads_by_id(module_server, expired_table):
    snapshot_ids, _ = expired_table
    response = requests.get(extension(module_server, f"snapshots/{snapshot_ids[0]}"), timeout=30)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"metadata-location", "metadata", "config"}
    assert body["metadata"]["current-snapshot-id"] == snapshot_ids[0]
    assert snapshot_ids[0] in [s["snapshot-id"] for s in body["metadata"]["snapshots"]]
    # That metadata file reads the table as the first append left it.
    assert ids_of(StaticTable.from_metadata(body["metadata-location"]).scan().to_arrow()) == list(range(10))

    missing = requests.get(extension(module_server, "snapshots/12345"), timeout=30)
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "NotFoundException"
    # -1 means "no snapshot", so no table holds it: a plain miss.
    none = requests.get(extension(module_server, "snapshots/-1"), timeout=30)
    assert none.status_code == 404 and none.json()["error"]["type"] == "NotFoundException"
    for bad_id in ("-", "--1", "+1", "1x", "9223372036854775808"):
        bad = requests.get(extension(module_server, f"snapshots/{bad_id}"), timeout=30)
        assert bad.status_code == 400 and bad.json()["error"]["type"] == "BadRequestException"


def test_a_negative_snapshot_id_is_found_like_any_other(module_server, monkeypatch):
    # Iceberg's writers pick non-negative ids, but a commit may carry any long
    # but -1; the table must be readable at it like at any other.
    import pyiceberg.table.metadata
    catalog = load_catalog("skade", type="rest", uri=module_server.uri)
    catalog.create_namespace_if_not_exists("tt")
    table = catalog.create_table("tt.negative", SCHEMA)
    monkeypatch.setattr(pyiceberg.table.metadata, "_generate_snapshot_id", lambda: -4242)
    table.append(batch(0))
    monkeypatch.undo()
    table.append(batch(10))
    assert table.snapshots()[0].snapshot_id == -4242
    path = f"{module_server.uri}/v1/skade/namespaces/tt/tables/negative/snapshots/-4242"
    response = requests.get(path, timeout=30)
    assert response.status_code == 200, response.text
    assert response.json()["metadata"]["current-snapshot-id"] == -4242
    negative = {"identifier": {"namespace": ["tt"], "name": "negative"}, "snapshot-id": -4242}
    resolved = requests.post(f"{module_server.uri}/v1/skade/resolve",
                             json={"snapshots": [negative, {**negative, "snapshot-id": -7}]},
                             timeout=30)
    assert resolved.status_code == 200, resolved.text
    assert [item["status"] for item in resolved.json()["snapshots"]] == ["found", "not-found"]


def test_history_lists_every_commit_and_as_of_falls_between_them(module_server, expired_table):
    snapshot_ids, current_location = expired_table
    response = requests.get(extension(module_server, "history"), timeout=30)
    assert response.status_code == 200, response.text
    body = response.json()
    assert "next-page-token" not in body
    commits = body["commits"]
    # The creation, three appends, the expiry.
    assert [c["added-snapshot-ids"] for c in commits] == [[], *[[i] for i in snapshot_ids], []]
    assert commits[-1]["metadata-location"] == current_location
    assert [c["commit-seq"] for c in commits] == sorted(c["commit-seq"] for c in commits)

    # Paged one commit at a time, the same log.
    paged, token = [], ""
    while True:
        page = requests.get(extension(module_server, "history"),
                            params={"pageSize": 1, "pageToken": token}, timeout=30).json()
        paged += page["commits"]
        token = page.get("next-page-token")
        if not token:
            break
    assert paged == commits

    between = (commits[2]["committed-at-ms"] + commits[3]["committed-at-ms"]) // 2
    assert commits[2]["committed-at-ms"] <= between < commits[3]["committed-at-ms"]
    as_of = requests.get(extension(module_server, "as-of"), params={"timestamp-ms": between}, timeout=30)
    assert as_of.status_code == 200, as_of.text
    loaded = as_of.json()
    assert loaded["metadata-location"] == commits[2]["metadata-location"]
    assert loaded["metadata"]["current-snapshot-id"] == snapshot_ids[1]
    assert ids_of(StaticTable.from_metadata(loaded["metadata-location"]).scan().to_arrow()) == list(range(20))

    before = requests.get(extension(module_server, "as-of"),
                          params={"timestamp-ms": commits[0]["committed-at-ms"] - 1}, timeout=30)
    assert before.status_code == 404
    garbage = requests.get(extension(module_server, "as-of"), params={"timestamp-ms": "soon"}, timeout=30)
    assert garbage.status_code == 400


def test_resolve_answers_found_and_not_found(module_server, expired_table):
    snapshot_ids, _ = expired_table
    events = {"namespace": ["tt"], "name": "events"}
    request = {"snapshots": [
        {"identifier": events, "snapshot-id": snapshot_ids[0]},
        {"identifier": events, "snapshot-id": 12345},
        {"identifier": {"namespace": ["tt"], "name": "nope"}, "snapshot-id": snapshot_ids[1]},
        {"identifier": events, "snapshot-id": snapshot_ids[2]},
    ]}
    response = requests.post(f"{module_server.uri}/v1/skade/resolve", json=request, timeout=30)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["unprocessed"] == []
    assert [item["status"] for item in body["snapshots"]] == ["found", "not-found", "not-found", "found"]
    for asked, answered in zip(request["snapshots"], body["snapshots"]):
        assert answered["identifier"] == asked["identifier"]
        assert answered["snapshot-id"] == asked["snapshot-id"]
    at_first = requests.get(extension(module_server, f"snapshots/{snapshot_ids[0]}"), timeout=30).json()
    assert body["snapshots"][0]["metadata-location"] == at_first["metadata-location"]

    wrong = requests.post(f"{module_server.uri}/v1/skade/resolve",
                          json={"snapshots": [{"identifier": events, "snapshot-id": "1"}]}, timeout=30)
    assert wrong.status_code == 400 and wrong.json()["error"]["type"] == "BadRequestException"


def test_config_advertises_the_routes_and_pyiceberg_works_unchanged(module_server, expired_table):
    config = requests.get(f"{module_server.uri}/v1/config", timeout=30).json()
    for endpoint in EXTENSION_ENDPOINTS:
        assert endpoint in config["endpoints"]
    # PyIceberg parses every advertised endpoint when it connects.
    catalog = load_catalog("skade", type="rest", uri=module_server.uri)
    table = catalog.load_table("tt.events")
    assert ids_of(table.scan().to_arrow()) == list(range(30))
    snapshot_ids, _ = expired_table
    assert ids_of(table.scan(snapshot_id=snapshot_ids[1]).to_arrow()) == list(range(20))


def test_spark_reads_the_table_on_the_same_server(spark, expired_table):
    snapshot_ids, _ = expired_table
    assert spark.sql("SELECT count(*) FROM tt.events").collect()[0][0] == 30
    older = spark.sql(f"SELECT count(*) FROM tt.events VERSION AS OF {snapshot_ids[1]}").collect()
    assert older[0][0] == 20
