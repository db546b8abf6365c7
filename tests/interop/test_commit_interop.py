"""`skade ingest --stream` and `--coalesce` (the coalescing committer,
src/skade/commit/, reached through src/skade/cli/) end to end: rows piped in
or given as many small files land in few commits, bad input is reported by
line, upserts replace rows; then the real readers read the tables:
PyIceberg, DuckDB and Spark see exactly the rows written, in both history
modes, partitioned or not, and Spark (which applies equality deletes) sees
the upserts.

What the pinned readers do with equality deletes (the upserts), pinned here:
  - Spark 4.0 + Iceberg 1.10.1: applies them (test_spark_reads_upserts).
  - PyIceberg 0.12.0: refuses the scan with ValueError "PyIceberg does not
    yet support equality deletes" (test_pyiceberg_refuses_equality_deletes).
  - DuckDB 2.0.0: its iceberg extension is downloaded on first use and cannot
    be had offline; where it loads, test_duckdb_iceberg_scan checks the rows,
    selecting every column. By hand, DuckDB 1.4.4 with PyPI's
    duckdb-ext-iceberg 1.4.4 applies equality deletes only when the query
    selects the key columns (otherwise "Not implemented: Equality deletes
    need the relevant columns to be selected"); see the README.

Everything runs against one `skade serve` on a warehouse that `skade ingest`
(a second process) writes into; Spark is one session for the module.
"""
import datetime as dt
import fcntl
import json
import pathlib
import re
import signal
import subprocess
import sys
import termios
import time

import duckdb
import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
from pyiceberg.types import (DoubleType, LongType, NestedField, StringType, TimestampType,
                             TimestamptzType)

BASE = dt.datetime(2026, 11, 1)

EVENTS = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "region", StringType(), required=True),
    NestedField(3, "name", StringType()),
    NestedField(4, "score", DoubleType()),
    NestedField(5, "ts", TimestampType()),
)
BY_DAY_AND_REGION = PartitionSpec(
    PartitionField(5, 1000, DayTransform(), "ts_day"),
    PartitionField(2, 1001, IdentityTransform(), "region"),
)


def event(i, name=None):
    return {
        "id": i,
        "region": ["eu", "us", "ap"][i % 3],
        "name": name if name is not None else (None if i % 11 == 0 else f"name-{i}"),
        "score": None if i % 7 == 0 else i / 4,
        "ts": BASE + dt.timedelta(days=i % 4, seconds=i % 3600),
    }


def json_line(row):
    return json.dumps({**row, "ts": row["ts"].isoformat()})


def events_arrow(rows):
    return pa.Table.from_pylist(rows, schema=pa.schema([
        pa.field("id", pa.int64(), nullable=False), pa.field("region", pa.string(), nullable=False),
        ("name", pa.string()), ("score", pa.float64()), ("ts", pa.timestamp("us"))]))


def by_id(rows):
    return sorted(rows, key=lambda row: (row["id"], row["region"]))


def summary_counts(stdout):
    """(rows, logical writes, physical commits) from the final summary line."""
    match = re.search(r"ingested (\d+) rows .*?(\d+) logical writes, (\d+) physical commits",
                      stdout)
    assert match, stdout
    return tuple(int(group) for group in match.groups())


@pytest.fixture(scope="module")
def catalog(module_server):
    catalog = RestCatalog("skade", uri=module_server.uri)
    catalog.create_namespace_if_not_exists("coalesce")
    return catalog


