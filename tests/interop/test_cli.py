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


def test_names_with_dots_are_quoted_and_never_taken_for_another_table(cli):
    # Regression: REST may name a table "x.y"; it and table y of namespace
    # q.x both printed as q.x.y, and every command reached only the second.
    cli("ns", "create", "q")
    cli("ns", "create", "q.x")
    cli("ns", "create", "`p.c`")
    cli("table", "create", "q.`x.y`", "--schema", cli.schema)
    cli("table", "create", "q.x.y", "--schema", cli.schema)
    assert cli("table", "list", "q").stdout.split() == ["q.`x.y`"]
    assert cli("table", "list", "q.x").stdout.split() == ["q.x.y"]
    assert sorted(cli("ns", "list").stdout.split()) == ["`p.c`", "q"]
    dotted = describe(cli, "q.`x.y`")["metadata"]["location"]
    nested = describe(cli, "q.x.y")["metadata"]["location"]
    assert dotted != nested
    assert cli("table", "drop", "q.`x.y`").stdout.strip() == "dropped q.`x.y`"
    assert describe(cli, "q.x.y")["metadata"]["location"] == nested
    failed = cli("table", "describe", "q.`x.y", check=False)
    assert failed.returncode != 0 and "is not closed" in failed.stderr


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


def test_table_set_and_unset_say_what_changed_nothing(cli):
    """Regression: `table unset db.t nosuchkey` printed "committed <unchanged metadata>". A key
    that changes nothing is reported, nothing is committed, and the exit code is 0 (the table is
    as asked), for `set` of a value the table has as for `unset` of a key it lacks."""
    cli("ns", "create", "db")
    cli("table", "create", "db.t", "--schema", cli.schema)
    out = cli("table", "set", "db.t", "a=1").stdout
    assert out.startswith("committed ") and "already set" not in out
    before = describe(cli, "db.t")["metadata-location"]
    out = cli("table", "unset", "db.t", "nosuchkey").stdout
    assert out.splitlines() == ["not set: nosuchkey", f"unchanged {before}"], out
    out = cli("table", "set", "db.t", "a=1").stdout
    assert out.splitlines() == ["already set: a", f"unchanged {before}"], out
    assert describe(cli, "db.t")["metadata-location"] == before
    # A key that is set among ones that are not: the set one is removed, the rest reported.
    out = cli("table", "unset", "db.t", "nosuchkey", "a").stdout
    assert out.splitlines()[0] == "not set: nosuchkey" and out.splitlines()[1].startswith(
        "committed "), out
    assert "a" not in describe(cli, "db.t")["metadata"].get("properties", {})
    assert "not set" in cli("table", "unset", "--help").stdout


def ingest_table(cli, tmp_path, table, ids):
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = tmp_path / f"{table}.parquet"
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()),
                             "s": pa.array([f"v{i}" for i in ids])}), source)
    cli("ingest", "--table", table, "--create", source)
    namespace, name = table.split(".")
    return sorted((cli.warehouse / namespace / name / "data").glob("*.parquet"))


def scan_ids(cli, table):
    out = cli("scan", table, "--format", "jsonl").stdout
    return sorted(json.loads(line)["id"] for line in out.splitlines())


def test_scan_output_never_overwrites_the_warehouse_or_the_store(cli, tmp_path):
    """Regression: `scan --output` truncated whatever it named: the catalog's LMDB file (every
    later command failed with MDB_INVALID), another table's data file (that table then returned
    the scanned table's rows), or the scanned table's own file. A destination in the warehouse
    or the store is refused, --force or not, however the path reaches it."""
    a_files = ingest_table(cli, tmp_path, "db.a", [1, 2, 3])
    b_files = ingest_table(cli, tmp_path, "db.b", [100, 200])
    store = cli.warehouse / ".skade" / "catalog" / "data.mdb"
    store_bytes = store.read_bytes()
    (tmp_path / "to-warehouse").symlink_to(cli.warehouse)
    (tmp_path / "sub").mkdir()
    (tmp_path / "to-a-file").symlink_to(a_files[0])
    targets = [store, b_files[0], a_files[0], cli.warehouse / "db" / "new.csv",
               tmp_path / "to-warehouse" / ".skade" / "catalog" / "data.mdb",
               tmp_path / "sub" / ".." / "warehouse" / "db" / "b" / "data" / b_files[0].name,
               tmp_path / "to-a-file"]
    for target in targets:
        for force in ((), ("--force",)):
            for fmt in ("csv", "parquet"):
                proc = cli("scan", "db.a", "--format", fmt, "--output", target, *force,
                           check=False)
                assert proc.returncode == 1, (target, proc.stdout, proc.stderr)
                assert "will not write to" in proc.stderr and "--force" in proc.stderr, \
                    proc.stderr
    assert store.read_bytes() == store_bytes
    assert not (cli.warehouse / "db" / "new.csv").exists()
    assert cli("table", "list", "db").stdout.split() == ["db.a", "db.b"]
    assert scan_ids(cli, "db.a") == [1, 2, 3]
    assert scan_ids(cli, "db.b") == [100, 200]


