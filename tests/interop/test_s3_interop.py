"""Real clients against `skade serve` on an S3 warehouse (the session's MinIO,
tests/interop/s3_fixtures.py), each given nothing but the catalog's URI, and the
X-Iceberg-Access-Delegation header where the client does not send it by itself
(Spark; PyIceberg and DuckDB do): the S3 endpoint, region, path style and keys all
come from the catalog. Then the `skade` CLI on S3, temporary STS credentials that
reach only their table's location, and hostile locations.

Every test has its own bucket and catalog store. This process holds no S3
credentials while these tests run (`no_ambient_credentials`); only boto3, with
MinIO's root keys or vended ones, lists and probes the buckets.

DuckDB is 1.5.5 in a subprocess (tests/interop/duckdb_client.py says why).
"""
import json
import os
import re
import subprocess

import boto3
import botocore.config
import botocore.exceptions
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import requests
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.table import StaticTable

from conftest import SkadeServer, spark_session
from duckdb_client import run_duckdb
from s3_fixtures import AMBIENT_CREDENTIALS, S3Warehouse

DELEGATION = {"X-Iceberg-Access-Delegation": "vended-credentials"}

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def batch(*ids):
    return pa.table({"id": list(ids), "name": [f"n{i}" for i in ids]}, schema=SCHEMA)


def rows(table):
    return sorted((r["id"], r["name"]) for r in table.scan().to_arrow().to_pylist())


@pytest.fixture(scope="module", autouse=True)
def no_ambient_credentials():
    """No S3 credentials in this process's environment (nor a profile or the EC2 metadata
    service) for the module's duration, Spark's JVM included if it starts here: a client that
    reaches S3 has its keys from the catalog, or from the test in so many words."""
    with pytest.MonkeyPatch.context() as patch:
        for name in AMBIENT_CREDENTIALS:
            patch.delenv(name, raising=False)
        patch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
        patch.setenv("AWS_CONFIG_FILE", os.devnull)
        patch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        yield


def s3_client(minio, access_key=None, secret_key=None, session_token=None):
    """boto3 on MinIO, with its root keys unless others are given."""
    return boto3.client(
        "s3", endpoint_url=minio.endpoint, region_name=minio.region,
        aws_access_key_id=access_key or minio.access_key,
        aws_secret_access_key=secret_key or minio.secret_key, aws_session_token=session_token,
        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


def object_keys(minio, bucket, prefix=""):
    pages = s3_client(minio).get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


def key_of(location, bucket):
    assert location.startswith(f"s3://{bucket}/"), location
    return location.removeprefix(f"s3://{bucket}/")


def start_server(bin_dir, minio, directory, bucket, vend, extra_args=()):
    warehouse = S3Warehouse(minio, directory, bucket)
    server = SkadeServer(bin_dir, warehouse.uri, ["--vend-credentials", vend, *extra_args],
                         global_args=warehouse.options, env=warehouse.env,
                         log_path=directory / f"{bucket}-server.log")
    server.bucket = warehouse.bucket
    return server


@pytest.fixture
def serve(bin_dir, minio, tmp_path):
    """serve(bucket, vend) → `skade serve` on a new bucket's warehouse, stopped after the test."""
    servers = []

    def start(bucket, vend="static"):
        servers.append(start_server(bin_dir, minio, tmp_path, bucket, vend))
        return servers[-1]

    yield start
    exits = [(server, server.stop()) for server in servers]
    for server, code in exits:
        assert code == 0, f"skade serve exited {code}:\n{server.log_path.read_text()}"


def rest(server, method, path, body=None, vended=False):
    return requests.request(method, f"{server.uri}/v1{path}", json=body,
                            headers=DELEGATION if vended else {}, timeout=30)


def create_table_request(name, location=None):
    body = {"name": name, "schema": {"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"}]}}
    if location is not None:
        body["location"] = location
    return body


