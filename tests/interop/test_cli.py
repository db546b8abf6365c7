"""The `skade` CLI end to end, and PyIceberg reading every metadata file the
embedded catalog writes (StaticTable.from_metadata)."""
import json
import os
import pathlib
import subprocess
import time

import pytest
from pyiceberg.table import StaticTable

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "identifier-field-ids": [1],
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "city", "required": False, "type": "string", "doc": "where"},
        {"id": 3, "name": "ts", "required": False, "type": "timestamptz"},
        {"id": 4, "name": "tags", "required": False,
         "type": {"type": "list", "element-id": 5, "element": "string", "element-required": False}},
        {"id": 6, "name": "price", "required": False, "type": "decimal(10, 2)"},
    ],
}


@pytest.fixture
def cli(run_tool, tmp_path):
    warehouse = tmp_path / "warehouse"

    def skade(*args, check=True, input=None):
        return run_tool("skade", "--warehouse", warehouse, *args, check=check, input=input)

    skade.warehouse = warehouse
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    skade.schema = schema_file
    return skade


def describe(cli, table):
    return json.loads(cli("table", "describe", table, "--json").stdout)


def test_namespace_commands(cli):
    cli("ns", "create", "sales", "-p", "owner=ops")
    cli("ns", "create", "sales.eu")
    assert cli("ns", "list").stdout.split() == ["sales"]
    assert cli("ns", "list", "sales").stdout.split() == ["sales.eu"]
    cli("ns", "set", "sales", "tier=gold")
    assert "tier = gold" in cli("ns", "describe", "sales").stdout
    cli("ns", "unset", "sales", "owner")
    assert "owner" not in cli("ns", "describe", "sales").stdout
    failed = cli("ns", "drop", "sales", check=False)
    assert failed.returncode != 0 and "is not empty" in failed.stderr
    failed = cli("ns", "create", "missing.child", check=False)
    assert failed.returncode != 0 and "Parent namespace does not exist" in failed.stderr
    cli("ns", "drop", "sales.eu")
    cli("ns", "drop", "sales")
    failed = cli("ns", "describe", "sales", check=False)
    assert failed.returncode != 0 and "Namespace does not exist: sales" in failed.stderr


@pytest.mark.parametrize("version", [1, 2, 3])
def test_create_and_describe_match_pyiceberg(cli, version):
    cli("ns", "create", "db")
    cli("table", "create", "db.t", "--schema", cli.schema, "--format-version", str(version),
        "--partition-by", "day(ts)", "--partition-by", "bucket(16, id)",
        "--partition-by", "truncate(4, city)", "-p", "owner=me")
    doc = describe(cli, "db.t")
    meta = doc["metadata"]
    assert meta["format-version"] == version
    assert pathlib.Path(doc["metadata-location"].removeprefix("file://")).name.startswith("00000-")
    assert meta["location"] == f"file://{cli.warehouse.resolve()}/db/t"
    table = StaticTable.from_metadata(doc["metadata-location"])
    assert table.metadata.format_version == version
    assert [f.name for f in table.schema().fields] == ["id", "city", "ts", "tags", "price"]
    assert table.schema().identifier_field_ids == [1]
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [
        ("ts_day", "day"), ("id_bucket", "bucket[16]"), ("city_trunc", "truncate[4]")]
    assert table.properties["owner"] == "me"
    assert str(table.metadata.table_uuid) == meta["table-uuid"]