def test_scan_output_replaces_a_file_only_with_force_and_only_when_the_scan_succeeds(cli,
                                                                                     tmp_path):
    """Regression: `scan --output` truncated an existing file before reading a row, so a scan
    that failed left a valid empty file where the old one was."""
    import pyarrow.parquet as pq

    ingest_table(cli, tmp_path, "db.a", [1, 2, 3])
    broken = ingest_table(cli, tmp_path, "db.broken", [7, 8])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "rows.parquet"
    # A new file is written as before.
    cli("scan", "db.a", "--format", "parquet", "--output", target)
    assert pq.read_table(target).column("id").to_pylist() == [1, 2, 3]
    # An existing one only with --force.
    old = out_dir / "old.csv"
    old.write_text("keep me\n")
    old.chmod(0o600)
    proc = cli("scan", "db.a", "--format", "csv", "--output", old, check=False)
    assert proc.returncode == 1 and "exists" in proc.stderr and "--force" in proc.stderr, \
        proc.stderr
    assert old.read_text() == "keep me\n"
    # A scan that fails (a data file overwritten with junk) leaves the old file as it was, and
    # no file of its own, with --force or without an earlier file.
    broken[0].write_bytes(b"X" * broken[0].stat().st_size)
    for fmt in ("csv", "parquet"):
        proc = cli("scan", "db.broken", "--format", fmt, "--output", old, "--force", check=False)
        assert proc.returncode == 1 and "scan of db.broken failed" in proc.stderr, proc.stderr
        assert old.read_text() == "keep me\n"
        proc = cli("scan", "db.broken", "--format", fmt, "--output", out_dir / "new", check=False)
        assert proc.returncode == 1, proc.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == ["old.csv", "rows.parquet"]
    # --force replaces it once the scan succeeds, keeping its permissions.
    cli("scan", "db.a", "--format", "csv", "--output", old, "--force")
    assert old.read_text().splitlines()[1:] == ["1,\"v1\"", "2,\"v2\"", "3,\"v3\""]
    assert old.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in out_dir.iterdir()) == ["old.csv", "rows.parquet"]
    # A directory is not a file; a device has nothing to lose and is written as before.
    proc = cli("scan", "db.a", "--output", out_dir, "--force", check=False)
    assert proc.returncode == 1 and "is a directory" in proc.stderr, proc.stderr
    cli("scan", "db.a", "--format", "csv", "--output", "/dev/null")
    # Regression (review): /dev/stdout resolved to /proc/self/fd/1 and was refused.
    piped = cli("scan", "db.a", "--format", "csv", "--output", "/dev/stdout")
    assert piped.stdout.splitlines()[1:] == ["1,\"v1\"", "2,\"v2\"", "3,\"v3\""]
    # --force means nothing without --output.
    assert cli("scan", "db.a", "--force", check=False).returncode != 0


def test_scan_rejects_meaningless_arguments(cli, tmp_path):
    """Regression: `--limit -5` read every row, `--select "id,,s"` ignored the empty entry, and
    `--plan` ignored `--format` and `--output`."""
    ingest_table(cli, tmp_path, "db.a", [1, 2, 3])
    proc = cli("scan", "db.a", "--limit", "-5", check=False)
    assert proc.returncode != 0 and "--limit" in proc.stderr and "0 or more" in proc.stderr, \
        proc.stderr
    assert cli("scan", "db.a", "--limit", "0", "--format", "jsonl").stdout == ""
    assert len(cli("scan", "db.a", "--limit", "2", "--format", "jsonl").stdout.splitlines()) == 2
    for select, message in (("id,,s", "column 2 of 3 is empty"), ("id,", "column 2 of 2 is empty"),
                            (" ", "column 1 of 1 is empty")):
        proc = cli("scan", "db.a", "--select", select, check=False)
        assert proc.returncode == 1 and message in proc.stderr, (select, proc.stderr)
        assert f"--select '{select}'" in proc.stderr
    for extra in (("--format", "csv"), ("--format", "jsonl"), ("--output", tmp_path / "plan")):
        proc = cli("scan", "db.a", "--plan", *extra, check=False)
        assert proc.returncode != 0 and "--plan" in proc.stderr, (extra, proc.stderr)
    assert not (tmp_path / "plan").exists()
    assert "to read" in cli("scan", "db.a", "--plan").stdout


def test_scan_output_never_goes_into_a_named_store_or_an_allowed_root(run_tool, tmp_path):
    """The store outside the warehouse (--store) and the --allow-location roots, where tables of
    the catalog may be, are refused as the warehouse is; "*" (anywhere) protects no root."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), source)
    store, extra = tmp_path / "store", tmp_path / "extra"
    extra.mkdir()
    base = ["--warehouse", tmp_path / "wh", "--store", store, "--allow-location", extra]
    run_tool("skade", *base, "ingest", "--table", "db.a", "--create", source)
    store_bytes = (store / "data.mdb").read_bytes()
    for target in (store / "data.mdb", store / "new.csv", extra / "new.csv"):
        proc = run_tool("skade", *base, "scan", "db.a", "--format", "csv", "--output", target,
                        "--force", check=False)
        assert proc.returncode == 1 and "will not write to" in proc.stderr, proc.stderr
    assert (store / "data.mdb").read_bytes() == store_bytes
    assert not (store / "new.csv").exists() and not (extra / "new.csv").exists()
    run_tool("skade", "--warehouse", tmp_path / "wh", "--store", store, "--allow-location", "*",
             "scan", "db.a", "--format", "csv", "--output", extra / "new.csv")
    assert (extra / "new.csv").read_text().splitlines() == ["\"id\"", "1", "2"]