def assert_table_objects(minio, bucket, table):
    """Every data file, manifest list and metadata file of `table` is an object in `bucket`
    under the table's location."""
    present = {f"s3://{bucket}/{k}" for k in object_keys(minio, bucket)}
    location = table.location()
    files = {task.file.file_path for task in table.scan().plan_files()}
    files |= {s.manifest_list for s in table.metadata.snapshots}
    files |= {entry.metadata_file for entry in table.metadata.metadata_log}
    files.add(table.metadata_location)
    assert files <= present, sorted(files - present)
    assert all(f.startswith(location + "/") for f in files), sorted(files)
    return files


# --- PyIceberg ----------------------------------------------------------------------------------


def test_pyiceberg_with_only_the_uri(serve, minio):
    server = serve("pyiceberg-vended", vend="static")
    bucket = server.bucket
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("shop")
    table = catalog.create_table("shop.orders", SCHEMA)
    location = f"s3://{bucket}/wh/shop/orders"
    assert table.location() == location
    table.append(batch(1, 2, 3))
    table.append(batch(4, 5))
    assert rows(table) == [(i, f"n{i}") for i in (1, 2, 3, 4, 5)]
    table.overwrite(batch(10, 11, 12))
    table.delete("id = 11")

    loaded = catalog.load_table("shop.orders")
    assert rows(loaded) == [(10, "n10"), (12, "n12")]
    assert loaded.metadata_location.startswith(f"{location}/metadata/")
    operations = [s.summary.operation.value for s in loaded.metadata.snapshots]
    assert operations[:2] == ["append", "append"], operations
    assert loaded.current_snapshot().summary["total-records"] == "2"
    files = assert_table_objects(minio, bucket, loaded)
    assert any(f.startswith(f"{location}/data/") and f.endswith(".parquet") for f in files)
    # Only the table: nothing else of skade's or PyIceberg's in the bucket.
    assert all(k.startswith("wh/shop/orders/") for k in object_keys(minio, bucket))

    # The secret travels only to a client that asks for it.
    config = rest(server, "GET", "/config")
    assert config.status_code == 200 and minio.secret_key not in config.text
    assert config.json()["defaults"]["s3.endpoint"] == minio.endpoint
    plain = rest(server, "GET", "/namespaces/shop/tables/orders")
    assert plain.status_code == 200, plain.text
    assert minio.secret_key not in plain.text and not plain.json().get("storage-credentials")
    vended = rest(server, "GET", "/namespaces/shop/tables/orders", vended=True).json()
    assert vended["config"]["s3.access-key-id"] == minio.access_key
    assert vended["config"]["s3.secret-access-key"] == minio.secret_key
    assert [c["prefix"] for c in vended["storage-credentials"]] == [location]
    loaded_credentials = rest(server, "GET", "/namespaces/shop/tables/orders/credentials").json()
    assert loaded_credentials["storage-credentials"] == vended["storage-credentials"]


def test_pyiceberg_with_its_own_keys_and_no_vending(serve, minio):
    server = serve("pyiceberg-own-keys", vend="none")
    catalog = RestCatalog("skade", uri=server.uri, **{
        "s3.access-key-id": minio.access_key, "s3.secret-access-key": minio.secret_key})
    catalog.create_namespace("shop")
    table = catalog.create_table("shop.orders", SCHEMA)
    table.append(batch(1, 2))
    table.append(batch(3))
    assert rows(catalog.load_table("shop.orders")) == [(1, "n1"), (2, "n2"), (3, "n3")]
    assert_table_objects(minio, server.bucket, catalog.load_table("shop.orders"))

    # Asking for credentials from a server that vends none gets the storage settings only.
    for vended in (False, True):
        response = rest(server, "GET", "/namespaces/shop/tables/orders", vended=vended)
        assert response.status_code == 200, response.text
        assert minio.secret_key not in response.text and minio.access_key not in response.text
        assert response.json()["config"]["s3.endpoint"] == minio.endpoint
        assert not response.json().get("storage-credentials")
    credentials = rest(server, "GET", "/namespaces/shop/tables/orders/credentials", vended=True)
    assert credentials.status_code == 200 and minio.secret_key not in credentials.text


