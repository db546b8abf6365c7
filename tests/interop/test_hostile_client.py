"""A hostile client against a real `skade serve` (real HTTP, no mocks).

Each test tries one attack from the hardening review, and more of its kind,
and asserts what must hold whatever a client sends: no 5xx, no file outside
the table's own location read or deleted, and the catalog intact (its store
file still there, still serving, every other table untouched)."""
import json
import os
import pathlib
import socket
import time
import uuid
from urllib.parse import quote, urlparse

import pytest
import requests

TIMEOUT = 60


class Client:
    """Raw REST calls that record every status, so a 5xx anywhere fails."""

    def __init__(self, server):
        self.uri = server.uri
        self.statuses = []

    def call(self, method, path, body=None, raw=None, headers=None, params=None):
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        response = requests.request(method, f"{self.uri}{path}", data=data, params=params,
                                    headers={"Content-Type": "application/json",
                                             **(headers or {})},
                                    timeout=TIMEOUT)
        self.statuses.append((method, path, response.status_code))
        assert response.status_code < 500, f"{method} {path} -> {response.status_code}: {response.text}"
        if response.status_code >= 400:
            # The spec's error model, in valid UTF-8 JSON.
            error = json.loads(response.content.decode("utf-8"))["error"]
            assert error["code"] == response.status_code
        return response


@pytest.fixture
def client(skade_server):
    return Client(skade_server)


@pytest.fixture
def store_file(skade_server):
    path = skade_server.warehouse / ".skade" / "catalog" / "data.mdb"
    assert path.exists()
    return path


@pytest.fixture
def victim(tmp_path):
    """A file outside the warehouse that the server must never touch."""
    path = tmp_path / "outside" / "victim.parquet"
    path.parent.mkdir()
    path.write_bytes(b"precious")
    return path


def create_table(client, ns, name, properties=None, location=None):
    if client.call("GET", f"/v1/namespaces/{ns}", raw=None).status_code == 404:
        assert client.call("POST", "/v1/namespaces", {"namespace": [ns]}).status_code == 200
    body = {"name": name, "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": True}]},
        "properties": properties or {}}
    if location:
        body["location"] = location
    return client.call("POST", f"/v1/namespaces/{ns}/tables", body)


def commit_snapshot(client, ns, name, manifest_list, extra_updates=()):
    loaded = client.call("GET", f"/v1/namespaces/{ns}/tables/{name}").json()
    metadata = loaded["metadata"]
    snapshot_id = uuid.uuid4().int >> 65
    snapshot = {"snapshot-id": snapshot_id, "timestamp-ms": int(time.time() * 1000),
                "sequence-number": metadata["last-sequence-number"] + 1,
                "manifest-list": manifest_list, "schema-id": 0,
                "summary": {"operation": "append"}}
    parent = metadata.get("current-snapshot-id")
    if parent is not None and parent != -1:
        snapshot["parent-snapshot-id"] = parent
    updates = [{"action": "add-snapshot", "snapshot": snapshot},
               {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
                "snapshot-id": snapshot_id}, *extra_updates]
    response = client.call("POST", f"/v1/namespaces/{ns}/tables/{name}",
                           {"requirements": [], "updates": updates})
    assert response.status_code == 200, response.text
    return snapshot_id


def assert_catalog_intact(client, store_file):
    assert store_file.exists()
    assert client.call("GET", "/v1/namespaces").status_code == 200
    probe = f"probe{uuid.uuid4().hex[:8]}"
    assert client.call("POST", "/v1/namespaces", {"namespace": [probe]}).status_code == 200
    assert client.call("DELETE", f"/v1/namespaces/{probe}").status_code == 204


def test_purge_deletes_nothing_outside_the_table(client, skade_server, store_file, victim):
    create_table(client, "n", "other")
    other = client.call("GET", "/v1/namespaces/n/tables/other").json()["metadata-location"]
    create_table(client, "n", "t")
    for target in (f"file://{store_file}", str(store_file), f"file://{victim}",
                   f"file://{store_file.parent}/../catalog/data.mdb", other,
                   "file:///etc/passwd", "file:///dev/zero", "s3://bucket/x.avro"):
        commit_snapshot(client, "n", "t", target)
    snapshot = client.call("GET", "/v1/namespaces/n/tables/t").json()["metadata"]["current-snapshot-id"]
    stats = {"snapshot-id": snapshot, "statistics-path": str(victim), "file-size-in-bytes": 8,
             "file-footer-size-in-bytes": 1, "blob-metadata": []}
    client.call("POST", "/v1/namespaces/n/tables/t", {"requirements": [], "updates": [
        {"action": "set-statistics", "snapshot-id": snapshot, "statistics": stats}]})
    assert client.call("DELETE", "/v1/namespaces/n/tables/t",
                       params={"purgeRequested": "true"}).status_code == 204
    assert victim.read_bytes() == b"precious"
    assert pathlib.Path(urlparse(other).path).exists()
    assert client.call("GET", "/v1/namespaces/n/tables/other").status_code == 200
    assert_catalog_intact(client, store_file)


