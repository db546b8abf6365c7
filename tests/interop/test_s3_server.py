"""The S3 server the S3 tests run against (tests/interop/s3_fixtures.py) does what they rely on:
objects written by one S3 client read back by another, and conditional writes (`If-None-Match: *`),
which an object-store catalog needs to create a file only if it does not exist."""
import boto3
import botocore.config
import botocore.exceptions
import pyarrow.fs


def s3_client(minio):
    return boto3.client(
        "s3", endpoint_url=minio.endpoint, aws_access_key_id=minio.access_key,
        aws_secret_access_key=minio.secret_key, region_name=minio.region,
        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


def test_write_and_read_an_object(minio):
    bucket = minio.make_bucket("s3-server-roundtrip")
    fs = pyarrow.fs.S3FileSystem(
        endpoint_override=minio.endpoint.removeprefix("http://"), scheme="http",
        access_key=minio.access_key, secret_key=minio.secret_key, region=minio.region)
    payload = b"skade" * 1000
    with fs.open_output_stream(f"{bucket}/dir/object.bin") as out:
        out.write(payload)
    with fs.open_input_stream(f"{bucket}/dir/object.bin") as stream:
        assert stream.read() == payload
    assert fs.get_file_info(f"{bucket}/dir/object.bin").size == len(payload)
    # Another client, SigV4 over plain HTTP, sees the same bytes.
    assert s3_client(minio).get_object(Bucket=bucket, Key="dir/object.bin")["Body"].read() == payload


def test_put_if_none_match_refuses_an_existing_key(minio):
    bucket = minio.make_bucket("s3-server-conditional")
    s3 = s3_client(minio)
    s3.put_object(Bucket=bucket, Key="metadata/v1.json", Body=b"first", IfNoneMatch="*")
    try:
        s3.put_object(Bucket=bucket, Key="metadata/v1.json", Body=b"second", IfNoneMatch="*")
    except botocore.exceptions.ClientError as e:
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 412, e.response
    else:
        raise AssertionError("a conditional PUT over an existing key was accepted")
    assert s3.get_object(Bucket=bucket, Key="metadata/v1.json")["Body"].read() == b"first"


# --- table locations and vended credentials on skade's S3 warehouse ------------------------------
# (review findings: locations PyIceberg cuts short, data paths outside the allowed roots, keys that
# did not reach a table's own data path)

import os  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import pyarrow as pa  # noqa: E402
import pytest  # noqa: E402
import requests  # noqa: E402
from pyiceberg.catalog.rest import RestCatalog  # noqa: E402

from conftest import SkadeServer  # noqa: E402
from s3_fixtures import AMBIENT_CREDENTIALS, MinioServer, S3Warehouse  # noqa: E402

LOCATION_SCHEMA = pa.schema([pa.field("id", pa.int64())])


def skade_on_s3(bin_dir, minio, tmp_path, bucket, vend):
    warehouse = S3Warehouse(minio, tmp_path, bucket)
    server = SkadeServer(bin_dir, warehouse.uri, ["--vend-credentials", vend],
                         global_args=warehouse.options, env=warehouse.env,
                         log_path=tmp_path / f"{bucket}-server.log")
    server.bucket = warehouse.bucket
    return server


def skade_call(server, method, path, body=None):
    return requests.request(method, f"{server.uri}/v1{path}", json=body, timeout=30)


def create_request(name, location=None, properties=None):
    body = {"name": name, "schema": {"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"}]}}
    if location is not None:
        body["location"] = location
    if properties:
        body["properties"] = properties
    return body


def object_keys_under(minio, bucket, prefix=""):
    pages = s3_client(minio).get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