@pytest.fixture(scope="module")
def ingest(bin_dir, module_server):
    """`skade ingest … --warehouse <server's warehouse> …`, with `stdin` piped in."""

    def run(*args, stdin=None, check=True):
        command = [str(bin_dir / "skade"), "ingest", "--warehouse", str(module_server.warehouse),
                   *map(str, args)]
        proc = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=300)
        if check and proc.returncode != 0:
            pytest.fail(f"{' '.join(command)} exited {proc.returncode}\n"
                        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    return run


def scan(catalog, name):
    return by_id(catalog.load_table(name).scan().to_arrow().to_pylist())


def data_files(table):
    return [task.file.file_path.removeprefix("file://") for task in table.scan().plan_files()]


# --- --stream -----------------------------------------------------------------


def test_stream_10k_json_lines_in_few_commits(catalog, ingest):
    rows = [event(i) for i in range(10_000)]
    # Without a delay, writes coalesce only while a commit is in flight, and
    # a commit can be quicker than parsing the next 500 lines: whether any
    # two meet would depend on the machine. A leader that waits up to a
    # second for company meets the batches the reader parses meanwhile.
    proc = ingest("--stream", "--create", "--batch-rows", 500, "--max-delay-ms", 1000,
                  "coalesce.stream", stdin="".join(json_line(row) + "\n" for row in rows))
    got_rows, writes, commits = summary_counts(proc.stdout)
    assert (got_rows, writes) == (10_000, 20)
    assert commits < writes
    table = catalog.load_table("coalesce.stream")
    assert len(table.metadata.snapshots) == commits
    assert sum(int(s.summary["skade.logical-writes"]) for s in table.metadata.snapshots) == 20
    assert scan(catalog, "coalesce.stream") == by_id(rows)

    # Each commit after the first copies its parent's manifests as the blocks
    # they were encoded in (avro::ManifestListWriter::AddEncoded): one block
    # per commit, which fastavro reads as PyIceberg does.
    current = table.current_snapshot()
    with open(current.manifest_list.removeprefix("file://"), "rb") as f:
        blocks = [list(block) for block in fastavro.block_reader(f)]
    assert len(blocks) == commits
    records = [record for block in blocks for record in block]
    assert [(r["manifest_path"], r["sequence_number"]) for r in records] == [
        (m.manifest_path, m.sequence_number) for m in current.manifests(table.io)]


def test_stream_a_bad_line_fails_with_its_number_and_commits_the_lines_before_it(catalog, ingest):
    catalog.create_table("coalesce.strict", schema=EVENTS)
    good = [event(i) for i in range(150)]
    lines = [json_line(row) for row in good]
    lines[120] = '{"id": "one hundred", "region": "eu"}'
    proc = ingest("--stream", "--batch-rows", 50, "coalesce.strict",
                  stdin="\n".join(lines) + "\n", check=False)
    assert proc.returncode == 1
    assert "line 121:" in proc.stderr, proc.stderr
    assert scan(catalog, "coalesce.strict") == by_id(good[:120])

    # --skip-bad leaves it out and goes on; a line without a required column is bad too.
    lines[130] = '{"id": 5000}'
    proc = ingest("--stream", "--skip-bad", "--batch-rows", 50, "coalesce.strict",
                  stdin="\n".join(lines[120:]) + "\n")
    assert "skipping line 1:" in proc.stderr and "skipping line 11:" in proc.stderr
    assert "region" in proc.stderr
    assert "2 bad lines skipped" in proc.stdout
    expected = good[:120] + [row for i, row in enumerate(good) if i >= 120 and i not in (120, 130)]
    assert scan(catalog, "coalesce.strict") == by_id(expected)


def test_stream_json_timestamps_keep_their_meaning_or_fail(catalog, ingest):
    """A JSON value with an offset in a `timestamp` (zone-less) column, or without one in a
    `timestamptz` column, is an error naming the line, as in CSV — not shifted to UTC."""
    catalog.create_table("coalesce.zones", schema=Schema(
        NestedField(1, "id", LongType(), required=True), NestedField(2, "local", TimestampType()),
        NestedField(3, "utc", TimestamptzType())))
    good = ['{"id": 1, "local": "2026-11-01T10:00:00", "utc": "2026-11-01T10:00:00+05:00"}']
    ingest("--stream", "coalesce.zones", stdin="\n".join(good) + "\n")
    row = catalog.load_table("coalesce.zones").scan().to_arrow().to_pylist()[0]
    assert row["local"] == dt.datetime(2026, 11, 1, 10, 0)
    assert row["utc"] == dt.datetime(2026, 11, 1, 5, 0, tzinfo=dt.timezone.utc)
    for bad, reason in (('{"id": 2, "local": "2026-11-01T10:00:00+05:00"}', "no zone offset"),
                        ('{"id": 3, "utc": "2026-11-01T10:00:00"}', "a zone offset")):
        proc = ingest("--stream", "coalesce.zones", stdin=bad + "\n", check=False)
        assert proc.returncode == 1, proc.stdout
        assert "line 1:" in proc.stderr and reason in proc.stderr, proc.stderr
    assert len(catalog.load_table("coalesce.zones").scan().to_arrow()) == 1


def test_create_from_json_with_zoned_timestamps_makes_a_timestamptz_column(catalog, ingest,
                                                                          tmp_path):
    """Arrow infers "…Z" text as a zone-less timestamp; skade makes it `timestamptz` (as CSV's
    inference does), so the rows it was inferred from go in — from a file and from a stream."""
    lines = ['{"id": 1, "at": "2026-11-01T10:00:00Z"}',
             '{"id": 2, "at": "2026-11-01T10:00:00+05:00"}']
    path = tmp_path / "zoned.jsonl"
    path.write_text("\n".join(lines) + "\n")
    ingest("--create", "coalesce.zoned_file", path)
    ingest("--stream", "--create", "coalesce.zoned_stream", stdin="\n".join(lines) + "\n")
    for name in ("coalesce.zoned_file", "coalesce.zoned_stream"):
        table = catalog.load_table(name)
        assert isinstance(table.schema().find_field("at").field_type, TimestamptzType), name
        rows = sorted(table.scan().to_arrow().to_pylist(), key=lambda row: row["id"])
        assert [row["at"] for row in rows] == [
            dt.datetime(2026, 11, 1, 10, 0, tzinfo=dt.timezone.utc),
            dt.datetime(2026, 11, 1, 5, 0, tzinfo=dt.timezone.utc)], name


def test_stream_csv_with_ack_lines(catalog, ingest):
    catalog.create_table("coalesce.csv", schema=EVENTS)
    rows = [event(i) for i in range(300)]
    text = "id,region,name,score,ts\n" + "".join(
        f"{r['id']},{r['region']},{r['name'] or ''},{'' if r['score'] is None else r['score']},"
        f"{r['ts'].isoformat()}\n" for r in rows)
    proc = ingest("--stream", "--format", "csv", "--ack", "--batch-rows", 100, "coalesce.csv",
                  stdin=text)
    acks = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted((a["first_line"], a["last_line"], a["rows"]) for a in acks) == [
        (2, 101, 100), (102, 201, 100), (202, 301, 100)]
    snapshots = {s.snapshot_id for s in catalog.load_table("coalesce.csv").metadata.snapshots}
    assert {a["snapshot_id"] for a in acks} <= snapshots
    assert "ingested 300 rows" in proc.stderr
    got = scan(catalog, "coalesce.csv")
    # CSV has no nulls for strings: an empty field is "".
    assert got == by_id([{**r, "name": r["name"] or ""} for r in rows])


def test_stream_and_coalesce_errors_are_clear(catalog, ingest, tmp_path):
    proc = ingest("--stream", "coalesce.nope", stdin='{"id": 1}\n', check=False)
    assert proc.returncode == 1 and "NoSuchTable" in proc.stderr and "coalesce.nope" in proc.stderr
    catalog.create_table("coalesce.typed", schema=EVENTS)
    proc = ingest("--stream", "coalesce.typed", stdin='{"id": 1, "region": "eu", "colour": 2}\n',
                  check=False)
    assert proc.returncode == 1 and "'colour'" in proc.stderr and "line 1:" in proc.stderr
    catalog.create_table("coalesce.v1", schema=EVENTS, properties={"format-version": "1"})
    (tmp_path / "none.jsonl").write_text('{"id": 1, "region": "eu"}\n')
    for mode, files in ((["--stream"], []), (["--coalesce"], [tmp_path / "none.jsonl"])):
        proc = ingest(*mode, "--upsert-key", "id", "coalesce.v1", *files, stdin="", check=False)
        assert proc.returncode == 1 and "format version 1" in proc.stderr, proc.stderr
    proc = ingest("--stream", "--upsert-key", "ident", "coalesce.typed", stdin="", check=False)
    assert proc.returncode == 1 and "'ident'" in proc.stderr
    proc = ingest("--upsert-key", "id", "coalesce.typed", tmp_path / "none.jsonl", check=False)
    assert proc.returncode == 1 and "--stream or --coalesce" in proc.stderr
    assert catalog.load_table("coalesce.v1").metadata.snapshots == []


def test_stream_takes_one_record_per_line_and_only_empty_csv_fields_as_null(catalog, ingest):
    catalog.create_table("coalesce.lines", schema=EVENTS)
    header = "id,region,name,score,ts\n"
    # A quoted CSV field left open would swallow the next lines into one row;
    # instead its line is bad (and named), and the lines after it are rows.
    text = header + '1,eu,"Al,1.5,\n2,eu,Bob,2.5,\n3,eu,"Cy ""the"" one",3.5,\n'
    proc = ingest("--stream", "--format", "csv", "coalesce.lines", stdin=text, check=False)
    assert proc.returncode == 1 and "line 2:" in proc.stderr, proc.stderr
    assert "quoted field does not end" in proc.stderr
    proc = ingest("--stream", "--format", "csv", "--skip-bad", "coalesce.lines", stdin=text)
    assert "skipping line 2:" in proc.stderr
    got = scan(catalog, "coalesce.lines")
    assert [(r["id"], r["name"]) for r in got] == [(2, "Bob"), (3, 'Cy "the" one')]

    # NaN is a float; "NA" or "NULL" are not numbers (Arrow alone reads all three as null).
    proc = ingest("--stream", "--format", "csv", "--skip-bad", "coalesce.lines",
                  stdin=header + "4,eu,d,NaN,\n5,eu,e,NA,\n6,eu,f,NULL,\n7,eu,g,,\n")
    assert "skipping line 3:" in proc.stderr and "skipping line 4:" in proc.stderr, proc.stderr
    scores = {r["id"]: r["score"] for r in scan(catalog, "coalesce.lines")}
    assert scores[4] != scores[4] and scores[7] is None and 5 not in scores and 6 not in scores

    # JSON: two records on one line, or one across two, are bad lines too (Arrow's
    # reader alone takes these four lines as four rows).
    lines = ['{"id": 8, "region": "eu"} {"id": 9, "region": "eu"}', '{"id": 10,',
             '"region": "eu"}', '{"id": 11, "region": "eu"}']
    proc = ingest("--stream", "--skip-bad", "coalesce.lines", stdin="\n".join(lines) + "\n")
    for line in (1, 2, 3):
        assert f"skipping line {line}:" in proc.stderr, proc.stderr
    ids = {r["id"] for r in scan(catalog, "coalesce.lines")}
    assert 11 in ids and not {8, 9, 10} & ids

    # --create makes the table from the first batch's good lines; its bad one is skipped.
    proc = ingest("--stream", "--create", "--skip-bad", "coalesce.created_past_a_bad_line",
                  stdin='{"id": 1, "region": "eu"}\n{"id":\n{"id": 3, "region": "us"}\n')
    assert "skipping line 2:" in proc.stderr, proc.stderr
    assert [r["id"] for r in scan(catalog, "coalesce.created_past_a_bad_line")] == [1, 3]
    # Without --skip-bad, a bad first line stops the stream before any table is made.
    proc = ingest("--stream", "--create", "coalesce.never_made",
                  stdin='{"id":\n{"id": 1, "region": "eu"}\n', check=False)
    assert proc.returncode == 1 and "line 1:" in proc.stderr, proc.stderr
    assert not catalog.table_exists("coalesce.never_made")


def test_stream_bounds_a_line_and_survives_a_closed_stdin(catalog, ingest, bin_dir, module_server):
    catalog.create_table("coalesce.long", schema=EVENTS)
    long_line = json.dumps({"id": 1, "region": "eu", "name": "x" * (17 << 20)})
    proc = ingest("--stream", "--skip-bad", "coalesce.long",
                  stdin=long_line + "\n" + '{"id": 2, "region": "eu"}\n')
    assert "skipping line 1: longer than 16777216 bytes" in proc.stderr, proc.stderr
    # A line of 2 MiB is no longer than allowed (and longer than Arrow's 1 MiB block).
    name = "y" * (2 << 20)
    proc = ingest("--stream", "coalesce.long", stdin=json.dumps(
        {"id": 3, "region": "eu", "name": name}) + "\n")
    got = scan(catalog, "coalesce.long")
    assert [(r["id"], len(r["name"] or "")) for r in got] == [(2, 0), (3, len(name))]

    # stdin closed (`<&-`): nothing to read, not a hang on whatever took its descriptor.
    command = [str(bin_dir / "skade"), "ingest", "--warehouse", str(module_server.warehouse),
               "--stream", "coalesce.long"]
    proc = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, pass_fds=(), preexec_fn=lambda: __import__("os").close(0))
    assert proc.returncode == 0, proc.stderr
    assert "ingested 0 rows" in proc.stdout + proc.stderr