# --- Spark, and the server crash it runs into -----------------------------------------------



def post_metrics(server, table, fields):
    """A scan report with `fields` metrics: a body whose size the test chooses."""
    namespace, name = table.split(".")
    report = {"report-type": "scan-report", "table-name": table, "snapshot-id": 1,
              "filter": True, "schema-id": 0, "projected-field-ids": [1],
              "projected-field-names": ["id"],
              "metrics": {f"m{i}": {"unit": "count", "value": i} for i in range(fields)}}
    return rest(server, "POST", f"/namespaces/{namespace}/tables/{name}/metrics", report)


@pytest.mark.parametrize("warehouse", ["local", "s3"])
def test_serve_survives_a_larger_request_body(bin_dir, minio, tmp_path, warehouse):
    """One I/O thread, two metrics reports, the second the larger: what Spark does. Regression:
    skade once linked pyarrow's libparquet before Debian's libsimdjson, so --as-needed dropped
    libsimdjson, its simdjson calls landed in libparquet's copy (another version), and the server
    died with SIGSEGV as soon as a thread's parser had to grow."""
    if warehouse == "s3":
        server = start_server(bin_dir, minio, tmp_path, "larger-body", "none", ["--threads", "1"])
    else:
        server = SkadeServer(bin_dir, tmp_path / "warehouse", ["--threads", "1"])
    try:
        assert rest(server, "POST", "/namespaces", {"namespace": ["ns"]}).status_code == 200
        assert rest(server, "POST", "/namespaces/ns/tables",
                    create_table_request("t")).status_code == 200
        assert post_metrics(server, "ns.t", 0).status_code == 204
        assert post_metrics(server, "ns.t", 100).status_code == 204
    finally:
        code = server.stop()
    assert code == 0, f"skade serve exited {code}:\n{server.log_path.read_text()}"


def test_spark_with_vended_credentials(bin_dir, minio, tmp_path):
    """Spark with the REST catalog's URI and the delegation header, and no S3 settings at all.
    The server and the session are the test's own, so that the server's exit code is checked
    inside the test."""
    server = start_server(bin_dir, minio, tmp_path, "spark-vended", "static")
    spark = None
    try:
        spark = spark_session(server.uri, "skade-s3-interop", catalog_options={
            "header.X-Iceberg-Access-Delegation": "vended-credentials"})
        spark_writes_and_reads(spark, server, minio)
    finally:
        if spark is not None:
            spark.stop()
        code = server.stop()
    assert code == 0, f"skade serve exited {code}:\n{server.log_path.read_text()}"


def spark_rows(spark, sql):
    return [tuple(r) for r in spark.sql(sql).collect()]