@pytest.fixture
def no_ambient_s3_credentials(monkeypatch):
    """A client in this process reaches S3 only with the keys the catalog vends it."""
    for name in AMBIENT_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def test_a_table_location_with_a_fragment_or_query_is_refused(bin_dir, minio, tmp_path,
                                                               no_ambient_s3_credentials):
    # Review finding: `…/t1#x` and `…/t1?x` were accepted and overlapped no table, while
    # PyIceberg (urlparse) cut them there and wrote the data file, manifest and manifest list
    # of such a table all to the key `wh/ns/t1`, the root of the table beside it.
    server = skade_on_s3(bin_dir, minio, tmp_path, "location-delimiters", "static")
    try:
        bucket = server.bucket
        assert skade_call(server, "POST", "/namespaces", {"namespace": ["ns"]}).status_code == 200
        assert skade_call(server, "POST", "/namespaces/ns/tables",
                          create_request("t1")).status_code == 200
        sibling = f"s3://{bucket}/wh/ns/t1"
        for character, part in (("#", "fragment"), ("?", "query")):
            bad = f"{sibling}{character}x"
            for request in (create_request("bad", bad),
                            create_request("bad", None, {"write.data.path": bad}),
                            create_request("bad", None, {"write.metadata.path": bad})):
                response = skade_call(server, "POST", "/namespaces/ns/tables", request)
                assert response.status_code == 400, (request, response.text)
                message = response.json()["error"]["message"]
                assert f"'{character}'" in message and part in message, message
            for update in ({"action": "set-location", "location": bad},
                           {"action": "set-properties", "updates": {"write.data.path": bad}},
                           {"action": "set-properties", "updates": {"write.metadata.path": bad}}):
                response = skade_call(server, "POST", "/namespaces/ns/tables/t1",
                                      {"requirements": [], "updates": [update]})
                assert response.status_code == 400, (update, response.text)
        assert skade_call(server, "GET", "/namespaces/ns/tables/bad").status_code == 404
        # Only the sibling's own files, each under its location; no object at its bare root.
        catalog = RestCatalog("skade", uri=server.uri)
        catalog.load_table("ns.t1").append(pa.table({"id": [1, 2]}, schema=LOCATION_SCHEMA))
        keys = object_keys_under(minio, bucket, "wh/ns/")
        assert keys and all(k.startswith("wh/ns/t1/") for k in keys), keys
        assert [r["id"] for r in catalog.load_table("ns.t1").scan().to_arrow().to_pylist()] == [1, 2]
        # A name with them still gets a location, which encodes them.
        created = skade_call(server, "POST", "/namespaces/ns/tables", create_request("t#1?"))
        assert created.status_code == 200, created.text
        assert created.json()["metadata"]["location"] == f"s3://{bucket}/wh/ns/t%231%3F"
    finally:
        assert server.stop() == 0, server.log_path.read_text()


def test_a_data_path_outside_the_allowed_roots_is_forbidden(bin_dir, minio, tmp_path):
    # Review finding: `write.data.path` in another bucket was 200 (the same value for
    # `write.metadata.path` 403): writers with keys of their own put data there, which a purge,
    # deleting only inside the allowed roots, then left behind.
    server = skade_on_s3(bin_dir, minio, tmp_path, "data-path-policy", "none")
    try:
        other = minio.make_bucket("data-path-policy-other")
        assert skade_call(server, "POST", "/namespaces", {"namespace": ["ns"]}).status_code == 200
        outside = f"s3://{other}/anything"
        for key in ("write.data.path", "write.metadata.path"):
            response = skade_call(server, "POST", "/namespaces/ns/tables",
                                  create_request("dp", None, {key: outside}))
            assert response.status_code == 403, (key, response.text)
            assert response.json()["error"]["type"] == "ForbiddenException", response.text
            assert "outside the allowed locations" in response.json()["error"]["message"]
        assert skade_call(server, "GET", "/namespaces/ns/tables/dp").status_code == 404
        assert skade_call(server, "POST", "/namespaces/ns/tables",
                          create_request("t")).status_code == 200
        for key in ("write.data.path", "write.metadata.path"):
            response = skade_call(server, "POST", "/namespaces/ns/tables/t", {
                "requirements": [], "updates": [
                    {"action": "set-properties", "updates": {key: outside}}]})
            assert response.status_code == 403, (key, response.text)
        properties = skade_call(server, "GET", "/namespaces/ns/tables/t").json()["metadata"].get(
            "properties", {})
        assert "write.data.path" not in properties, properties
        assert object_keys_under(minio, other) == []
    finally:
        assert server.stop() == 0, server.log_path.read_text()


