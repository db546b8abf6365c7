"""Token authentication: `skade serve --auth token` with OAuth2 client
credentials, used by PyIceberg (`credential=`) and Spark (`credential`)."""
import json
import os
import pathlib
import socket
import time
from urllib.parse import urlparse

import pytest
import requests
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, OAuthError, UnauthorizedError

from conftest import SkadeServer, spark_jars

SECRET = "s3cr3t-do-not-log"


@pytest.fixture(scope="module")
def auth_server(bin_dir, tmp_path_factory):
    server = SkadeServer(bin_dir, tmp_path_factory.mktemp("auth") / "warehouse",
                         ["--auth", "token", "--oauth-client", f"writer:{SECRET}",
                          "--oauth-client", "reader:r3ad:ro", "--token-ttl", "2"])
    yield server
    assert server.stop() == 0
    assert SECRET not in server.log_path.read_text()


def token(server, client_id, secret):
    response = requests.post(f"{server.uri}/v1/oauth/tokens", data={
        "grant_type": "client_credentials", "client_id": client_id, "client_secret": secret,
        "scope": "catalog"}, timeout=30)
    return response


def test_requests_without_a_valid_token_are_401(auth_server):
    for headers in [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}]:
        response = requests.get(f"{auth_server.uri}/v1/config", headers=headers, timeout=30)
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "NotAuthorizedException"
    bad = token(auth_server, "writer", "wrong")
    assert bad.status_code == 401 and bad.json()["error"] == "invalid_client"
    unsupported = requests.post(f"{auth_server.uri}/v1/oauth/tokens",
                                data={"grant_type": "password"}, timeout=30)
    assert unsupported.status_code == 400 and unsupported.json()["error"] == "unsupported_grant_type"


def test_tokens_expire_and_can_be_refreshed(auth_server):
    issued = token(auth_server, "writer", SECRET).json()
    assert issued["token_type"] == "bearer" and issued["expires_in"] == 2
    headers = {"Authorization": f"Bearer {issued['access_token']}"}
    assert requests.get(f"{auth_server.uri}/v1/config", headers=headers, timeout=30).status_code == 200
    refreshed = requests.post(f"{auth_server.uri}/v1/oauth/tokens", data={
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "subject_token": issued["access_token"],
        "subject_token_type": "urn:ietf:params:oauth:token-type:access_token"}, timeout=30)
    assert refreshed.status_code == 200
    time.sleep(2.5)
    assert requests.get(f"{auth_server.uri}/v1/config", headers=headers, timeout=30).status_code == 401


def bearer(server, client_id, secret):
    return {"Authorization": f"Bearer {token(server, client_id, secret).json()['access_token']}"}