def spark_writes_and_reads(spark, server, minio):
    bucket = server.bucket
    spark.sql("CREATE NAMESPACE sales")
    spark.sql("""CREATE TABLE sales.orders (id BIGINT, region STRING, amount DOUBLE)
                 USING iceberg PARTITIONED BY (region)""")
    spark.sql("""INSERT INTO sales.orders VALUES
                 (1, 'eu', 10.0), (2, 'us', 20.0), (3, 'eu', 30.0), (4, 'ap', 40.0)""")
    assert spark_rows(spark, "SELECT id, region, amount FROM sales.orders ORDER BY id") == [
        (1, "eu", 10.0), (2, "us", 20.0), (3, "eu", 30.0), (4, "ap", 40.0)]
    spark.sql("DELETE FROM sales.orders WHERE id = 3")
    spark.sql("""CREATE OR REPLACE TEMPORARY VIEW changes AS
                 SELECT * FROM VALUES (1, 'eu', 11.0), (5, 'us', 50.0) AS t(id, region, amount)""")
    spark.sql("""MERGE INTO sales.orders o USING changes c ON o.id = c.id
                 WHEN MATCHED THEN UPDATE SET o.amount = c.amount
                 WHEN NOT MATCHED THEN INSERT *""")
    expected = [(1, "eu", 11.0), (2, "us", 20.0), (4, "ap", 40.0), (5, "us", 50.0)]
    assert spark_rows(spark, "SELECT id, region, amount FROM sales.orders ORDER BY id") == expected

    # Spark's files are in the bucket under the table's location, partitioned as declared.
    data = object_keys(minio, bucket, "wh/sales/orders/data/")
    assert {re.match(r"wh/sales/orders/data/(region=[a-z]+)/", k).group(1) for k in data} == {
        "region=eu", "region=us", "region=ap"}
    assert all(k.endswith(".parquet") for k in data), data
    metadata = object_keys(minio, bucket, "wh/sales/orders/metadata/")
    assert any(k.endswith(".metadata.json") for k in metadata), metadata
    assert all(k.startswith("wh/sales/orders/") for k in object_keys(minio, bucket))

    # PyIceberg, with only the URI, reads what Spark wrote, and every file is where it says.
    table = RestCatalog("skade", uri=server.uri).load_table("sales.orders")
    assert sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist()) == expected
    assert_table_objects(minio, bucket, table)


# --- DuckDB -------------------------------------------------------------------------------------

def test_duckdb_reads_and_writes_with_vended_credentials(serve, minio):
    server = serve("duckdb-vended", vend="static")
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("shop")
    table = catalog.create_table("shop.items", SCHEMA)
    table.append(batch(1, 2, 3))
    before = set(object_keys(minio, server.bucket))

    version, results = run_duckdb(
        server.uri, "SELECT id, name FROM sk.shop.items ORDER BY id",
        "INSERT INTO sk.shop.items VALUES (100, 'from duckdb'), (101, 'from duckdb')",
        "SELECT id, name FROM sk.shop.items ORDER BY id")
    assert version == "1.5.5"
    assert results[0] == {"rows": [[1, "n1"], [2, "n2"], [3, "n3"]]}
    assert "error" not in results[1], results[1]
    assert results[2] == {"rows": [[1, "n1"], [2, "n2"], [3, "n3"], [100, "from duckdb"],
                                   [101, "from duckdb"]]}

    table = catalog.load_table("shop.items")
    assert rows(table) == [(1, "n1"), (2, "n2"), (3, "n3"), (100, "from duckdb"),
                           (101, "from duckdb")]
    added = set(object_keys(minio, server.bucket)) - before
    assert any(k.startswith("wh/shop/items/") and k.endswith(".parquet") for k in added), added
    assert all(k.startswith("wh/shop/items/") for k in added), added
    assert_table_objects(minio, server.bucket, table)


# --- the CLI ------------------------------------------------------------------------------------


def write_parquet(path, ids):
    pq.write_table(batch(*ids), path)
    return path


