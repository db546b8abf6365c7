"""The request log of `skade serve --log-format json`: one JSON object per request on stderr,
with the request id every response carries in X-Request-ID, the cause of an error, and never a
secret (OAuth client secret, bearer token, query credentials), with real PyIceberg and plain
HTTP clients."""
import http.client
import json
import re
import subprocess
from urllib.parse import urlparse

import pytest
import requests
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import NoSuchTableError

from conftest import SkadeServer

SECRET = "s3cr3t-client-do-not-log"
RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def log_lines(server):
    """The server's stderr: (JSON objects, other lines). Only skade serve's own start and stop
    messages may be plain text."""
    objects, text = [], []
    for line in server.log_path.read_text().splitlines():
        if line.startswith("{"):
            objects.append(json.loads(line))  # fails the test if not JSON
        else:
            text.append(line)
    return objects, text


def test_json_request_log(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse",
                         ["--log-format", "json", "--auth", "token",
                          "--oauth-client", f"writer:{SECRET}"], quiet=False)
    try:
        issued = requests.post(f"{server.uri}/v1/oauth/tokens", data={
            "grant_type": "client_credentials", "client_id": "writer", "client_secret": SECRET,
            "scope": "catalog"}, headers={"X-Request-ID": "token-1"}, timeout=30)
        assert issued.status_code == 200
        assert issued.headers["X-Request-ID"] == "token-1"
        bearer = issued.json()["access_token"]
        auth = {"Authorization": f"Bearer {bearer}"}

        # PyIceberg: the OAuth flow (client secret in a form body), then calls with a token.
        catalog = RestCatalog("skade", uri=server.uri, credential=f"writer:{SECRET}")
        catalog.create_namespace("logs")
        with pytest.raises(NoSuchTableError):
            catalog.load_table("logs.missing_table")

        # Plain HTTP: ids given, refused and absent; a query with a credential in it.
        given = requests.get(f"{server.uri}/v1/config?token=QUERY-{bearer}",
                             headers={**auth, "X-Request-ID": "client-chosen.1"}, timeout=30)
        assert given.status_code == 200
        assert given.headers["X-Request-ID"] == "client-chosen.1"
        hostile = requests.get(f"{server.uri}/v1/namespaces",
                               headers={**auth, "X-Request-ID": 'x"},{"status":1'}, timeout=30)
        assert hostile.status_code == 200
        assert UUID.match(hostile.headers["X-Request-ID"])
        missing = requests.get(f"{server.uri}/v1/namespaces/logs/tables/nope", headers=auth,
                               timeout=30)
        assert missing.status_code == 404
        missing_id = missing.headers["X-Request-ID"]
        assert UUID.match(missing_id)
        anonymous = requests.get(f"{server.uri}/v1/namespaces", timeout=30)
        assert anonymous.status_code == 401
        # A path no route has, with bytes a client may put there.
        # (http.client sends the target as given; requests would percent-encode it.)
        connection = http.client.HTTPConnection(urlparse(server.uri).netloc, timeout=30)
        connection.request("GET", '/v1/"odd\\path', headers=auth)
        assert connection.getresponse().status == 404
        connection.close()
    finally:
        assert server.stop() == 0

    objects, text = log_lines(server)
    assert all(line.startswith("skade serve: ") for line in text), text
    requests_logged = [o for o in objects if o.get("msg") == "request"]
    by_id = {o["request_id"]: o for o in requests_logged}
    for o in requests_logged:
        assert RFC3339_MS.match(o["ts"]), o
        assert o["level"] in ("info", "error")
        assert isinstance(o["status"], int) and isinstance(o["duration_ms"], (int, float))
        assert "?" not in o["path"], o
        assert ("error" in o) == (o["status"] >= 400), o

    assert by_id["token-1"]["route"] == "v1/oauth/tokens"
    assert by_id["client-chosen.1"]["path"] == "/v1/config"
    assert by_id[hostile.headers["X-Request-ID"]]["status"] == 200
    miss = by_id[missing_id]
    assert miss["status"] == 404
    assert miss["route"] == "v1/{prefix}/namespaces/{namespace}/tables/{table}"
    assert "nope" in miss["error"]
    # PyIceberg's failing load: logged with its cause.
    assert any(o["status"] == 404 and "missing_table" in o["error"] for o in requests_logged)
    assert any(o["status"] == 401 and o["error"] == "Not authorized: missing bearer token"
               for o in requests_logged)
    assert any(o["path"] == '/v1/"odd\\path' and "route" not in o for o in requests_logged)

    log = server.log_path.read_text()
    assert SECRET not in log
    assert bearer not in log
    assert "QUERY-" not in log


def test_text_request_log_has_id_route_and_cause(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse", quiet=False)
    try:
        response = requests.get(f"{server.uri}/v1/namespaces/none",
                                headers={"X-Request-ID": "text-404"}, timeout=30)
        assert response.status_code == 404
        assert response.headers["X-Request-ID"] == "text-404"
    finally:
        assert server.stop() == 0
    lines = [line for line in server.log_path.read_text().splitlines() if "text-404" in line]
    assert len(lines) == 1
    assert re.fullmatch(r'INFO http GET /v1/namespaces/none 404 \d+us request_id=text-404 '
                        r'route=v1/\{prefix\}/namespaces/\{namespace\} error=".*none.*"',
                        lines[0]), lines[0]


def test_unknown_log_format_is_refused(bin_dir, tmp_path):
    proc = subprocess.run(
        [str(bin_dir / "skade"), "--warehouse", str(tmp_path / "warehouse"), "serve", "--port",
         "0", "--log-format", "xml"], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "Unknown --log-format 'xml' (expected text or json)" in proc.stderr