def test_commits_history_and_every_file_loads_in_pyiceberg(cli):
    cli("ns", "create", "db")
    cli("table", "create", "db.t", "--schema", cli.schema, "--partition-by", "city")
    cli("table", "set", "db.t", "a=1", "b=2")
    cli("table", "unset", "db.t", "a")
    current = describe(cli, "db.t")["metadata"]
    evolve = {
        "requirements": [
            {"type": "assert-current-schema-id", "current-schema-id": current["current-schema-id"]},
            {"type": "assert-last-assigned-field-id", "last-assigned-field-id": current["last-column-id"]},
        ],
        "updates": [
            {"action": "add-schema", "schema": {
                "type": "struct", "schema-id": 1, "identifier-field-ids": [1],
                "fields": SCHEMA["fields"] + [{"id": 7, "name": "score", "required": False, "type": "double"}]}},
            {"action": "set-current-schema", "schema-id": -1},
        ],
    }
    out = cli("table", "commit", "db.t", input=json.dumps(evolve)).stdout
    assert "00003-" in out
    # The same request again fails its requirement and changes nothing.
    failed = cli("table", "commit", "db.t", input=json.dumps(evolve), check=False)
    assert failed.returncode != 0 and "Requirement failed: current schema changed" in failed.stderr
    doc = describe(cli, "db.t")
    assert "00003-" in doc["metadata-location"]
    assert [e["metadata-file"] for e in doc["metadata"]["metadata-log"]][0].split("/")[-1].startswith("00000-")
    history = cli("table", "history", "db.t").stdout
    versions, commits = history.split("commits:\n")
    assert versions.count(".metadata.json") == 3
    # The commit log has every metadata file the table was at, the current one last.
    assert commits.count(".metadata.json") == 4 and commits.rstrip().endswith(doc["metadata-location"])

    # PyIceberg loads every metadata file the catalog wrote, and each agrees
    # with the current file on what does not change.
    files = sorted((cli.warehouse / "db" / "t" / "metadata").glob("*.metadata.json"))
    assert len(files) == 4
    for path in files:
        table = StaticTable.from_metadata(str(path))
        assert str(table.metadata.table_uuid) == doc["metadata"]["table-uuid"]
        assert table.spec().fields[0].name == "city"
    latest = StaticTable.from_metadata(doc["metadata-location"])
    assert [f.name for f in latest.schema().fields][-1] == "score"
    assert latest.properties == {"b": "2", "write.parquet.compression-codec": "zstd"}


def test_rename_register_drop_and_purge(cli):
    cli("ns", "create", "a")
    cli("ns", "create", "b")
    cli("table", "create", "a.t", "--schema", cli.schema)
    location = describe(cli, "a.t")["metadata-location"]
    cli("table", "rename", "a.t", "b.u")
    assert cli("table", "list", "a").stdout.strip() == ""
    assert cli("table", "list", "b").stdout.split() == ["b.u"]
    cli("table", "drop", "b.u")
    assert pathlib.Path(location.removeprefix("file://")).exists()
    cli("table", "register", "a.back", location)
    assert describe(cli, "a.back")["metadata-location"] == location
    cli("table", "drop", "a.back", "--purge")
    assert not pathlib.Path(location.removeprefix("file://")).exists()


def test_bad_input_is_a_clear_error_and_changes_nothing(cli):
    cli("ns", "create", "db")
    cli("table", "create", "db.t", "--schema", cli.schema)
    before = describe(cli, "db.t")["metadata-location"]
    for request in ["{not json", '{"requirements": [], "updates": [{"action": "explode"}]}',
                    '{"requirements": [{"type": "assert-nothing"}], "updates": []}',
                    '{"updates": [{"action": "set-current-schema", "schema-id": 42}]}']:
        failed = cli("table", "commit", "db.t", input=request, check=False)
        assert failed.returncode != 0, request
        assert failed.stderr.startswith("skade: "), failed.stderr
    assert describe(cli, "db.t")["metadata-location"] == before
    for bad in ["..", "db..x", "x\x01y"]:
        failed = cli("ns", "create", bad, check=False)
        assert failed.returncode != 0
    # '/' is a legal name character but never a path separator.
    cli("table", "create", "db.a/b", "--schema", cli.schema)
    assert (cli.warehouse / "db" / "a%2Fb" / "metadata").is_dir()
    assert not (cli.warehouse / "db" / "a").exists()
    failed = cli("table", "create", "db.x", "--schema", cli.schema, "--partition-by", "bucket(0, id)",
                 check=False)
    assert failed.returncode != 0
    failed = cli("table", "create", "db.y", "--schema", cli.schema, "--partition-by", "day(nope)",
                 check=False)
    assert failed.returncode != 0 and "no column named 'nope'" in failed.stderr
    assert not (cli.warehouse.parent / "escape").exists()