def test_cli_on_s3(bin_dir, minio, tmp_path):
    warehouse = S3Warehouse(minio, tmp_path, "cli-tables")
    bucket = warehouse.bucket
    global_options = ["--warehouse", warehouse.uri, *warehouse.options]

    def skade(*args, check=True, input=None, options=global_options, env=warehouse.env):
        proc = subprocess.run([str(bin_dir / "skade"), *options, *map(str, args)],
                              capture_output=True, text=True, input=input, timeout=120, env=env)
        if check:
            assert proc.returncode == 0, f"skade {' '.join(map(str, args))}:\n{proc.stderr}"
        return proc

    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"}]}))
    inputs = [write_parquet(tmp_path / f"in{i}.parquet", range(10 * i, 10 * i + 10))
              for i in range(4)]

    skade("ns", "create", "db")
    skade("table", "create", "db.events", "--schema", schema)
    skade("ingest", "db.events", inputs[0])
    skade("ingest", "--overlap", "db.events", inputs[1])
    skade("ingest", "--coalesce", "db.events", inputs[2], inputs[3])
    skade("ingest", "--stream", "db.events",
          input='{"id": 100, "name": "s100"}\n{"id": 101, "name": "s101"}\n')

    history = skade("table", "history", "db.events").stdout
    snapshot_lines = history.split("metadata versions:")[0].splitlines()[1:]
    snapshots = [int(re.search(r"\s(\d+)\s+parent=", line).group(1)) for line in snapshot_lines]
    assert 4 <= len(snapshots) <= 5, history  # the coalescer may join the two files' commits
    assert snapshot_lines[-1].rstrip().endswith("total-records=42"), history
    assert f"s3://{bucket}/wh/db/events/metadata/" in history

    s3_properties = {"s3.endpoint": minio.endpoint, "s3.access-key-id": minio.access_key,
                     "s3.secret-access-key": minio.secret_key, "s3.region": minio.region}
    at = json.loads(skade("table", "at", "db.events", snapshots[1], "--json").stdout)
    assert at["metadata"]["current-snapshot-id"] == snapshots[1]
    assert rows(StaticTable.from_metadata(at["metadata-location"], s3_properties)) == [
        (i, f"n{i}") for i in range(20)]
    current = json.loads(skade("table", "describe", "db.events", "--json").stdout)
    events = StaticTable.from_metadata(current["metadata-location"], s3_properties)
    assert rows(events) == [(i, f"n{i}") for i in range(40)] + [(100, "s100"), (101, "s101")]
    assert_table_objects(minio, bucket, events)

    # Drop with purge deletes that table's objects and nothing beside them: not those of a table
    # whose name starts with the same letters, nor an object under a sibling prefix.
    skade("ingest", "--create", "db.events2", inputs[0])
    s3_client(minio).put_object(Bucket=bucket, Key="wh/db/events-backup/keep.txt", Body=b"keep")
    before = object_keys(minio, bucket)
    assert any(k.startswith("wh/db/events/") for k in before)
    skade("table", "drop", "--purge", "db.events")
    after = object_keys(minio, bucket)
    assert after == [k for k in before if not k.startswith("wh/db/events/")]
    assert "wh/db/events-backup/keep.txt" in after
    assert any(k.startswith("wh/db/events2/data/") for k in after)
    assert skade("table", "list", "db").stdout.split() == ["db.events2"]

    # An s3:// warehouse without --store says that --store is what is missing.
    no_store = skade("ns", "list", check=False,
                     options=["--warehouse", warehouse.uri, "--s3-endpoint", minio.endpoint])
    assert no_store.returncode != 0 and "--store" in no_store.stderr, no_store.stderr

    # A wrong secret: a one-line S3 error, without the secret (wrong or right).
    wrong_secret = "wrong-secret-0123456789"
    denied = skade("table", "create", "db.denied", "--schema", schema, check=False,
                   env=dict(warehouse.env, AWS_SECRET_ACCESS_KEY=wrong_secret))
    assert denied.returncode == 1, denied
    output = denied.stdout + denied.stderr
    assert "403" in output and "SignatureDoesNotMatch" in output, output
    assert wrong_secret not in output and minio.secret_key not in output, output
    assert len(denied.stderr.strip().splitlines()) == 1, output
    assert "db.denied" not in skade("table", "list", "db").stdout

    # A location in another bucket is refused.
    other = minio.make_bucket("cli-tables-other")
    outside = skade("table", "create", "db.outside", "--schema", schema, "--location",
                    f"s3://{other}/wh/db/outside", check=False)
    assert outside.returncode != 0 and "Forbidden" in outside.stderr, outside.stderr
    assert object_keys(minio, other) == []


# --- vended STS credentials ---------------------------------------------------------------------



def assert_denied(call):
    with pytest.raises(botocore.exceptions.ClientError) as error:
        call()
    assert error.value.response["Error"]["Code"] == "AccessDenied", error.value.response