def test_vended_credentials_reach_every_root_of_a_table(bin_dir, minio, tmp_path,
                                                        no_ambient_s3_credentials):
    # Review finding: keys were vended for the table's location only, so PyIceberg, given
    # nothing but the catalog's URI, was denied writing to the table's own `write.data.path`.
    server = skade_on_s3(bin_dir, minio, tmp_path, "vend-every-root", "sts")
    try:
        bucket = server.bucket
        location = f"s3://{bucket}/wh/ns/dp2"
        data, metadata = f"{location}-data", f"{location}-meta"
        catalog = RestCatalog("skade", uri=server.uri)  # asks for vended credentials
        catalog.create_namespace("ns")
        table = catalog.create_table("ns.dp2", LOCATION_SCHEMA, properties={
            "write.data.path": data, "write.metadata.path": metadata})
        assert table.location() == location
        table.append(pa.table({"id": [1, 2, 3]}, schema=LOCATION_SCHEMA))
        table = catalog.load_table("ns.dp2")
        assert sorted(r["id"] for r in table.scan().to_arrow().to_pylist()) == [1, 2, 3]
        files = [task.file.file_path for task in table.scan().plan_files()]
        assert files and all(f.startswith(data + "/") for f in files), files
        assert table.metadata_location.startswith(metadata + "/"), table.metadata_location
        assert table.metadata.snapshots[-1].manifest_list.startswith(metadata + "/")

        # One set of keys, under each root's prefix; nothing beside them.
        body = requests.get(f"{server.uri}/v1/namespaces/ns/tables/dp2", timeout=30, headers={
            "X-Iceberg-Access-Delegation": "vended-credentials"}).json()
        credentials = body["storage-credentials"]
        assert [c["prefix"] for c in credentials] == [location, data, metadata], credentials
        assert len({c["config"]["s3.session-token"] for c in credentials}) == 1
        config = credentials[0]["config"]
        s3 = boto3.client(
            "s3", endpoint_url=minio.endpoint, region_name=minio.region,
            aws_access_key_id=config["s3.access-key-id"],
            aws_secret_access_key=config["s3.secret-access-key"],
            aws_session_token=config["s3.session-token"],
            config=botocore.config.Config(signature_version="s3v4",
                                          s3={"addressing_style": "path"},
                                          retries={"max_attempts": 1}))
        for root in (location, data, metadata):
            key = root.removeprefix(f"s3://{bucket}/") + "/probe.bin"
            s3.put_object(Bucket=bucket, Key=key, Body=b"x")
            s3.delete_object(Bucket=bucket, Key=key)
        with pytest.raises(botocore.exceptions.ClientError) as denied:
            s3.put_object(Bucket=bucket, Key="wh/ns/dp2-data2/probe.bin", Body=b"x")
        assert denied.value.response["Error"]["Code"] == "AccessDenied"
    finally:
        assert server.stop() == 0, server.log_path.read_text()


# --- a stalled S3 and the server's own S3 failures -----------------------------------------------


@pytest.fixture
def own_minio(tmp_path):
    """A MinIO of this test's own, which it may freeze (SIGSTOP) without stalling the session's."""
    server = MinioServer(tmp_path / "own-minio")
    try:
        yield server
    finally:
        os.kill(server.pid, signal.SIGCONT)
        server.stop()


