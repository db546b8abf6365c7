"""The Idempotency-Key against a real `skade serve`: PyIceberg commits with a
key on every mutation (added on the wire, as Iceberg Java 1.11+ sends one),
then a client that timed out re-sends the identical commit with the same key.
It gets the same answer and the table keeps exactly one new snapshot, also
after the server restarted; without the key the same retry is the 409 on
which a client deletes what it had just committed."""
import os
import subprocess
import time
import uuid

import pyarrow as pa
import pytest
import requests
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField
from requests.adapters import HTTPAdapter

from conftest import SkadeServer

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True))
ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64())},
                schema=pa.schema([pa.field("id", pa.int64(), nullable=False)]))


def uuid7():
    """An RFC 9562 version-7 UUID (Python 3.11 has no uuid.uuid7)."""
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = ((millis & (1 << 48) - 1) << 80 | 0x7 << 76 | (rand >> 68 & 0xFFF) << 64
             | 0b10 << 62 | rand & (1 << 62) - 1)
    return str(uuid.UUID(int=value))


class KeyingAdapter(HTTPAdapter):
    """Gives every POST and DELETE a fresh Idempotency-Key and remembers each
    request sent with its answer, so a test can send one again as it was."""

    def __init__(self):
        super().__init__()
        self.sent = []

    def send(self, request, **kwargs):
        if request.method in ("POST", "DELETE") and "/oauth/" not in request.url:
            request.headers["Idempotency-Key"] = uuid7()
        response = super().send(request, **kwargs)
        self.sent.append((request, response))
        return response


def keyed_catalog(server):
    catalog = RestCatalog("skade", uri=server.uri)
    adapter = KeyingAdapter()
    catalog._session.mount("http://", adapter)
    return catalog, adapter


def resend(server, request, key=True):
    """The request again, byte for byte, to `server` (which may have moved)."""
    path = request.url.split("/v1/", 1)[1]
    headers = {k: v for k, v in request.headers.items() if key or k != "Idempotency-Key"}
    return requests.request(request.method, f"{server.uri}/v1/{path}", data=request.body,
                            headers=headers, timeout=30)


def last_commit(adapter):
    commits = [(request, response) for request, response in adapter.sent
               if request.method == "POST" and "/tables/" in request.url]
    assert commits, "PyIceberg sent no commit"
    return commits[-1]


@pytest.fixture
def server(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse")
    yield server
    assert server.stop() == 0, server.log_path.read_text()


def append_once(catalog, adapter):
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.t", SCHEMA)
    table.append(ROWS)
    return last_commit(adapter)


def test_config_advertises_the_lifetime(server, bin_dir, tmp_path):
    config = requests.get(f"{server.uri}/v1/config", timeout=30).json()
    assert config["idempotency-key-lifetime"] == "PT30M"
    other = SkadeServer(bin_dir, tmp_path / "other", ["--idempotency-key-lifetime", "PT24H"])
    try:
        config = requests.get(f"{other.uri}/v1/config", timeout=30).json()
        assert config["idempotency-key-lifetime"] == "PT24H"
    finally:
        assert other.stop() == 0


def test_the_default_lifetime_covers_the_token_lifetime(bin_dir, tmp_path):
    # The spec: keys SHOULD NOT expire before the advertised token lifetime.
    server = SkadeServer(bin_dir, tmp_path / "tokens",
                         ["--auth", "token", "--oauth-client", "c:s", "--token-ttl", "7200"])
    try:
        token = requests.post(f"{server.uri}/v1/oauth/tokens", timeout=30,
                              data={"grant_type": "client_credentials", "client_id": "c",
                                    "client_secret": "s"}).json()
        assert token["expires_in"] == 7200
        config = requests.get(f"{server.uri}/v1/config", timeout=30,
                              headers={"Authorization": f"Bearer {token['access_token']}"}).json()
        assert config["idempotency-key-lifetime"] == "PT2H"
    finally:
        assert server.stop() == 0
    # A token lifetime beyond the longest a key may live is refused, not kept for decades.
    refused = subprocess.run(
        [str(bin_dir / "skade"), "serve", "-w", str(tmp_path / "tokens"), "--port", "0",
         "--auth", "token", "--oauth-client", "c:s", "--token-ttl", "2000000000"],
        capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "--token-ttl 2000000000 is longer than an Idempotency-Key may live" in refused.stderr


def test_a_retried_commit_gets_the_same_answer_and_commits_once(server):
    catalog, adapter = keyed_catalog(server)
    request, response = append_once(catalog, adapter)
    assert response.status_code == 200
    assert "Idempotency-Key" in request.headers

    retry = resend(server, request)
    assert retry.status_code == 200, retry.text
    assert retry.json() == response.json()
    table = catalog.load_table("ns.t")
    assert len(table.metadata.snapshots) == 1
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]

    # What the key prevents: the same retry without it fails its
    # requirement, and a client treats that as "not committed".
    unkeyed = resend(server, request, key=False)
    assert unkeyed.status_code == 409
    assert unkeyed.json()["error"]["type"] == "CommitFailedException"
    assert len(catalog.load_table("ns.t").metadata.snapshots) == 1


def test_the_answer_survives_a_restart(bin_dir, tmp_path):
    warehouse = tmp_path / "warehouse"
    first = SkadeServer(bin_dir, warehouse)
    try:
        catalog, adapter = keyed_catalog(first)
        request, response = append_once(catalog, adapter)
        assert response.status_code == 200
        create_namespace = next(r for r, _ in adapter.sent
                                if r.method == "POST" and r.url.endswith("/v1/namespaces"))
    finally:
        assert first.stop() == 0

    second = SkadeServer(bin_dir, warehouse)
    try:
        retry = resend(second, request)
        assert retry.status_code == 200, retry.text
        assert retry.json() == response.json()
        again = resend(second, create_namespace)
        assert again.status_code == 200, "the namespace's creation is replayed, not a 409"
        table = RestCatalog("skade", uri=second.uri).load_table("ns.t")
        assert len(table.metadata.snapshots) == 1
        assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    finally:
        assert second.stop() == 0


def test_a_key_reused_for_another_request_is_refused(server):
    catalog, adapter = keyed_catalog(server)
    request, _ = append_once(catalog, adapter)
    other = requests.post(f"{server.uri}/v1/namespaces", json={"namespace": ["other"]},
                          headers={"Idempotency-Key": request.headers["Idempotency-Key"]},
                          timeout=30)
    assert other.status_code == 422
    assert other.json()["error"]["type"] == "UnprocessableEntityException"
    assert ("other",) not in catalog.list_namespaces()

    bad = requests.post(f"{server.uri}/v1/namespaces", json={"namespace": ["bad"]},
                        headers={"Idempotency-Key": "not-a-uuid"}, timeout=30)
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "BadRequestException"