def test_allow_location_with_the_default_relative_warehouse(run_tool, tmp_path):
    # Regression: with --allow-location and the relative default ./warehouse,
    # every default table location was refused (403).
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    scratch = tmp_path / "scratch"
    work = tmp_path / "work"
    work.mkdir()

    def skade(*args):
        return run_tool("skade", "--warehouse", "./warehouse", "--allow-location", str(scratch),
                        *args, cwd=work)

    skade("ns", "create", "n")
    skade("table", "create", "n.default", "--schema", schema)
    assert (work / "warehouse" / "n" / "default" / "metadata").is_dir()


def add_snapshot(cli, table, snapshot_id):
    """Commits snapshot `snapshot_id` (metadata only) as main's head; returns the new metadata location."""
    snapshot = {"snapshot-id": snapshot_id, "sequence-number": snapshot_id,
                "timestamp-ms": 1_700_000_000_000 + snapshot_id,
                "manifest-list": f"file:///m/{snapshot_id}.avro",
                "summary": {"operation": "append", "total-records": str(10 * snapshot_id)}}
    request = {"requirements": [], "updates": [
        {"action": "add-snapshot", "snapshot": snapshot},
        {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": snapshot_id}]}
    return cli("table", "commit", table, input=json.dumps(request)).stdout.split()[-1]


def commit_times(history):
    """(commit seq, ISO time, metadata location) of each line of the `commits:` section."""
    section = history.split("commits:\n", 1)[1]
    return [(int(line.split()[0]), line.split()[1], line.split()[-1]) for line in section.splitlines()]


def test_time_travel_at_as_of_and_the_commit_log(cli):
    import datetime

    cli("ns", "create", "db")
    cli("table", "create", "db.t", "--schema", cli.schema)
    first = add_snapshot(cli, "db.t", 1)
    second = add_snapshot(cli, "db.t", 2)
    cli("table", "commit", "db.t", input=json.dumps(
        {"requirements": [], "updates": [{"action": "remove-snapshots", "snapshot-ids": [1]}]}))
    current = describe(cli, "db.t")
    assert [s["snapshot-id"] for s in current["metadata"]["snapshots"]] == [2]

    # `at` loads the metadata of the commit that added the snapshot, expired or not.
    at = cli("table", "at", "db.t", "1").stdout
    assert f"metadata         {first}\n" in at
    assert "snapshot         1 (append, 2023-11-14T22:13:20.001Z)" in at
    assert "total-records=10" in at and "snapshots        1\n" in at
    doc = json.loads(cli("table", "at", "db.t", "1", "--json").stdout)
    assert doc["metadata-location"] == first
    assert [s["snapshot-id"] for s in doc["metadata"]["snapshots"]] == [1]
    assert StaticTable.from_metadata(first).metadata.current_snapshot_id == 1

    # The commit log keeps every commit, and marks what the current metadata expired.
    history = cli("table", "history", "db.t").stdout
    commits = commit_times(history)
    # The creation, two appends, the expiry.
    assert len(commits) == 4
    assert [c[2] for c in commits[1:]] == [first, second, current["metadata-location"]]
    assert [c[0] for c in commits] == sorted(c[0] for c in commits)
    assert "snapshots 1 (expired)  " + first in history
    assert "snapshots 2  " + second in history

    # `as-of` takes Unix milliseconds or ISO-8601 (UTC unless an offset is given).
    second_time = commits[2][1]
    second_ms = int(datetime.datetime.fromisoformat(second_time.replace("Z", "+00:00")).timestamp() * 1000)
    for point in [str(second_ms), second_time,
                  datetime.datetime.fromtimestamp(second_ms / 1000, datetime.timezone(datetime.timedelta(hours=2)))
                  .isoformat(timespec="milliseconds")]:
        assert f"metadata         {second}\n" in cli("table", "as-of", "db.t", point).stdout, point
    after_last = (datetime.datetime.fromisoformat(commits[-1][1].replace("Z", "+00:00"))
                  .replace(microsecond=0) + datetime.timedelta(seconds=1))
    for point in [after_last.strftime("%Y-%m-%d %H:%M:%S"),
                  (after_last + datetime.timedelta(days=1)).strftime("%Y-%m-%d")]:
        doc = json.loads(cli("table", "as-of", "db.t", point, "--json").stdout)
        assert doc["metadata-location"] == current["metadata-location"], point

    # Clear errors, non-zero exits.
    for args, message in [(("at", "db.t", "99"), "99"),
                          (("at", "db.t", "x1"), "Invalid snapshot id"),
                          (("at", "db.nope", "1"), "Table does not exist"),
                          (("as-of", "db.t", "2000-01-01"), "db.t"),
                          (("as-of", "db.t", "yesterday"), "Invalid timestamp"),
                          (("as-of", "db.t", "2026-02-30"), "Invalid timestamp"),
                          (("as-of", "db.nope", "2026-11-01"), "Table does not exist"),
                          (("history", "db.nope"), "Table does not exist")]:
        failed = cli("table", *args, check=False)
        assert failed.returncode != 0, args
        assert failed.stderr.startswith("skade: ") and message in failed.stderr, (args, failed.stderr)


def test_operations_commands_refuse_what_would_lose_or_hide_things(cli, run_tool, bin_dir,
                                                                  tmp_path):
    cli("ns", "create", "db")
    cli("table", "create", "db.t", "--schema", cli.schema)
    backup = tmp_path / "backup"
    cli("backup", backup)

    # --force moves aside only a catalog store, never a warehouse given as
    # --store by mistake.
    refused = cli("--store", cli.warehouse, "restore", backup, "--force", check=False)
    assert refused.returncode != 0 and "not a catalog store" in refused.stderr
    assert (cli.warehouse / ".skade").is_dir() and (cli.warehouse / "db").is_dir()

    # Restored into another warehouse, the tables point outside it: not a
    # success.
    other = tmp_path / "other"
    elsewhere = run_tool("skade", "--warehouse", other, "restore", backup, check=False)
    assert elsewhere.returncode != 0 and "restore it there" in elsewhere.stderr

    # An empty SKADE_WAREHOUSE counts as unset: the backed-up warehouse is the
    # target, not ./warehouse.
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    env = dict(os.environ, SKADE_WAREHOUSE="")
    moved = subprocess.run([str(bin_dir / "skade"), "restore", str(backup), "--force"],
                           capture_output=True, text=True, cwd=fresh, env=env, timeout=300)
    assert moved.returncode == 0, moved.stderr
    assert not (fresh / "warehouse").exists()

    # 0 would prune the whole feed (serve's --commit-log-retention 0 keeps all).
    zero = cli("changes", "prune", "--older-than", "0", check=False)
    assert zero.returncode != 0 and "positive" in zero.stderr
    time.sleep(1.2)
    cli("changes", "prune", "--older-than", "1")
    # Without --since, the feed starts where retention left it.
    shown = cli("changes")
    assert "resume with --since" in shown.stderr

    # Metrics behind a token only when there are tokens.
    metrics = cli("serve", "--port", "0", "--metrics-auth", "token", check=False)
    assert metrics.returncode != 0 and "--auth token" in metrics.stderr


def test_ingest_of_more_parquet_files_than_the_open_file_limit(bin_dir, tmp_path):
    """A Parquet input is opened only while its rows are read: an ingest of many files works
    under a small open-file limit (thousands of small files against the common 1024)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    inputs = tmp_path / "in"
    inputs.mkdir()
    for i in range(300):
        pq.write_table(pa.table({"id": pa.array([i, i + 1000], pa.int64())}),
                       inputs / f"{i}.parquet")
    warehouse = tmp_path / "warehouse"
    skade = bin_dir / "skade"
    proc = subprocess.run(
        ["bash", "-c", 'ulimit -n 128 && exec "$0" --warehouse "$1" ingest --create db.many "$2"/*',
         str(skade), str(warehouse), str(inputs)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = subprocess.run([str(skade), "--warehouse", str(warehouse), "scan", "db.many",
                           "--format", "csv"], capture_output=True, text=True, check=True).stdout
    assert len(rows.splitlines()) == 1 + 600