def test_a_stalled_s3_leaves_health_and_config_answering(bin_dir, own_minio, tmp_path):
    # Review finding: with MinIO frozen, two loadTable requests of tables the metadata cache did
    # not hold read S3 on both I/O threads for ~4 minutes each (8 attempts × a 30 s stall):
    # /health/live and /v1/config went unanswered meanwhile (a liveness probe would restart the
    # pod), and the loads ended 500 only then. Now a load of an uncached table runs on the handler
    # pool, and one S3 operation ends within s3.operation-timeout-ms (20 s by default).
    warehouse = S3Warehouse(own_minio, tmp_path, "stalled")
    options = ["--threads", "1", "--commit-threads", "4"]

    def start():
        return SkadeServer(bin_dir, warehouse.uri, options, global_args=warehouse.options,
                           env=warehouse.env, log_path=tmp_path / "stalled-server.log")

    server = start()
    try:
        assert skade_call(server, "POST", "/namespaces", {"namespace": ["ns"]}).status_code == 200
        for name in ("a", "b"):
            assert skade_call(server, "POST", "/namespaces/ns/tables",
                              create_request(name)).status_code == 200
    finally:
        assert server.stop() == 0, server.log_path.read_text()
    server = start()  # an empty metadata cache
    try:
        os.kill(own_minio.pid, signal.SIGSTOP)
        loads = {}

        def load(name):
            started = time.monotonic()
            try:
                response = requests.get(f"{server.uri}/v1/namespaces/ns/tables/{name}",
                                        timeout=150)
                loads[name] = (response.status_code, response.text, time.monotonic() - started)
            except requests.RequestException as e:
                loads[name] = (None, repr(e), time.monotonic() - started)

        threads = [threading.Thread(target=load, args=(name,)) for name in ("a", "b")]
        for thread in threads:
            thread.start()
        time.sleep(2)  # both loads are waiting on S3 now
        for path in ("/health/live", "/v1/config"):
            response = requests.get(f"{server.uri}{path}", timeout=10)
            assert response.status_code == 200, (path, response.text)
        for thread in threads:
            thread.join(timeout=160)
        # Each load ends with an error that says why, well before the old four minutes.
        for name in ("a", "b"):
            status, text, seconds = loads[name]
            assert status == 500, (name, status, text)
            assert "did not answer within 20 s" in text, text
            assert seconds < 120, (name, seconds)
        os.kill(own_minio.pid, signal.SIGCONT)
        response = skade_call(server, "GET", "/namespaces/ns/tables/a")
        assert response.status_code == 200, response.text
    finally:
        os.kill(own_minio.pid, signal.SIGCONT)
        assert server.stop() == 0, server.log_path.read_text()


def test_the_servers_own_s3_credential_failures_are_server_errors(bin_dir, minio, tmp_path):
    # Review finding: skade started with a wrong AWS_SECRET_ACCESS_KEY answered a create with
    # 403 ForbiddenException (SignatureDoesNotMatch), logged at INFO; with STS vending, a load
    # asking for credentials got 403 too. No client can fix the server's keys: a 5xx, an ERROR.
    warehouse = S3Warehouse(minio, tmp_path, "wrong-server-secret")
    env = dict(warehouse.env, AWS_SECRET_ACCESS_KEY="wrong-secret-0123456789")
    server = SkadeServer(bin_dir, warehouse.uri, ["--vend-credentials", "sts"],
                         global_args=warehouse.options, env=env, quiet=False,
                         log_path=tmp_path / "wrong-secret-server.log")
    try:
        assert skade_call(server, "POST", "/namespaces", {"namespace": ["ns"]}).status_code == 200
        response = skade_call(server, "POST", "/namespaces/ns/tables", create_request("t"))
        assert response.status_code == 500, response.text
        error = response.json()["error"]
        assert error["type"] == "ServiceFailureException", error
        assert "SignatureDoesNotMatch" in error["message"], error
        assert "wrong-secret" not in response.text
        log = server.log_path.read_text()
        lines = [line for line in log.splitlines() if "/v1/namespaces/ns/tables " in line]
        assert lines and all(line.startswith("ERROR") for line in lines), log
    finally:
        assert server.stop() == 0, server.log_path.read_text()