def test_read_only_clients_get_403_on_writes_and_only_there(auth_server):
    uri = auth_server.uri
    writer = bearer(auth_server, "writer", SECRET)
    schema = {"type": "struct", "schema-id": 0,
              "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}
    assert requests.post(f"{uri}/v1/namespaces", json={"namespace": ["ro_ns"]}, headers=writer,
                         timeout=30).status_code == 200
    assert requests.post(f"{uri}/v1/namespaces/ro_ns/tables", json={"name": "t", "schema": schema},
                         headers=writer, timeout=30).status_code == 200
    reader = bearer(auth_server, "reader", "r3ad")
    report = {"report-type": "scan-report", "table-name": "ro_ns.t", "snapshot-id": 1,
              "filter": True, "schema-id": 0, "projected-field-ids": [1],
              "projected-field-names": ["id"], "metrics": {}}
    # Report-metrics is a read-only client's to send, with or without a prefix.
    metrics = requests.post(f"{uri}/v1/namespaces/ro_ns/tables/t/metrics", json=report,
                            headers=reader, timeout=30)
    assert metrics.status_code == 204, metrics.text
    prefixed = requests.post(f"{uri}/v1/somewhere/namespaces/ro_ns/tables/t/metrics", json=report,
                             headers=reader, timeout=30)
    assert prefixed.status_code != 403
    for method, path in [("POST", "/v1/namespaces"), ("DELETE", "/v1/namespaces/ro_ns"),
                         ("POST", "/v1/namespaces/ro_ns/properties"),
                         ("POST", "/v1/namespaces/ro_ns/tables"),
                         ("POST", "/v1/namespaces/ro_ns/tables/t"),
                         ("DELETE", "/v1/namespaces/ro_ns/tables/t"),
                         ("POST", "/v1/namespaces/ro_ns/register"),
                         ("POST", "/v1/tables/rename"), ("POST", "/v1/transactions/commit"),
                         ("DELETE", "/v1/namespaces/ro_ns/tables/t/metrics"),
                         ("PUT", "/v1/namespaces/ro_ns"),
                         ("POST", "/v1/somewhere/namespaces/ro_ns/tables/t/x/metrics")]:
        response = requests.request(method, f"{uri}{path}", json={}, headers=reader, timeout=30)
        assert response.status_code == 403, (method, path, response.text)
        assert response.json()["error"]["type"] == "ForbiddenException"
    for method, path in [("GET", "/v1/config"), ("GET", "/v1/namespaces"),
                         ("HEAD", "/v1/namespaces/ro_ns"), ("GET", "/v1/namespaces/ro_ns/tables/t"),
                         ("HEAD", "/v1/namespaces/ro_ns/tables/t")]:
        response = requests.request(method, f"{uri}{path}", headers=reader, timeout=30)
        assert response.status_code in (200, 204), (method, path, response.status_code)


def raw_get(server, target, headers):
    """GET with `target` sent byte for byte (HTTP libraries would encode it)."""
    uri = urlparse(server.uri)
    with socket.create_connection((uri.hostname, uri.port), timeout=30) as sock:
        fields = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                     fields.encode() + b"\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    return int(head.split(b" ")[1]), body


def test_error_bodies_are_strict_utf8_json_even_for_invalid_names(auth_server):
    writer = bearer(auth_server, "writer", SECRET)
    messages = []
    for target in [b"/v1/namespaces/%FF%FEbad", b"/v1/namespaces/a%C0%AFb/tables",
                   b"/v1/namespaces/ro%ED%A0%80ns/tables/t", b"/v1/name\xc3(spaces",
                   b"/v1/namespaces/\xff\xfe/tables"]:
        status, body = raw_get(auth_server, target, writer)
        assert 400 <= status < 500, target
        error = json.loads(body.decode("utf-8", errors="strict"))["error"]
        assert error["code"] == status
        messages.append(error["message"])
    # Some of them quote the name, which is then repaired rather than echoed.
    assert any("\ufffd" in message for message in messages), messages


def test_exchange_cannot_refresh_past_the_max_lifetime(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse",
                         ["--auth", "token", "--oauth-client", f"writer:{SECRET}",
                          "--token-ttl", "60", "--token-max-lifetime", "4"])
    try:
        issued = token(server, "writer", SECRET).json()
        assert issued["expires_in"] <= 4
        granted = time.monotonic()
        refreshed = requests.post(f"{server.uri}/v1/oauth/tokens", data={
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": issued["access_token"],
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token"}, timeout=30)
        assert refreshed.status_code == 200
        assert refreshed.json()["expires_in"] <= 4  # not the 60 s of --token-ttl
        time.sleep(max(0.0, granted + 5 - time.monotonic()))
        headers = {"Authorization": f"Bearer {refreshed.json()['access_token']}"}
        assert requests.get(f"{server.uri}/v1/config", headers=headers,
                            timeout=30).status_code == 401
    finally:
        assert server.stop() == 0


def test_clients_from_a_file_and_the_environment_stay_out_of_ps(bin_dir, tmp_path, monkeypatch):
    clients = tmp_path / "clients"
    clients.write_text("# one per line\nfiler:f1le-secret\nfile_reader:r3ad-f:ro\n")
    clients.chmod(0o600)
    monkeypatch.setenv("SKADE_OAUTH_CLIENTS", "env_one:env-s3cret,env_two:env-tw0:ro")
    server = SkadeServer(bin_dir, tmp_path / "warehouse",
                         ["--auth", "token", "--oauth-client-file", str(clients)])
    try:
        command_line = pathlib.Path(f"/proc/{server.proc.pid}/cmdline").read_bytes()
        for client_id, secret in [("filer", "f1le-secret"), ("file_reader", "r3ad-f"),
                                  ("env_one", "env-s3cret"), ("env_two", "env-tw0")]:
            assert secret.encode() not in command_line
            assert token(server, client_id, secret).status_code == 200, client_id
        reader = bearer(server, "env_two", "env-tw0")
        assert requests.post(f"{server.uri}/v1/namespaces", json={"namespace": ["x"]},
                             headers=reader, timeout=30).status_code == 403
    finally:
        assert server.stop() == 0
    assert "f1le-secret" not in server.log_path.read_text()


def test_pyiceberg_with_credentials(auth_server):
    catalog = RestCatalog("skade", uri=auth_server.uri, credential=f"writer:{SECRET}")
    catalog.create_namespace("secured")
    assert ("secured",) in catalog.list_namespaces()
    reader = RestCatalog("skade", uri=auth_server.uri, credential="reader:r3ad")
    assert ("secured",) in reader.list_namespaces()
    with pytest.raises(ForbiddenError):
        reader.create_namespace("not_allowed")
    with pytest.raises((OAuthError, UnauthorizedError)):
        RestCatalog("skade", uri=auth_server.uri, credential="writer:wrong")


@pytest.fixture(scope="module")
def spark_auth_server(bin_dir, tmp_path_factory):
    """The same credentials with tokens that outlive Spark's start: this test is about Spark
    authenticating, not about expiry (test_tokens_expire_and_can_be_refreshed covers that), and a
    2 s token could expire between the JVM fetching it and its first call on a slow machine."""
    server = SkadeServer(bin_dir, tmp_path_factory.mktemp("spark-auth") / "warehouse",
                         ["--auth", "token", "--oauth-client", f"writer:{SECRET}",
                          "--token-ttl", "3600"])
    yield server
    assert server.stop() == 0
    assert SECRET not in server.log_path.read_text()


def test_spark_with_credentials(spark_auth_server):
    auth_server = spark_auth_server
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]").appName("skade-auth")
        .config("spark.driver.memory", "1g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.jars", spark_jars())
        .config("spark.sql.catalog.secure", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.secure.type", "rest")
        .config("spark.sql.catalog.secure.uri", auth_server.uri)
        .config("spark.sql.catalog.secure.credential", f"writer:{SECRET}")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        spark.sql("CREATE NAMESPACE IF NOT EXISTS secure.spark_ns")
        spark.sql("CREATE TABLE secure.spark_ns.t (id BIGINT) USING iceberg")
        spark.sql("INSERT INTO secure.spark_ns.t VALUES (1), (2)")
        assert spark.sql("SELECT count(*) FROM secure.spark_ns.t").collect()[0][0] == 2
    finally:
        spark.stop()