def test_sts_credentials_reach_only_their_table(serve, minio):
    server = serve("sts-vended", vend="sts")
    bucket = server.bucket
    other_bucket = minio.make_bucket("sts-vended-other")
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("lab")
    mine = catalog.create_table("lab.mine", SCHEMA)
    mine.append(batch(1, 2))
    mine.append(batch(3))
    theirs = catalog.create_table("lab.theirs", SCHEMA)
    theirs.append(batch(7))
    assert rows(catalog.load_table("lab.mine")) == [(1, "n1"), (2, "n2"), (3, "n3")]
    assert_table_objects(minio, bucket, catalog.load_table("lab.mine"))

    body = rest(server, "GET", "/namespaces/lab/tables/mine", vended=True).json()
    config = body["config"]
    assert config["s3.session-token"]
    assert config["s3.access-key-id"] not in ("", minio.access_key)
    assert config["s3.secret-access-key"] not in ("", minio.secret_key)
    assert [c["prefix"] for c in body["storage-credentials"]] == [mine.location()]
    assert body["storage-credentials"][0]["config"]["s3.session-token"]
    plain = rest(server, "GET", "/namespaces/lab/tables/mine")
    assert config["s3.session-token"] not in plain.text and minio.secret_key not in plain.text

    s3 = s3_client(minio, config["s3.access-key-id"], config["s3.secret-access-key"],
                   config["s3.session-token"])
    own = key_of(mine.location(), bucket)
    s3.put_object(Bucket=bucket, Key=f"{own}/data/probe.bin", Body=b"mine")
    assert s3.get_object(Bucket=bucket, Key=f"{own}/data/probe.bin")["Body"].read() == b"mine"
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=f"{own}/")
    assert f"{own}/data/probe.bin" in [o["Key"] for o in listed["Contents"]]
    s3.delete_object(Bucket=bucket, Key=f"{own}/data/probe.bin")
    metadata_key = key_of(mine.metadata_location, bucket)
    assert s3.get_object(Bucket=bucket, Key=metadata_key)["Body"].read()

    other_table = key_of(theirs.location(), bucket)
    theirs_metadata = key_of(catalog.load_table("lab.theirs").metadata_location, bucket)
    assert_denied(lambda: s3.get_object(Bucket=bucket, Key=theirs_metadata))
    assert_denied(lambda: s3.put_object(Bucket=bucket, Key=f"{other_table}/data/x.bin", Body=b"x"))
    assert_denied(lambda: s3.delete_object(Bucket=bucket, Key=theirs_metadata))
    assert_denied(lambda: s3.list_objects_v2(Bucket=bucket, Prefix=f"{other_table}/"))
    # A sibling prefix that starts with the table's name, and another bucket.
    assert_denied(lambda: s3.put_object(Bucket=bucket, Key=f"{own}2/data/x.bin", Body=b"x"))
    assert_denied(lambda: s3.put_object(Bucket=other_bucket, Key=f"{own}/x.bin", Body=b"x"))
    assert object_keys(minio, other_bucket) == []
    assert rows(catalog.load_table("lab.theirs")) == [(7, "n7")]

    credentials = rest(server, "GET", "/namespaces/lab/tables/theirs/credentials").json()
    [theirs_credentials] = credentials["storage-credentials"]
    assert theirs_credentials["prefix"] == theirs.location()
    assert theirs_credentials["config"]["s3.session-token"]

    # A table whose name starts with mine's: listing mine's bare prefix would list its keys.
    sibling = catalog.create_table("lab.mine2", SCHEMA)
    sibling.append(batch(8))
    assert_denied(lambda: s3.list_objects_v2(Bucket=bucket, Prefix=own))
    # A policy reads '*' and '?' as wildcards and '$' as a variable: a table named "*" gets a
    # location without one, and no keys are vended for a location a client chose with one.
    star = catalog.create_table("lab.*", SCHEMA)
    assert star.location().endswith("/lab/%2A"), star.location()
    star_config = rest(server, "GET", "/namespaces/lab/tables/*", vended=True).json()["config"]
    star_s3 = s3_client(minio, star_config["s3.access-key-id"], star_config["s3.secret-access-key"],
                        star_config["s3.session-token"])
    assert_denied(lambda: star_s3.get_object(Bucket=bucket, Key=metadata_key))
    wildcard = f"{mine.location()}-st*r"
    created = rest(server, "POST", "/namespaces/lab/tables", create_table_request("w", wildcard))
    assert created.status_code == 200, created.text
    refused = rest(server, "GET", "/namespaces/lab/tables/w", vended=True)
    assert refused.status_code == 403, refused.text
    assert "wildcard" in refused.json()["error"]["message"], refused.text


