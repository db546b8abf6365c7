"""Token authentication: `skade serve --auth token` with OAuth2 client
credentials, used by PyIceberg (`credential=`) and Spark (`credential`)."""
import os
import time

import pytest
import requests
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, OAuthError, UnauthorizedError

from conftest import SkadeServer, spark_runtime_jar

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


def test_spark_with_credentials(auth_server):
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]").appName("skade-auth")
        .config("spark.driver.memory", "1g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.jars", spark_runtime_jar())
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
