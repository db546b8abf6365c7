"""Health and metrics of `skade serve`: GET /health/live, /health/ready and /metrics, read
with real clients — PyIceberg makes the requests, prometheus_client's parser reads the scrape,
and (when installed) a real Prometheus server scrapes it."""
import pathlib
import shutil
import signal
import subprocess
import time

import pyarrow as pa
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from conftest import SkadeServer
from s3_fixtures import free_port

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "name", StringType(), required=False))
TABLE_ROUTE = "v1/{prefix}/namespaces/{namespace}/tables/{table}"
NAMESPACES_ROUTE = "v1/{prefix}/namespaces"
# Generous: the machine may be loaded; nothing here asserts on time.
DEADLINE_S = 120


def scrape(server, **kwargs):
    response = requests.get(f"{server.uri}/metrics", timeout=30, **kwargs)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return response.text


def samples(text):
    """{(sample name, frozenset of labels): value} of a scrape, as prometheus_client parses it."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(parsed, name, **labels):
    return parsed.get((name, frozenset(labels.items())), 0)


def wait_for(predicate, what):
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.1)
    pytest.fail(f"gave up waiting for {what}")


def not_ready(server):
    """The /health/ready response if it is a 503, else None. (A Response is falsy when not ok,
    so it goes back in a list.)"""
    response = requests.get(f"{server.uri}/health/ready", timeout=30)
    return [response] if response.status_code == 503 else None


def rows(start, count):
    return pa.table({"id": pa.array(range(start, start + count), pa.int64()),
                     "name": pa.array([f"n{i}" for i in range(count)], pa.string())})


@pytest.fixture
def server(bin_dir, tmp_path):
    # The store apart from the warehouse, so the warehouse can go away alone.
    server = SkadeServer(bin_dir, tmp_path / "warehouse", global_args=["--store", tmp_path / "store"])
    yield server
    assert server.stop() == 0, server.log_path.read_text()


def test_health_endpoints_answer_and_are_not_advertised(server):
    live = requests.get(f"{server.uri}/health/live", timeout=30)
    assert live.status_code == 200 and live.json() == {"status": "live"}
    ready = requests.get(f"{server.uri}/health/ready", timeout=30)
    assert ready.status_code == 200, ready.text
    body = ready.json()
    assert body["status"] == "ready"
    assert {check["name"] for check in body["checks"]} == {"store", "warehouse", "shutdown"}
    assert all(check["status"] == "ok" for check in body["checks"])
    endpoints = requests.get(f"{server.uri}/v1/config", timeout=30).json()["endpoints"]
    assert not [e for e in endpoints if "health" in e or e.endswith(" /metrics")]
    log = server.log_path.read_text()
    assert f"health {server.uri}/health/ready, metrics {server.uri}/metrics" in log


def test_pyiceberg_requests_move_the_counters(server):
    before = samples(scrape(server))
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("sales_secret_name")
    table = catalog.create_table("sales_secret_name.orders_secret", SCHEMA)
    table.append(rows(0, 10))
    table.append(rows(10, 10))
    assert len(table.scan().to_arrow()) == 20
    text = scrape(server)
    after = samples(text)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    # Two appends: two logical commits, each its own physical commit (nothing to batch with).
    assert moved("skade_commits_total", kind="logical") == 2
    assert moved("skade_commits_total", kind="physical") == 2
    assert moved("skade_commit_batch_size_count") == 2
    assert value(after, "skade_commit_conflicts_total") == 0
    assert value(after, "skade_commit_log_last_sequence") >= 3  # the create and the two appends
    assert value(after, "skade_store_map_used_bytes") > 0
    assert value(after, "skade_store_file_bytes") > 0
    assert value(after, "skade_ready") == 1
    # Requests by route pattern, method and status: never the client's names.
    assert moved("skade_http_requests_total", route=NAMESPACES_ROUTE, method="POST", status="200") == 1
    assert moved("skade_http_requests_total", route=TABLE_ROUTE, method="POST", status="200") == 2
    assert moved("skade_http_request_duration_seconds_count", route=TABLE_ROUTE, method="POST") == 2
    assert moved("skade_http_request_duration_seconds_bucket", route=TABLE_ROUTE, method="POST",
                 le="+Inf") == 2
    assert value(after, "skade_http_requests_total", route="v1/config", method="GET",
                 status="200") >= 1
    assert "sales_secret_name" not in text and "orders_secret" not in text
    # Reading the table went through the metadata cache.
    assert value(after, "skade_cache_hits_total", cache="metadata") + \
        value(after, "skade_cache_misses_total", cache="metadata") > 0


def test_a_cached_load_counts_one_metadata_cache_hit(server):
    """The server checks the cache to pick the thread a load runs on; only the load's own read
    of the cached metadata counts as a hit."""
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("hits")
    catalog.create_table("hits.t", schema=SCHEMA)
    url = f"{server.uri}/v1/namespaces/hits/tables/t"
    assert requests.get(url, timeout=30).status_code == 200  # warm
    before = samples(scrape(server))
    for _ in range(5):
        assert requests.get(url, timeout=30).status_code == 200
    after = samples(scrape(server))
    moved = {name: value(after, name, cache="metadata") - value(before, name, cache="metadata")
             for name in ("skade_cache_hits_total", "skade_cache_misses_total")}
    assert moved == {"skade_cache_hits_total": 5, "skade_cache_misses_total": 0}


def test_unmatched_paths_share_one_series(server):
    for i in range(20):
        assert requests.get(f"{server.uri}/no/such/path/{i}", timeout=30).status_code == 404
    parsed = samples(scrape(server))
    assert value(parsed, "skade_http_requests_total", route="none", method="GET", status="404") == 20
    assert not [key for key in parsed if any("no/such" in v for _, v in key[1])]


def test_metrics_auth_token(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse",
                         ["--auth", "token", "--oauth-client", "ops:s3cr3t", "--metrics-auth", "token"])
    try:
        assert requests.get(f"{server.uri}/metrics", timeout=30).status_code == 401
        assert requests.get(f"{server.uri}/health/ready", timeout=30).status_code == 200
        assert requests.get(f"{server.uri}/health/live", timeout=30).status_code == 200
        token = requests.post(f"{server.uri}/v1/oauth/tokens", data={
            "grant_type": "client_credentials", "client_id": "ops", "client_secret": "s3cr3t"},
            timeout=30).json()["access_token"]
        text = scrape(server, headers={"Authorization": f"Bearer {token}"})
        assert value(samples(text), "skade_ready") == 1
    finally:
        assert server.stop() == 0
    assert "s3cr3t" not in server.log_path.read_text()


def test_metrics_are_public_by_default_under_token_auth(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse", ["--auth", "token", "--oauth-client", "a:b"])
    try:
        assert requests.get(f"{server.uri}/v1/config", timeout=30).status_code == 401
        assert value(samples(scrape(server)), "skade_ready") == 1
    finally:
        assert server.stop() == 0


def test_not_ready_once_the_warehouse_is_gone(server):
    shutil.rmtree(server.warehouse)

    [response] = wait_for(lambda: not_ready(server), "/health/ready to answer 503")
    failed = [c for c in response.json()["checks"] if c["status"] == "failed"]
    assert [c["name"] for c in failed] == ["warehouse"], response.text
    assert requests.get(f"{server.uri}/health/live", timeout=30).status_code == 200
    server.warehouse.mkdir()
    wait_for(lambda: requests.get(f"{server.uri}/health/ready", timeout=30).status_code == 200,
             "/health/ready to recover")


def test_shutdown_delay_turns_readiness_off_first(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse", ["--shutdown-delay", "600"])
    try:
        assert requests.get(f"{server.uri}/health/ready", timeout=30).status_code == 200
        server.proc.send_signal(signal.SIGTERM)
        [response] = wait_for(lambda: not_ready(server), "readiness to fail after SIGTERM")
        assert {"name": "shutdown", "status": "failed",
                "message": "the server is shutting down"} in response.json()["checks"]
        # Still serving during the delay: liveness and the API answer.
        assert requests.get(f"{server.uri}/health/live", timeout=30).status_code == 200
        assert requests.get(f"{server.uri}/v1/config", timeout=30).status_code == 200
        # A second signal skips the rest of the delay.
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=DEADLINE_S) == 0
    finally:
        server.stop()
    assert "not ready; serving 600 s more before draining" in server.log_path.read_text()


@pytest.mark.skipif(shutil.which("prometheus") is None,
                    reason="no prometheus binary (Debian package prometheus; scripts/setup.sh)")
def test_a_prometheus_server_scrapes_skade(server, tmp_path):
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("p")
    catalog.create_table("p.t", SCHEMA).append(rows(0, 5))
    target = server.uri.removeprefix("http://")
    config = tmp_path / "prometheus.yml"
    config.write_text(f"""
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: skade
    metrics_path: /metrics
    static_configs:
      - targets: ["{target}"]