# --- hostile input ------------------------------------------------------------------------------


def test_hostile_locations_are_refused(serve, minio):
    server = serve("hostile-wh", vend="static")
    bucket = server.bucket
    other = minio.make_bucket("hostile-other")
    assert rest(server, "POST", "/namespaces", {"namespace": ["ns"]}).status_code == 200

    refused = {
        f"s3://{bucket}/../{other}": 400,
        f"s3://{bucket}/wh/ns/../../elsewhere": 400,
        "s3://UPPER/x": 400,
        f"s3a://{other}/wh/ns/t": 403,
        f"s3a://{bucket}/wh/ns/t": 403,  # not the warehouse's scheme
        f"s3://{other}/wh/ns/t": 403,
        f"s3://{bucket}/wh-sibling/t": 403,
        f"s3://{bucket}": 403,
        "s3:///wh/ns/t": 400,
    }
    for i, (location, status) in enumerate(refused.items()):
        response = rest(server, "POST", "/namespaces/ns/tables",
                        create_table_request(f"t{i}", location))
        assert response.status_code == status, (location, response.status_code, response.text)
        if status == 403:
            assert response.json()["error"]["type"] == "ForbiddenException", response.text
    assert rest(server, "GET", "/namespaces/ns/tables").json()["identifiers"] == []

    # A real table, then its metadata file copied to another bucket and a copy inside the
    # warehouse that claims a location in the other bucket: neither can be registered.
    real = rest(server, "POST", "/namespaces/ns/tables", create_table_request("real"))
    assert real.status_code == 200, real.text
    s3 = s3_client(minio)
    metadata = s3.get_object(Bucket=bucket, Key=key_of(real.json()["metadata-location"], bucket))
    metadata = json.loads(metadata["Body"].read())
    s3.put_object(Bucket=other, Key="stolen/metadata/00000-x.metadata.json",
                  Body=json.dumps(metadata).encode())
    s3.put_object(Bucket=bucket, Key="wh/ns/crafted/metadata/00000-x.metadata.json",
                  Body=json.dumps(dict(metadata, location=f"s3://{other}/stolen")).encode())
    for i, metadata_location in enumerate([
            f"s3://{other}/stolen/metadata/00000-x.metadata.json",
            f"s3://{bucket}/wh/ns/crafted/metadata/00000-x.metadata.json"]):
        response = rest(server, "POST", "/namespaces/ns/register",
                        {"name": f"registered{i}", "metadata-location": metadata_location})
        assert 400 <= response.status_code < 500, (metadata_location, response.text)

    # A commit that moves the table to the other bucket is refused too.
    moved = rest(server, "POST", "/namespaces/ns/tables/real", {
        "requirements": [], "updates": [{"action": "set-location", "location": f"s3://{other}/x"}]})
    assert moved.status_code == 403, moved.text
    assert rest(server, "GET", "/namespaces/ns/tables/real").json()["metadata"]["location"] == (
        f"s3://{bucket}/wh/ns/real")
    tables = rest(server, "GET", "/namespaces/ns/tables").json()["identifiers"]
    assert [t["name"] for t in tables] == ["real"], tables
    assert object_keys(minio, other) == ["stolen/metadata/00000-x.metadata.json"]