def test_stream_sigterm_commits_what_was_read(catalog, ingest, bin_dir, module_server):
    catalog.create_table("coalesce.signal", schema=EVENTS)
    proc = subprocess.Popen(
        [str(bin_dir / "skade"), "ingest", "--warehouse", str(module_server.warehouse),
         "--stream", "--ack", "--batch-ms", "20", "coalesce.signal"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rows = [event(i) for i in range(40)]
    for row in rows[:30]:
        proc.stdin.write(json_line(row) + "\n")
    proc.stdin.flush()
    acked = 0
    while acked < 30:  # everything written so far is acknowledged before the signal
        acked += json.loads(proc.stdout.readline())["rows"]
    for row in rows[30:]:
        proc.stdin.write(json_line(row) + "\n")
    proc.stdin.flush()
    proc.terminate()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "SIGTERM" in err and "every line read was committed" in err
    acked += sum(json.loads(line)["rows"] for line in out.splitlines())
    got = scan(catalog, "coalesce.signal")
    assert len(got) == acked and got == by_id(rows[:acked])


def start_stream(bin_dir, module_server, *args):
    """`skade ingest --stream …` reading a pipe we write to, its stdout and stderr piped."""
    return subprocess.Popen(
        [str(bin_dir / "skade"), "ingest", "--warehouse", str(module_server.warehouse),
         "--stream", *map(str, args)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def write_lines(proc, rows):
    proc.stdin.write("".join(json_line(row) + "\n" for row in rows))
    proc.stdin.flush()


def wait_until_all_read(proc):
    """Until skade has read every byte written to its stdin and waits for more: the pipe is
    empty, and after that its main thread is back in poll() on stdin and its wake pipe — so
    the lines read are in a batch, not in a buffer about to be split."""
    unread = bytes(4)
    while int.from_bytes(fcntl.ioctl(proc.stdin.fileno(), termios.FIONREAD, unread),
                         sys.byteorder) > 0:
        time.sleep(0.01)
    poll_calls = {"7", "271", "73"}  # x86-64 poll and ppoll, arm64 ppoll
    while True:
        fields = pathlib.Path(f"/proc/{proc.pid}/syscall").read_text().split()
        if fields[0] in poll_calls and int(fields[2], 16) == 2:
            return
        time.sleep(0.01)


def test_a_second_signal_names_the_lines_read_and_not_yet_sent(catalog, bin_dir, module_server):
    """Regression: the second signal said "every line read was acknowledged" while the lines of
    the open batch (or the one being parsed) were not. Both signals are pending when skade
    resumes, so its watcher takes them back to back, long before the batch of 2000 lines could
    be parsed, committed and acknowledged."""
    catalog.create_table("coalesce.second_signal", schema=EVENTS)
    proc = start_stream(bin_dir, module_server, "--ack", "--batch-rows", 100_000, "--batch-ms",
                        600_000, "coalesce.second_signal")
    write_lines(proc, [event(i) for i in range(2000)])
    wait_until_all_read(proc)
    proc.send_signal(signal.SIGSTOP)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert out == ""
    assert ("SIGTERM again: exiting without waiting; not acknowledged (may or may not be "
            "committed): lines 1-2000") in err, err


def test_stream_ack_consumer_going_away_stops_the_stream(catalog, bin_dir, module_server):
    """Regression: with --ack, stdout closing killed skade with SIGPIPE, silently. Now the
    acknowledgement it cannot write stops reading; what was read is committed and the error
    names the lines committed without an acknowledgement (exit 1)."""
    catalog.create_table("coalesce.ack_gone", schema=EVENTS)
    proc = start_stream(bin_dir, module_server, "--ack", "--batch-rows", 1, "--writers", 1,
                        "coalesce.ack_gone")
    write_lines(proc, [event(0)])
    assert json.loads(proc.stdout.readline())["last_line"] == 1
    proc.stdout.close()  # the consumer goes away
    write_lines(proc, [event(i) for i in range(1, 50)])
    proc.stdin.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1, err
    assert "skade: cannot write acknowledgements (standard output: Broken pipe)" in err, err
    match = re.search(r"committed (\d+) rows; committed, not acknowledged: lines 2(-(\d+))?;",
                      err)
    assert match, err
    committed = int(match.group(1))
    assert committed == int(match.group(3) or 2)
    assert scan(catalog, "coalesce.ack_gone") == by_id([event(i) for i in range(committed)])


def test_stream_create_loses_a_race_and_goes_on(catalog, bin_dir, module_server):
    """Regression: a --stream --create that found no table, and another made it before its first
    batch, failed "Table already exists" and lost its lines. It loads that table, checked as one
    that existed."""
    racers = {}
    for name, partition_by in (("coalesce.raced", []),
                               ("coalesce.raced_other_spec", ["--partition-by", "day(ts)"])):
        proc = start_stream(bin_dir, module_server, "--create", *partition_by, name)
        wait_until_all_read(proc)  # past the check that the table is missing
        catalog.create_table(name, schema=EVENTS)
        write_lines(proc, [event(1)])
        racers[name] = (proc, proc.communicate(timeout=60))
    proc, (out, err) = racers["coalesce.raced"]
    assert proc.returncode == 0, err
    assert scan(catalog, "coalesce.raced") == by_id([event(1)])
    proc, (out, err) = racers["coalesce.raced_other_spec"]
    assert proc.returncode == 1 and "exists with another partitioning" in err, err


def test_create_refuses_an_upsert_key_it_could_not_write(catalog, ingest, tmp_path):
    """Regression: --create --upsert-key id --partition-by day(ts) made the table, then every
    write was refused (the key must include the partition source column), leaving it empty.
    The key is checked before the table is made."""
    line = json_line(event(1)) + "\n"
    (tmp_path / "keyed.jsonl").write_text(line)
    for mode, name, files in ((["--stream"], "coalesce.keyed_stream", []),
                              (["--coalesce"], "coalesce.keyed_files", [tmp_path / "keyed.jsonl"])):
        proc = ingest(*mode, "--create", "--upsert-key", "id", "--partition-by", "day(ts)", name,
                      *files, stdin=line, check=False)
        assert proc.returncode == 1, proc.stdout
        assert "the key must include the partition source column 'ts'" in proc.stderr, proc.stderr
        assert not catalog.table_exists(name)
    ingest("--stream", "--create", "--upsert-key", "id,ts", "--partition-by", "day(ts)",
           "coalesce.keyed_stream", stdin=line)
    # (PyIceberg cannot scan an upserted table: it refuses equality deletes.)
    summary = catalog.load_table("coalesce.keyed_stream").current_snapshot().summary
    assert summary["total-records"] == "1"


def test_stream_csv_header_errors_name_the_header_line(catalog, ingest):
    """Regression: a CSV header naming a column twice, or one the table lacks, was reported at
    the first data line ("line 2")."""
    catalog.create_table("coalesce.csv_header", schema=EVENTS)
    for header, reason in (("id,region,colour", "column 'colour' is not in the table"),
                           ("id,region,id", "column 'id' appears more than once"),
                           ("\nid,region,region", "column 'region' appears more than once")):
        proc = ingest("--stream", "--format", "csv", "coalesce.csv_header",
                      stdin=f"{header}\n1,eu,2\n", check=False)
        line = header.count("\n") + 1
        assert proc.returncode == 1, proc.stdout
        assert f"line {line}: bad CSV header: {reason}" in proc.stderr, proc.stderr
    assert catalog.load_table("coalesce.csv_header").metadata.snapshots == []


# --- --coalesce ---------------------------------------------------------------


def write_small_files(directory, groups, rows_per_file, first=0):
    """`groups` small files (Parquet and JSON lines in turn) of the events shape."""
    directory.mkdir(parents=True, exist_ok=True)
    paths, rows = [], []
    for f in range(groups):
        part = [event(first + f * rows_per_file + i) for i in range(rows_per_file)]
        rows += part
        if f % 2 == 0:
            path = directory / f"part-{f:03d}.parquet"
            pq.write_table(events_arrow(part), path)
        else:
            path = directory / f"part-{f:03d}.jsonl"
            path.write_text("".join(json_line(row) + "\n" for row in part))
        paths.append(path)
    return paths, rows


def test_coalesce_50_small_files_in_far_fewer_commits(catalog, ingest, tmp_path):
    catalog.create_table("coalesce.files", schema=EVENTS)
    paths, rows = write_small_files(tmp_path / "in", 50, 40)
    # A leader waits up to half a second for company (see the --stream test).
    proc = ingest("--coalesce", "--max-delay-ms", 500, "coalesce.files", *paths)
    got_rows, writes, commits = summary_counts(proc.stdout)
    assert (got_rows, writes) == (2000, 50)
    assert commits <= 25, proc.stdout
    assert len(catalog.load_table("coalesce.files").metadata.snapshots) == commits
    assert scan(catalog, "coalesce.files") == by_id(rows)


# --- the readers on coalesced tables ------------------------------------------

# Manifests merge once 2 of them are committed (Iceberg's property; default
# 100), so that every reader below also reads merged manifests.
MERGE_OFTEN = {"commit.manifest.min-count-to-merge": "2"}

READ_CASES = [("merged", False), ("merged", True), ("per-transaction", False),
              ("per-transaction", True)]


@pytest.fixture(scope="module")
def coalesced(catalog, ingest, tmp_path_factory):
    """One table per (history mode, partitioned) case, written by --coalesce
    of 12 files and then --stream of 600 lines; name → the rows written."""
    tables = {}
    for mode, partitioned in READ_CASES:
        name = f"coalesce.read_{mode.replace('-', '_')}_{'part' if partitioned else 'flat'}"
        catalog.create_table(name, schema=EVENTS,
                             partition_spec=BY_DAY_AND_REGION if partitioned else PartitionSpec(),
                             properties={"skade.commit.history-mode": mode, **MERGE_OFTEN})
        paths, rows = write_small_files(tmp_path_factory.mktemp("read"), 12, 25)
        ingest("--coalesce", name, *paths)
        more = [event(10_000 + i) for i in range(600)]
        ingest("--stream", "--batch-rows", 100, name,
               stdin="".join(json_line(row) + "\n" for row in more))
        tables[name] = (mode, by_id(rows + more))
    return tables


def assert_merged_manifests_keep_history(table):
    """The current snapshot lists few manifests, merged ones (EXISTING
    entries) among them once the third snapshot found two committed, and
    every live file keeps the snapshot and sequence number that added it —
    as PyIceberg reads them."""
    manifests = table.current_snapshot().manifests(table.io)
    assert len(manifests) <= 4, [m.manifest_path for m in manifests]
    if len(table.metadata.snapshots) >= 3:
        assert any(m.existing_files_count > 0 for m in manifests)
    sequence_numbers = {s.snapshot_id: s.sequence_number for s in table.metadata.snapshots}
    for manifest in manifests:
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
            assert entry.sequence_number == sequence_numbers[entry.snapshot_id], entry
            assert entry.file_sequence_number == sequence_numbers[entry.snapshot_id], entry


def test_pyiceberg_and_duckdb_read_coalesced_tables(catalog, coalesced):
    for name, (mode, rows) in coalesced.items():
        table = catalog.load_table(name)
        assert scan(catalog, name) == rows, name
        assert_merged_manifests_keep_history(table)
        writes = sum(int(s.summary["skade.logical-writes"]) for s in table.metadata.snapshots)
        assert writes == 12 + 6
        if mode == "per-transaction":
            assert len(table.metadata.snapshots) == 18
            assert len(table.metadata.metadata_log) + 1 < 18  # snapshots shared metadata commits
        else:
            assert len(table.metadata.snapshots) < 18
        # Append-only, so DuckDB reading the live data files sees the rows too.
        got = duckdb.sql(f"SELECT id, region, name, score, ts FROM read_parquet({data_files(table)!r})"
                         ).to_arrow_table().to_pylist()
        assert by_id(got) == rows, name


def duckdb_with_iceberg():
    con = duckdb.connect()
    try:
        con.sql("LOAD iceberg")
    except duckdb.Error:
        try:
            con.sql("INSTALL iceberg")
            con.sql("LOAD iceberg")
        except duckdb.Error as error:
            pytest.skip(f"DuckDB {duckdb.__version__}'s iceberg extension cannot be loaded "
                        f"here (it is downloaded on first use): {str(error).splitlines()[0]}")
    return con


def test_duckdb_iceberg_scan(catalog, coalesced, upserted):
    con = duckdb_with_iceberg()
    for name, (_, rows) in {**coalesced, **upserted}.items():
        location = catalog.load_table(name).metadata_location
        got = con.sql(f"SELECT id, region, name, score, ts FROM iceberg_scan('{location}')"
                      ).to_arrow_table().to_pylist()
        assert by_id(got) == rows, name


def spark_rows(spark, name):
    spark.sql(f"REFRESH TABLE {name}")
    return by_id(row.asDict() for row in spark.sql(
        f"SELECT id, region, name, score, ts FROM {name}").collect())


def test_spark_reads_coalesced_tables(spark, coalesced):
    for name, (_, rows) in coalesced.items():
        assert spark_rows(spark, name) == rows, name


# --- upserts (equality deletes) -----------------------------------------------


@pytest.fixture(scope="module")
def upserted(catalog, ingest, tmp_path_factory):
    """Tables upserted through --stream and --coalesce; name → the rows they hold."""
    tables = {}
    # --stream --create --upsert-key: the key becomes a required column.
    base = {i: event(i) for i in range(1000)}
    ingest("--stream", "--create", "--upsert-key", "id", "coalesce.upsert_stream",
           stdin="".join(json_line(row) + "\n" for row in base.values()))
    with catalog.load_table("coalesce.upsert_stream").transaction() as transaction:
        transaction.set_properties(MERGE_OFTEN)
    changes = [event(i, name="changed") for i in range(0, 1000, 3)]
    changes += [event(2000 + i) for i in range(50)]          # new keys
    changes += [event(3, name="changed twice")]              # a later row of a key wins
    ingest("--stream", "--upsert-key", "id", "--batch-rows", 100, "coalesce.upsert_stream",
           stdin="".join(json_line(row) + "\n" for row in changes))
    # A third commit at least: it merges the manifests of the first two.
    last = event(7, name="last")
    ingest("--stream", "--upsert-key", "id", "coalesce.upsert_stream", stdin=json_line(last) + "\n")
    changes.append(last)
    for row in changes:
        base[row["id"]] = row
    tables["coalesce.upsert_stream"] = (None, by_id(base.values()))

    # --coalesce --upsert-key on a partitioned table keyed by (region, id):
    # files upsert in order, so the last file's row of a key wins.
    catalog.create_table("coalesce.upsert_files", schema=EVENTS,
                         partition_spec=PartitionSpec(
                             PartitionField(2, 1000, IdentityTransform(), "region")),
                         properties={"skade.commit.history-mode": "per-transaction",
                                     **MERGE_OFTEN})
    directory = tmp_path_factory.mktemp("upsert")
    state, paths = {}, []
    for f in range(12):
        part = [event(i, name=f"file-{f}") for i in range(f * 20, f * 20 + 60)]
        path = directory / f"u-{f:02d}.parquet"
        pq.write_table(events_arrow(part), path)
        paths.append(path)
        for row in part:
            state[(row["region"], row["id"])] = row
    ingest("--coalesce", "--upsert-key", "region,id", "coalesce.upsert_files", *paths[:10])
    # Two more commits at least: the last merges the manifests of earlier ones.
    for path in paths[10:]:
        ingest("--coalesce", "--upsert-key", "region,id", "coalesce.upsert_files", path)
    tables["coalesce.upsert_files"] = (None, by_id(state.values()))
    return tables


def test_spark_reads_upserts(spark, catalog, upserted):
    for name, (_, rows) in upserted.items():
        snapshots = catalog.load_table(name).metadata.snapshots
        assert any(int(s.summary.get("added-equality-delete-files", 0)) > 0 for s in snapshots)
        # Spark applies a delete file to rows of lower sequence numbers only:
        # merged manifests must keep them for the rows below to come out.
        assert_merged_manifests_keep_history(catalog.load_table(name))
        assert spark_rows(spark, name) == rows, name


def test_spark_reads_upserts_after_a_partition_spec_evolution(spark, catalog, ingest):
    """An upsert replaces the rows written under an earlier partition spec:
    unpartitioned, then by region (the deletes go under the first spec,
    which has no fields); by region, then bucket(id) (skade adds a spec
    without fields for them, the default stays bucket(id))."""
    def by_region(update):
        update.add_identity("region")

    def bucket_instead(update):
        update.remove_field("region")
        update.add_field("id", BucketTransform(4), "id_bucket")

    cases = [("coalesce.upsert_evolved", PartitionSpec(), by_region),
             ("coalesce.upsert_evolved_bucketed",
              PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region")),
              bucket_instead)]
    for name, first, evolve in cases:
        catalog.create_table(name, schema=EVENTS, partition_spec=first)
        rows = {i: event(i, name="old") for i in range(30)}
        ingest("--stream", "--upsert-key", "id,region", name,
               stdin="".join(json_line(row) + "\n" for row in rows.values()))
        with catalog.load_table(name).update_spec() as update:
            evolve(update)
        changes = [event(i, name="new") for i in range(0, 30, 2)]
        ingest("--stream", "--upsert-key", "id,region", name,
               stdin="".join(json_line(row) + "\n" for row in changes))
        rows.update((row["id"], row) for row in changes)
        assert catalog.load_table(name).spec().spec_id == 1, name
        assert spark_rows(spark, name) == by_id(rows.values()), name


def test_pyiceberg_refuses_equality_deletes(catalog, upserted):
    for name in upserted:
        with pytest.raises(ValueError, match="does not yet support equality deletes"):
            catalog.load_table(name).scan().to_arrow()