""")
    port = free_port()
    log = open(tmp_path / "prometheus.log", "w")
    prometheus = subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT)
    api = f"http://127.0.0.1:{port}/api/v1/query"

    def query(expression):
        try:
            response = requests.get(api, params={"query": expression}, timeout=30)
        except requests.ConnectionError:
            return []
        if response.status_code != 200:
            return []
        return response.json()["data"]["result"]

    try:
        up = wait_for(lambda: [r for r in query('up{job="skade"}') if r["value"][1] == "1"],
                      "Prometheus to scrape skade (up == 1)")
        assert up[0]["metric"]["instance"] == target
        commits = wait_for(lambda: query('skade_commits_total{job="skade",kind="logical"}'),
                           "skade_commits_total in Prometheus")
        assert float(commits[0]["value"][1]) >= 1
        routes = wait_for(lambda: query(f'skade_http_requests_total{{route="{TABLE_ROUTE}",'
                                        'method="POST",status="200"}'),
                          "per-route request counts in Prometheus")
        assert float(routes[0]["value"][1]) >= 1
        # Prometheus reads the histograms as histograms.
        quantile = wait_for(lambda: query(
            'histogram_quantile(0.5, sum by (le) (skade_http_request_duration_seconds_bucket))'),
            "a latency quantile")
        assert float(quantile[0]["value"][1]) > 0
    finally:
        prometheus.terminate()
        prometheus.wait(timeout=60)
        log.close()