def test_purge_of_a_fifo_or_device_does_not_hang(client, skade_server, store_file):
    create_table(client, "n", "t")
    location = client.call("GET", "/v1/namespaces/n/tables/t").json()["metadata"]["location"]
    fifo = pathlib.Path(urlparse(location).path) / "metadata" / "snap-fifo.avro"
    os.mkfifo(fifo)
    commit_snapshot(client, "n", "t", f"file://{fifo}")
    assert client.call("DELETE", "/v1/namespaces/n/tables/t",
                       params={"purgeRequested": "true"}).status_code == 204
    assert_catalog_intact(client, store_file)


def test_metadata_cleanup_deletes_only_the_tables_files(client, skade_server, store_file, victim):
    # A table registered from a metadata file whose metadata-log names the
    # store and a file outside; delete-after-commit must spare both.
    create_table(client, "n", "t")
    loaded = client.call("GET", "/v1/namespaces/n/tables/t").json()
    metadata = loaded["metadata"]
    metadata["metadata-log"] = [{"timestamp-ms": 1, "metadata-file": f"file://{store_file}"},
                                {"timestamp-ms": 2, "metadata-file": f"file://{victim}"}]
    metadata["properties"] = {"write.metadata.delete-after-commit.enabled": "true",
                              "write.metadata.previous-versions-max": "1"}
    crafted = pathlib.Path(urlparse(metadata["location"]).path) / "metadata" / "00009-x.metadata.json"
    crafted.write_text(json.dumps(metadata))
    # Its location is t's, which only one table may own at a time.
    assert client.call("DELETE", "/v1/namespaces/n/tables/t").status_code == 204
    assert client.call("POST", "/v1/namespaces/n/register",
                       {"name": "crafted", "metadata-location": str(crafted)}).status_code == 200
    for i in range(3):
        client.call("POST", "/v1/namespaces/n/tables/crafted", {"requirements": [], "updates": [
            {"action": "set-properties", "updates": {"k": str(i)}}]})
    assert victim.read_bytes() == b"precious"
    assert_catalog_intact(client, store_file)


def test_register_reveals_nothing_outside_the_roots(client, skade_server, store_file, tmp_path):
    assert client.call("POST", "/v1/namespaces", {"namespace": ["n"]}).status_code == 200
    create_table(client, "n", "t")
    loaded = client.call("GET", "/v1/namespaces/n/tables/t").json()
    outside = tmp_path / "outside-meta" / "00001-a.metadata.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps(loaded["metadata"]))
    answers = []
    for target in (str(outside), str(outside.parent / "00002-missing.metadata.json"),
                   "/etc/shadow", "/dev/zero", "/proc/self/environ", f"file://{store_file}",
                   str(store_file.parent)):
        response = client.call("POST", "/v1/namespaces/n/register",
                               {"name": "r", "metadata-location": target})
        answers.append((response.status_code, response.json()["error"]["type"]))
    # The same answer whether or not the file exists.
    assert answers[0] == answers[1] == (403, "ForbiddenException"), answers
    assert all(status == 403 for status, _ in answers), answers
    assert_catalog_intact(client, store_file)


def test_register_of_bad_files_inside_the_warehouse_is_bad_input(client, skade_server, store_file):
    create_table(client, "n", "t")
    location = client.call("GET", "/v1/namespaces/n/tables/t").json()["metadata"]["location"]
    metadata_dir = pathlib.Path(urlparse(location).path) / "metadata"
    fifo = metadata_dir / "00005-fifo.metadata.json"
    os.mkfifo(fifo)
    (metadata_dir / "00006-bad.metadata.json").write_text("{not json")
    (metadata_dir / "00007-empty.metadata.json").write_text("")
    for target in (fifo, metadata_dir, metadata_dir / "00006-bad.metadata.json",
                   metadata_dir / "00006-bad.metadata.json",  # twice: no stuck single-flight
                   metadata_dir / "00007-empty.metadata.json"):
        response = client.call("POST", "/v1/namespaces/n/register",
                               {"name": "r", "metadata-location": str(target)})
        assert response.status_code == 400, response.text
    assert_catalog_intact(client, store_file)


