"""The change feed while real PyIceberg writers commit through `skade serve`: a
follower paging GET /v1/skade/changes and `skade changes --follow --json` each
see every commit once, in order, with who made it; a follower behind the
retention gets 410 and where to resume, and so does one whose position a restore from a backup
replaced; hostile positions get 400."""
import json
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from conftest import SkadeServer

SECRET = "feed-s3cret"
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False))
WRITERS = 4
APPENDS_EACH = 8


@pytest.fixture
def server(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse",
                         ["--auth", "token", "--oauth-client", f"writer:{SECRET}"])
    yield server
    assert server.stop() == 0, server.log_path.read_text()


def token(server):
    body = f"grant_type=client_credentials&client_id=writer&client_secret={SECRET}".encode()
    request = urllib.request.Request(f"{server.uri}/v1/oauth/tokens", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["access_token"]


def get(server, query, bearer):
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    request = urllib.request.Request(f"{server.uri}/v1/skade/changes?{query}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def follow_rest(server, bearer, stop, events):
    """Pages the feed from the start until `stop` is set and a page is empty."""
    since = 0
    while True:
        done = stop.is_set()
        status, page = get(server, f"since={since}&pageSize=3", bearer)
        assert status == 200, page
        for event in page["events"]:
            events.append(event)
        since = page["next-since"]
        if done and not page["events"]:
            return
        if not page["events"]:
            time.sleep(0.05)


def check_feed(events, snapshot_ids, tables):
    seqs = [e["sequence-number"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "out of order or repeated"
    assert [e["event-id"] for e in events] == [str(s) for s in seqs]
    added = [s["snapshot-id"] for e in events for s in e["operation"]["snapshots"]]
    assert sorted(added) == sorted(snapshot_ids), "a commit missed or repeated"
    creates = [e for e in events if e["operation"]["operation-type"] == "create-table"]
    assert sorted(e["operation"]["identifier"]["name"] for e in creates) == sorted(tables)
    for event in events:
        assert event["actor"]["principal"] == "writer", event
        assert event["request-id"], event
        assert event["operation"]["metadata-location"].endswith(".metadata.json")
        assert event["timestamp-ms"] > 0


def test_followers_see_every_commit_once_under_concurrent_writers(server, bin_dir):
    catalog = RestCatalog("skade", uri=server.uri, credential=f"writer:{SECRET}")
    catalog.create_namespace("feed")
    bearer = token(server)

    stop = threading.Event()
    rest_events = []
    rest_error = []

    def rest_follower():
        try:
            follow_rest(server, bearer, stop, rest_events)
        except BaseException as error:  # reported by the test thread
            rest_error.append(error)

    follower = threading.Thread(target=rest_follower)
    follower.start()
    cli = subprocess.Popen(
        [str(bin_dir / "skade"), "--warehouse", str(server.warehouse), "changes", "--follow",
         "--json", "--poll-interval", "50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    tables = [f"t{i}" for i in range(WRITERS // 2)]
    for name in tables:
        catalog.create_table(f"feed.{name}", schema=SCHEMA)

    failures = []

    def writer(index):
        try:
            own = RestCatalog("skade", uri=server.uri, credential=f"writer:{SECRET}")
            table = own.load_table(f"feed.{tables[index % len(tables)]}")
            for i in range(APPENDS_EACH):
                while True:
                    try:
                        table.append(pa.table({"id": pa.array([index * 1000 + i], pa.int64())}))
                        break
                    except Exception as error:  # a conflict the server did not rebase: retry
                        if "CommitFailed" not in type(error).__name__:
                            raise
                        table = own.load_table(table.name())
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures

    stop.set()
    follower.join(timeout=120)
    assert not follower.is_alive()
    assert not rest_error, rest_error

    snapshot_ids = [s.snapshot_id for name in tables
                    for s in catalog.load_table(f"feed.{name}").metadata.snapshots]
    assert len(snapshot_ids) == WRITERS * APPENDS_EACH
    check_feed(rest_events, snapshot_ids, tables)

    # The CLI follower: wait (generously) for it to reach the last commit, then
    # Ctrl-C; it ends with the position to resume from.
    last = rest_events[-1]["sequence-number"]
    cli_events = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = cli.stdout.readline()
        if not line:
            break
        cli_events.append(json.loads(line))
        if cli_events[-1]["sequence-number"] == last:
            break
    cli.send_signal(signal.SIGINT)
    _, stderr = cli.communicate(timeout=60)
    assert cli.returncode == 0, stderr
    assert f"resume with --since {rest_events[-1]['position']})" in stderr
    assert cli_events == rest_events


def test_positions_outside_the_log_are_clear_errors(server, run_tool):
    catalog = RestCatalog("skade", uri=server.uri, credential=f"writer:{SECRET}")
    catalog.create_namespace("feed")
    table = catalog.create_table("feed.t", schema=SCHEMA)
    for i in range(3):
        table.append(pa.table({"id": pa.array([i], pa.int64())}))
    bearer = token(server)
    status, page = get(server, "since=0", bearer)
    assert status == 200 and len(page["events"]) == 4
    last = page["last-sequence-number"]
    assert page["pruned-through"] == 0 and "next-page-token" not in page

    status, page = get(server, "since=0&pageSize=2", bearer)
    assert status == 200 and len(page["events"]) == 2 and page["next-page-token"]
    # Paging by the token goes on where the page ended, as `since` does.
    first_two = [event["sequence-number"] for event in page["events"]]
    status, following = get(server, f"pageToken={page['next-page-token']}&pageSize=2", bearer)
    assert status == 200, following
    assert [e["sequence-number"] for e in following["events"]] == [first_two[-1] + 1,
                                                                    first_two[-1] + 2]
    status, same = get(server, "since=2&pageToken=2&pageSize=2", bearer)
    assert status == 200 and same["events"] == following["events"]

    for query in ("since=-1", "since=abc", f"since={last + 1}", "since=99999999999999999999",
                  "pageSize=0", "pageSize=-5", "pageSize=x", "pageToken=x", "since=1&pageToken=2",
                  "since=1.", "since=1.xyz", "since=.0123456789abcdef", "since=1.0123456789ABCDEF",
                  "since=1.0123456789abcdef0", "since=1&pageToken=2.0123456789abcdef"):
        status, body = get(server, query, bearer)
        assert status == 400, (query, status, body)
        assert body["error"]["type"] == "BadRequestException"

    # Without a token: 401, like every catalog route.
    request = urllib.request.Request(f"{server.uri}/v1/skade/changes")
    with pytest.raises(urllib.error.HTTPError) as unauthorized:
        urllib.request.urlopen(request, timeout=30)
    assert unauthorized.value.code == 401

    # Prune by hand while the server runs: a follower from 0 is told it is
    # behind the retention, and from where it can go on.
    time.sleep(1.2)
    run_tool("skade", "--warehouse", server.warehouse, "changes", "prune", "--older-than", "1")
    status, body = get(server, "since=0", bearer)
    assert status == 410, body
    assert body["error"]["type"] == "GoneException"
    assert "resume from since=" in body["error"]["message"]
    resume = int(body["error"]["message"].rsplit("since=", 1)[1].split()[0].rstrip(".:"))
    status, page = get(server, f"since={resume}", bearer)
    assert status == 200 and page["pruned-through"] == resume
    assert page["last-sequence-number"] == last


def test_a_position_from_past_a_backup_is_refused_after_a_restore(bin_dir, tmp_path, run_tool):
    """A restored store numbers its commits on from the backup's last one. A follower that had
    read past the backup resumes with the `next-position` it kept (number and check): 410 and
    what to do, over REST and in `skade changes`, where a bare number would have silently
    skipped the restored store's new commits or shown them as ones it had seen."""
    warehouse = tmp_path / "warehouse"
    backup = tmp_path / "backup"

    def append(server, count):
        catalog = RestCatalog("skade", uri=server.uri)
        table = catalog.load_table("feed.t")
        for i in range(count):
            table.append(pa.table({"id": pa.array([i], pa.int64())}))

    server = SkadeServer(bin_dir, warehouse)
    try:
        catalog = RestCatalog("skade", uri=server.uri)
        catalog.create_namespace("feed")
        catalog.create_table("feed.t", schema=SCHEMA)
        append(server, 1)
        run_tool("skade", "--warehouse", warehouse, "backup", backup)
        status, at_backup = get(server, "since=0", None)
        assert status == 200
        append(server, 2)
        status, page = get(server, f"since={at_backup['next-position']}", None)
        assert status == 200 and len(page["events"]) == 2, page
        assert page["events"][-1]["position"] == page["next-position"]
        past_backup = page["next-position"]
        assert past_backup.split(".")[0] == str(page["next-since"])
    finally:
        assert server.stop() == 0, server.log_path.read_text()

    run_tool("skade", "--warehouse", warehouse, "restore", backup, "--force")
    server = SkadeServer(bin_dir, warehouse)
    try:
        # Right after the restore the follower's number is past the end: told the same.
        status, body = get(server, f"since={past_backup}", None)
        assert status == 410 and "restored from a backup" in body["error"]["message"], body
        append(server, 3)
        for query in (f"since={past_backup}", f"pageToken={past_backup}"):
            status, body = get(server, query, None)
            assert status == 410, (query, body)
            assert body["error"]["type"] == "GoneException"
            assert "restored from a backup" in body["error"]["message"]
        # The backup's own positions name the same commits: the follower goes on from there.
        status, page = get(server, f"since={at_backup['next-position']}", None)
        assert status == 200 and len(page["events"]) == 3, page
        refused = run_tool("skade", "--warehouse", warehouse, "changes", "--since", past_backup,
                           check=False)
        assert refused.returncode != 0 and "restored from a backup" in refused.stderr
        shown = run_tool("skade", "--warehouse", warehouse, "changes", "--since",
                         at_backup["next-position"])
        assert len(shown.stdout.splitlines()) == 3
        resume = shown.stderr.rsplit("--since ", 1)[1].rstrip(")\n")
        assert resume == page["next-position"]
    finally:
        assert server.stop() == 0, server.log_path.read_text()
