"""The pyiceberg-sql peer of the time-travel scenarios (bench/README.md "Time travel"): PyIceberg's
SqlCatalog on SQLite, a history of fast appends that expire all but the last few snapshots, then
`load_table_at_snapshot` and `batch_load_planning` the way PyIceberg can answer them. One JSON line
per scenario on stdout, progress on stderr.

PyIceberg has no commit log: to load a table as of a snapshot it loads the table, looks for the
snapshot in the current metadata and, if it was expired, reads the previous metadata files of
`metadata-log` (newest first) until one holds it. The metadata log keeps
write.metadata.previous-versions-max files (default 100), so older snapshots are out of its reach:
the keys are drawn among those it can reach, and the records say how many it cannot.

Usage: pyiceberg_time_travel.py --warehouse DIR --run-id ID [--tables N] [--commits N]
           [--populate-seconds S] [--keep-snapshots K] [--ops N] [--seconds S] [--warmup N]
           [--keys-per-call N] [--batch-ops N]
"""

import argparse
import json
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pyiceberg_bench import (  # noqa: E402
    SCHEMA,
    Measurement,
    fast_append_snapshot,
    measure,
    open_catalog,
    pick,
)

from pyiceberg.serializers import FromInputFile  # noqa: E402
from pyiceberg.table.refs import SnapshotRefType  # noqa: E402
from pyiceberg.table.update import (  # noqa: E402
    AddSnapshotUpdate,
    AssertRefSnapshotId,
    AssertTableUUID,
    RemoveSnapshotsUpdate,
    SetSnapshotRefUpdate,
)

TARGET = "pyiceberg-sql"
NAMESPACE = "bench_history"


def append_expiring(catalog, identifier: tuple, live: list, keep: int) -> int:
    """One fast-append-shaped commit without data files (as pyiceberg_bench.append and skade's
    tests/testing/fast_append.h) that also removes the oldest snapshot beyond the last `keep`, in the
    same commit. Single-threaded population: a conflict is an error. Returns the new snapshot id."""
    snapshot_id = random.getrandbits(63)
    table = catalog.load_table(identifier)
    metadata = table.metadata
    current = metadata.current_snapshot_id
    snapshot = fast_append_snapshot(metadata, snapshot_id)
    updates = [
        AddSnapshotUpdate(snapshot=snapshot),
        SetSnapshotRefUpdate(ref_name="main", type=SnapshotRefType.BRANCH, snapshot_id=snapshot_id),
    ]
    live.append(snapshot_id)
    if len(live) > keep:
        updates.append(RemoveSnapshotsUpdate(snapshot_ids=[live.pop(0)]))
    catalog.commit_table(
        table,
        requirements=(AssertTableUUID(uuid=metadata.table_uuid),
                      AssertRefSnapshotId(ref="main", snapshot_id=current)),
        updates=tuple(updates),
    )
    return snapshot_id


class Walker:
    """PyIceberg's way to a table as of a snapshot: the current metadata, then the metadata log."""

    def __init__(self, catalog, identifiers: list):
        self.catalog = catalog
        self.identifiers = identifiers
        self.file_reads = 0  # previous metadata files read
        self.ops = 0  # load_at / plan calls

    def previous(self, table):
        """The previous metadata files of `table`, newest first, read one by one."""
        for entry in reversed(table.metadata.metadata_log):
            self.file_reads += 1
            yield FromInputFile.table_metadata(table.io.new_input(entry.metadata_file))

    def load_at(self, identifier: tuple, snapshot_id: int):
        self.ops += 1
        table = self.catalog.load_table(identifier)
        if table.metadata.snapshot_by_id(snapshot_id) is not None:
            return table.metadata
        for metadata in self.previous(table):
            if metadata.snapshot_by_id(snapshot_id) is not None:
                return metadata
        raise LookupError(f"snapshot {snapshot_id} of {identifier} not in its metadata log")

    def plan(self, keys: list) -> dict:
        """Many lookups at once, grouped by table: one load and at most one walk of the log per
        table, so no file is read twice in a call."""
        self.ops += 1
        by_table = {}
        for table_index, snapshot_id in keys:
            by_table.setdefault(table_index, set()).add(snapshot_id)
        found = {}
        for table_index, wanted in by_table.items():
            table = self.catalog.load_table(self.identifiers[table_index])
            left = {s for s in wanted if table.metadata.snapshot_by_id(s) is None}
            found.update({(table_index, s): table.metadata for s in wanted - left})
            if left:
                for metadata in self.previous(table):
                    hits = {s for s in left if metadata.snapshot_by_id(s) is not None}
                    found.update({(table_index, s): metadata for s in hits})
                    left -= hits
                    if not left:
                        break
            if left:
                raise LookupError(f"{len(left)} snapshots of table {table_index} not in its log")
        return found


def emit(args, scenario, measured, numbers=None, notes="", variant=""):
    record = {"run_id": args.run_id, "target": TARGET, "scenario": scenario, "threads": 1,
              "catalog_tables": args.tables, "durability": "peer-default"}
    if variant:
        record["variant"] = variant
    try:
        m = measured() if callable(measured) else measured
        ops = len(m.latencies_ns)
        record.update(ops=ops, ops_per_sec=round(ops / m.wall_s, 3) if m.wall_s > 0 else 0.0,
                      p50_us=round(m.percentile_us(0.50), 3), p99_us=round(m.percentile_us(0.99), 3),
                      p999_us=round(m.percentile_us(0.999), 3))
        for key, value in (numbers(m) if callable(numbers) else numbers or {}).items():
            record[key] = round(value, 3) if isinstance(value, float) else value
    except Exception as e:
        record.update(ops=0, error=f"{type(e).__name__}: {e}"[:500])
    record["notes"] = notes
    print(json.dumps(record), flush=True)
    status = f"ops={record['ops']}" if "error" not in record else f"FAILED: {record['error']}"
    print(f"{TARGET}: {scenario} {status}", file=sys.stderr)
    return record


