"""The pyiceberg-sql peer of the `coalesce` scenario (bench/README.md): `table.append` of one small
Arrow table per logical write into PyIceberg's SqlCatalog on SQLite, one JSON line on stdout.

`--threads` writers (1: the per-append loop) each make `--writes-per-writer` appends of `--rows`
rows, writer w's k-th write into table (w + k) mod `--tables`. An append that loses to a concurrent
one (CommitFailedException) is redone from a fresh load and counted in `conflicts`. At the end every
table must hold exactly the rows of the acknowledged appends, or the record carries an error and the
process exits 1.

Usage: pyiceberg_coalesce.py --warehouse DIR --run-id ID [--threads N] [--writes-per-writer K]
           [--rows R] [--tables T] [--seconds S]
"""

import argparse
import json
import math
import pathlib
import resource
import sys
import threading
import time

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "data", StringType(), required=False),
)
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("data", pa.string())])
NAMESPACE = "bench_coalesce"


def batch(first: int, rows: int) -> pa.Table:
    ids = list(range(first, first + rows))
    return pa.Table.from_arrays([pa.array(ids, pa.int64()), pa.array([f"row-{i}" for i in ids])],
                                schema=ARROW_SCHEMA)


def percentile_us(sorted_ns: list, p: float) -> float:
    if not sorted_ns:
        return 0.0
    rank = min(max(1, math.ceil(p * len(sorted_ns))), len(sorted_ns))
    return sorted_ns[rank - 1] / 1000.0


def table_rows(table) -> tuple:
    """(rows in the live data files, the current snapshot's total-records)."""
    snapshot = table.current_snapshot()
    if snapshot is None:
        return 0, 0
    live = sum(task.file.record_count for task in table.scan().plan_files())
    return live, int(snapshot.summary["total-records"])


def run(args) -> int:
    directory = pathlib.Path(args.warehouse)
    directory.mkdir(parents=True, exist_ok=True)
    catalog = SqlCatalog("bench", uri=f"sqlite:///{directory}/catalog.db",
                         warehouse=f"file://{directory}/tables")
    catalog.create_namespace(NAMESPACE)
    names = [(NAMESPACE, f"c{t:02d}") for t in range(args.tables)]
    for name in names:
        catalog.create_table(name, SCHEMA)
    batches = [[batch((w * args.writes_per_writer + k) * args.rows, args.rows)
                for k in range(args.writes_per_writer)] for w in range(args.threads)]

    lock = threading.Lock()
    latencies, rows, errors = [], [0] * args.tables, []
    counts = {"conflicts": 0, "last_end": 0.0}
    barrier = threading.Barrier(args.threads + 1)
    began = [0.0]

    def writer(w: int) -> None:
        mine, conflicts = [], 0
        barrier.wait()
        deadline = began[0] + args.seconds
        for k in range(args.writes_per_writer):
            start = time.perf_counter_ns()
            if start / 1e9 >= deadline:
                break
            t = (w + k) % args.tables
            try:
                while True:
                    table = catalog.load_table(names[t])
                    try:
                        table.append(batches[w][k])
                        break
                    except CommitFailedException:
                        conflicts += 1
            except Exception as e:  # noqa: BLE001  (a peer's failure is recorded, not raised)
                with lock:
                    errors.append(f"{type(e).__name__}: {e}")
                continue
            end = time.perf_counter_ns()
            mine.append(end - start)
            with lock:
                rows[t] += args.rows
                counts["last_end"] = max(counts["last_end"], end / 1e9)
        with lock:
            latencies.extend(mine)
            counts["conflicts"] += conflicts

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(args.threads)]
    for thread in threads:
        thread.start()
    began[0] = time.perf_counter_ns() / 1e9
    barrier.wait()
    for thread in threads:
        thread.join()
    wall = max(counts["last_end"] - began[0], 0.0)

    error = ""
    if errors:
        error = f"{len(errors)} writes failed; the first: {errors[0]}"
    else:
        for t, name in enumerate(names):
            live, total = table_rows(catalog.load_table(name))
            if live != rows[t] or total != rows[t]:
                error = (f"verification failed: table {'.'.join(name)} holds {live} rows in its live "
                         f"data files and total-records {total}, but {rows[t]} rows were acknowledged")
                break

    latencies.sort()
    ops = len(latencies)
    shape = (f"{args.rows}_row{'' if args.rows == 1 else 's'}/"
             f"{args.tables}_table{'' if args.tables == 1 else 's'}")
    record = {
        "run_id": args.run_id, "target": "pyiceberg-sql", "scenario": "coalesce", "variant": shape,
        "threads": args.threads, "durability": "peer-default", "rows_per_write": args.rows,
        "tables": args.tables, "writes_per_writer": args.writes_per_writer,
        "acknowledged_writes": ops, "physical_commits": ops,
        "physical_commits_per_sec": ops / wall if wall > 0 else 0.0, "data_files": ops,
        "conflicts": counts["conflicts"], "errors": len(errors), "wall_seconds": wall,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "notes": ("load_table + table.append per write (one data file, one snapshot), SQLite; "
                  "conflicts = appends redone from a fresh load after CommitFailedException; "
                  "data files are not fsynced"),
    }
    if error:
        record.update(ops=0, error=error)
    else:
        record.update(ops=ops, ops_per_sec=ops / wall if wall > 0 else 0.0,
                      p50_us=percentile_us(latencies, 0.50), p99_us=percentile_us(latencies, 0.99),
                      p999_us=percentile_us(latencies, 0.999))
    print(json.dumps(record), flush=True)
    if error:
        print(f"pyiceberg coalesce: {error}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--run-id", default="adhoc")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--writes-per-writer", type=int, default=10)
    parser.add_argument("--rows", type=int, default=1)
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