def test_locations_outside_the_roots_or_in_the_store_are_refused(client, skade_server, store_file,
                                                                 tmp_path):
    assert client.call("POST", "/v1/namespaces", {"namespace": ["n"]}).status_code == 200
    warehouse = skade_server.warehouse
    for location in (str(tmp_path / "elsewhere"), f"file://{warehouse}/.skade/catalog",
                     f"file://{warehouse}/n/../../escape", "relative/dir", "s3://bucket/t"):
        status = create_table(client, "n", f"t{abs(hash(location)) % 10000}",
                              location=location).status_code
        assert status in (400, 403), (location, status)
    create_table(client, "n", "t")
    for properties in ({"write.metadata.path": f"file://{warehouse}/.skade"},
                       {"write.metadata.path": str(tmp_path / "meta-elsewhere")}):
        response = client.call("POST", "/v1/namespaces/n/tables/t", {"requirements": [], "updates": [
            {"action": "set-properties", "updates": properties}]})
        assert response.status_code == 403, response.text
    response = client.call("POST", "/v1/namespaces/n/tables/t", {"requirements": [], "updates": [
        {"action": "set-location", "location": str(tmp_path / "moved")}]})
    assert response.status_code == 403, response.text
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "meta-elsewhere").exists()
    assert_catalog_intact(client, store_file)


def test_names_and_bodies_of_every_shape(client, skade_server, store_file):
    for ns in ("..", ".", ".skade", "a%00b", "a%1Fb", "%2E%2E", "x" * 300, "%FF%FE"):
        client.call("POST", "/v1/namespaces", raw=json.dumps({"namespace": [ns]}))
        client.call("GET", f"/v1/namespaces/{ns}")
        client.call("GET", f"/v1/namespaces/{ns}/tables/{ns}")
    assert client.call("POST", "/v1/namespaces", {"namespace": ["n"]}).status_code == 200
    for name in ("..", "../../etc", "a/../../b", "\u0000", "x" * 300):
        client.call("POST", f"/v1/namespaces/n/tables", {"name": name, "schema": {
            "type": "struct", "fields": []}})
        client.call("GET", f"/v1/namespaces/n/tables/{quote(name, safe='')}")
    for raw in (b"{", b"[]", b"\xff\xfe", b'{"namespace": "n"}', b'{"namespace": [1]}',
                b"{" * 100000, b'{"name": "t", "schema": 5}'):
        client.call("POST", "/v1/namespaces", raw=raw)
        client.call("POST", "/v1/namespaces/n/tables", raw=raw)
        client.call("POST", "/v1/namespaces/n/tables/t", raw=raw)
        client.call("POST", "/v1/transactions/commit", raw=raw)
    client.call("POST", "/v1/namespaces/n/tables/t", {"requirements": [], "updates": [
        {"action": "no-such-update"}]})
    big = b'{"namespace": ["' + b"a" * (80 << 20) + b'"]}'
    response = requests.post(f"{client.uri}/v1/namespaces", data=big, timeout=TIMEOUT)
    assert response.status_code == 413
    assert_catalog_intact(client, store_file)


def test_headers_and_targets_of_every_shape(client, skade_server, store_file):
    uri = urlparse(client.uri)
    for request in (b"GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
                    b"GET /v1/namespaces/%2e%2e%2f%2e%2e HTTP/1.1\r\nHost: x\r\n\r\n",
                    b"GET /v1/config HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
                    b"POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
                    b"GET /v1/config HTTP/1.1\r\n" + b"X-Long: " + b"a" * 100000 + b"\r\n\r\n",
                    b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",  # a TLS hello
                    b"GET " + b"/v1" * 10000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"):
        with socket.create_connection((uri.hostname, uri.port), timeout=TIMEOUT) as sock:
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        if answer:
            status = int(answer.split(b" ", 2)[1])
            assert status < 500, (request[:60], answer[:200])
    assert_catalog_intact(client, store_file)