def run(args) -> None:
    directory = pathlib.Path(args.warehouse).resolve() / "pyiceberg-time-travel"
    directory.mkdir(parents=True, exist_ok=True)
    catalog = open_catalog(directory)
    catalog.create_namespace(NAMESPACE)
    identifiers = [(NAMESPACE, f"h{t:05d}") for t in range(args.tables)]
    for identifier in identifiers:
        catalog.create_table(identifier, schema=SCHEMA)

    # Round-robin over the tables until the commit count or the time budget is reached, so every
    # table has the same history length (±1).
    live = [[] for _ in identifiers]
    history = [[] for _ in identifiers]
    latencies = []
    began = time.monotonic()
    last_progress = began
    deadline = began + args.populate_seconds
    while len(latencies) < args.commits and time.monotonic() < deadline:
        t = len(latencies) % len(identifiers)
        start = time.perf_counter_ns()
        history[t].append(append_expiring(catalog, identifiers[t], live[t], args.keep_snapshots))
        latencies.append(time.perf_counter_ns() - start)
        if time.monotonic() - last_progress >= 5:
            last_progress = time.monotonic()
            elapsed = last_progress - began
            print(f"{TARGET}: populated {len(latencies)} commits in {elapsed:.0f} s "
                  f"({len(latencies) / elapsed:.0f} commits/s)", file=sys.stderr)
    populate_s = time.monotonic() - began
    commits = len(latencies)
    budget_note = ("the time budget" if commits < args.commits else "the commit count")
    emit(args, "populate_history", Measurement(latencies, populate_s),
         {"commits": commits, "seconds": populate_s, "commits_per_table": commits / len(identifiers)},
         f"{len(identifiers)} tables, round-robin fast appends (no data files) each expiring the oldest "
         f"snapshot beyond the last {args.keep_snapshots}, until {budget_note} ({args.populate_seconds:.0f} s "
         f"or {args.commits:,} commits) was reached; one thread; SQLite through SQLAlchemy defaults, "
         "metadata files not fsynced")

    # What PyIceberg can reach: every snapshot of the current metadata and of the files its metadata
    # log still names.
    walker = Walker(catalog, identifiers)
    reachable = []
    for t, identifier in enumerate(identifiers):
        table = catalog.load_table(identifier)
        seen = {s.snapshot_id for s in table.metadata.snapshots}
        for metadata in walker.previous(table):
            seen.update(s.snapshot_id for s in metadata.snapshots)
        reachable += [(t, s) for s in history[t] if s in seen]
    unreachable = commits - len(reachable)
    print(f"{TARGET}: {len(reachable)} of {commits} snapshots reachable through the metadata log",
          file=sys.stderr)
    if not reachable:
        raise SystemExit(f"{TARGET}: no reachable snapshot")
    reach = {"commit_log_commits": commits, "reachable_snapshots": len(reachable),
             "unreachable_snapshots": unreachable}
    shape = (f"{commits:,} commits over {len(identifiers)} tables (what PyIceberg populated in the "
             f"budget; a smaller history only favours it); keys drawn among the {len(reachable):,} "
             f"snapshots its metadata log can reach ({unreachable:,} it cannot: "
             "write.metadata.previous-versions-max, default 100)")

    def reads_per_op() -> float:
        """Previous metadata files read per op since the last reset (warm-up included)."""
        return walker.file_reads / max(1, walker.ops)

    def load_at(t, i):
        table_index, snapshot_id = reachable[pick(t, i, len(reachable))]
        walker.load_at(identifiers[table_index], snapshot_id)

    walker.file_reads = walker.ops = 0
    emit(args, "load_table_at_snapshot",
         lambda: measure(1, args.ops, args.warmup, args.seconds, load_at),
         lambda m: {**reach, "file_reads_per_op": reads_per_op()},
         "load the table, look for the snapshot in its metadata, else read the metadata log's files "
         "newest first (FromInputFile.table_metadata) until one holds it — the newest file holding "
         f"it, which takes fewer reads than the file that committed it; {shape}")

    def batch(t, i):
        keys = [reachable[pick(t, i * args.keys_per_call + k, len(reachable))]
                for k in range(args.keys_per_call)]
        walker.plan(keys)

    walker.file_reads = walker.ops = 0
    emit(args, "batch_load_planning",
         lambda: measure(1, args.batch_ops, 1, args.seconds, batch),
         lambda m: {**reach, "keys_per_call": args.keys_per_call,
                    "ns_per_key": m.wall_s * 1e9 / max(1, len(m.latencies_ns) * args.keys_per_call),
                    "file_reads_per_op": reads_per_op()},
         f"{args.keys_per_call} random reachable (table, snapshot) keys per op, grouped by table: one "
         "load and at most one walk of the metadata log per table (no file read twice in a call); "
         f"{shape}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--commits", type=int, default=1_000_000, help="upper bound")
    parser.add_argument("--populate-seconds", type=float, default=240.0)
    parser.add_argument("--keep-snapshots", type=int, default=5)
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--keys-per-call", type=int, default=1000)
    parser.add_argument("--batch-ops", type=int, default=100)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
