"""The pyiceberg-sql peer of skade's benchmark harness: the scenarios of bench/README.md against
PyIceberg's SqlCatalog on SQLite, one JSON line per measured scenario on stdout, progress on stderr.

Usage: pyiceberg_bench.py --warehouse DIR --run-id ID [--tables N] [--tables-per-namespace K]
           [--threads N] [--ops N] [--commit-ops N] [--seconds S] [--warmup N]
"""

import argparse
import json
import math
import os
import pathlib
import random
import sys
import threading
import time

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.schema import Schema
from pyiceberg.table.refs import SnapshotRefType
from pyiceberg.table.snapshots import Operation, Snapshot, Summary
from pyiceberg.table.update import (
    AddSnapshotUpdate,
    AssertRefSnapshotId,
    AssertTableUUID,
    SetSnapshotRefUpdate,
)
from pyiceberg.types import LongType, NestedField, StringType

TARGET = "pyiceberg-sql"
# The group-commit target's committer count (bench/README.md "Performance bar").
MANY_COMMITTERS = 16
# One op may not hold the run longer than this (the time bound applies between ops).
OP_TIMEOUT_S = 60

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "data", StringType(), required=False),
)


def pick(thread: int, iteration: int, bound: int) -> int:
    """splitmix64 of (thread, iteration): the same table choice as every other driver."""
    mask = (1 << 64) - 1
    z = (((thread << 40) ^ iteration) + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return (z ^ (z >> 31)) % bound


class Layout:
    """The benchmark catalog's names, built once before any timed op (as every driver does,
    bench/README.md): a scenario times the catalog's call, not the formatting of a name."""

    def __init__(self, args):
        self.tables = args.tables
        self.per_ns = args.tables_per_namespace
        self._tables = [
            (f"bench_ns{index // self.per_ns:03d}", f"t{index:05d}") for index in range(self.tables)
        ]

    @property
    def namespaces(self) -> int:
        return math.ceil(self.tables / self.per_ns)

    def namespace(self, index: int) -> str:
        return self.table(index)[0]

    def table(self, index: int) -> tuple:
        return self._tables[index % self.tables]


def open_catalog(directory: pathlib.Path) -> SqlCatalog:
    return SqlCatalog(
        "bench",
        uri=f"sqlite:///{directory}/catalog.db",
        warehouse=f"file://{directory}/tables",
    )


def fast_append_snapshot(metadata, snapshot_id: int) -> Snapshot:
    """The snapshot of a fast append without data files on top of `metadata`'s current one, as
    skade's tests/testing/fast_append.h builds it."""
    return Snapshot(
        snapshot_id=snapshot_id,
        parent_snapshot_id=metadata.current_snapshot_id,
        sequence_number=metadata.last_sequence_number + 1,
        timestamp_ms=int(time.time() * 1000),
        manifest_list=f"{metadata.location}/metadata/snap-{snapshot_id}-1-manifest-list.avro",
        summary=Summary(Operation.APPEND, **{"added-data-files": "1", "added-records": "1"}),
        schema_id=metadata.current_schema_id,
    )


def append(catalog: SqlCatalog, identifier: tuple, conflicts: list, thread: int) -> None:
    """A fast-append-shaped commit without data files, the same requirements and updates as
    skade's tests/testing/fast_append.h, retried from a fresh load on a conflict."""
    snapshot_id = random.getrandbits(63)
    while True:
        table = catalog.load_table(identifier)
        metadata = table.metadata
        current = metadata.current_snapshot_id
        snapshot = fast_append_snapshot(metadata, snapshot_id)
        try:
            catalog.commit_table(
                table,
                requirements=(
                    AssertTableUUID(uuid=metadata.table_uuid),
                    AssertRefSnapshotId(ref="main", snapshot_id=current),
                ),
                updates=(
                    AddSnapshotUpdate(snapshot=snapshot),
                    SetSnapshotRefUpdate(
                        ref_name="main", type=SnapshotRefType.BRANCH, snapshot_id=snapshot_id
                    ),
                ),
            )
            return
        except CommitFailedException:
            conflicts[thread] += 1


class Measurement:
    def __init__(self, latencies_ns: list, wall_s: float):
        self.latencies_ns = sorted(latencies_ns)
        self.wall_s = wall_s

    def percentile_us(self, p: float) -> float:
        if not self.latencies_ns:
            return 0.0
        n = len(self.latencies_ns)
        rank = min(max(math.ceil(p * n), 1), n)
        return self.latencies_ns[rank - 1] / 1000.0


def measure(threads: int, ops: int, warmup: int, seconds: float, op) -> Measurement:
    """`threads` threads: `warmup` untimed ops each, a barrier, then timed ops until `ops` in total
    are done or `seconds` have passed. The first failure is raised once every thread stopped."""
    barrier = threading.Barrier(threads)
    per_thread = math.ceil(ops / threads)
    results = [None] * threads

    def worker(t: int) -> None:
        error = None
        try:
            for i in range(warmup):
                op(t, i)
        except Exception as e:  # reported below, after every thread has met the barrier
            error = e
        barrier.wait()
        start = time.perf_counter_ns()
        deadline = start + int(seconds * 1e9)
        latencies = []
        if error is None:
            try:
                for i in range(per_thread):
                    began = time.perf_counter_ns()
                    if began >= deadline:
                        break
                    op(t, warmup + i)
                    latencies.append(time.perf_counter_ns() - began)
            except Exception as e:
                error = e
        results[t] = (start, time.perf_counter_ns(), latencies, error)

    workers = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=seconds + OP_TIMEOUT_S)
        if w.is_alive():
            raise TimeoutError(f"one op took longer than {OP_TIMEOUT_S}s")
    for _, _, _, error in results:
        if error is not None:
            raise error
    start = min(r[0] for r in results)
    end = max(r[1] for r in results)
    return Measurement([x for r in results for x in r[2]], (end - start) / 1e9)


class Reporter:
    def __init__(self, args):
        self.args = args

    def emit(self, scenario, threads, run, variant="", notes="", conflicts=None):
        record = {
            "run_id": self.args.run_id,
            "target": TARGET,
            "scenario": scenario,
            "threads": threads,
            "catalog_tables": self.args.tables,
            "durability": "peer-default",
        }
        if variant:
            record["variant"] = variant
        try:
            m = run()
            ops = len(m.latencies_ns)
            record.update(
                ops=ops,
                ops_per_sec=round(ops / m.wall_s, 3) if m.wall_s > 0 else 0.0,
                p50_us=round(m.percentile_us(0.50), 3),
                p99_us=round(m.percentile_us(0.99), 3),
                p999_us=round(m.percentile_us(0.999), 3),
            )
        except Exception as e:
            record.update(ops=0, error=f"{type(e).__name__}: {e}"[:500])
        if conflicts is not None:
            record["conflicts"] = sum(conflicts)
        record["notes"] = notes
        print(json.dumps(record), flush=True)
        status = f"ops={record['ops']}" if "error" not in record else f"FAILED: {record['error']}"
        print(f"{TARGET}: {scenario} {variant} threads={threads} {status}", file=sys.stderr)


def run(args) -> None:
    layout = Layout(args)
    directory = pathlib.Path(args.warehouse).resolve() / "pyiceberg"
    directory.mkdir(parents=True, exist_ok=True)
    catalog = open_catalog(directory)
    began = time.monotonic()
    for n in range(layout.namespaces):
        catalog.create_namespace(layout.namespace(n * layout.per_ns))
    catalog.create_namespace("bench_create")
    catalog.create_namespace("bench_commit")
    for t in range(layout.tables):
        catalog.create_table(layout.table(t), schema=SCHEMA)
    print(f"{TARGET}: {layout.tables} tables created in {time.monotonic() - began:.1f}s", file=sys.stderr)
    # Written out before measuring, as every driver does (bench/README.md): the kernel's writeback
    # of the populate's files would otherwise take a core from the first scenarios.
    os.sync()

    report = Reporter(args)
    no_cache = "PyIceberg keeps no metadata cache: every load reads and parses the metadata file"
    thread_counts = sorted({1, min(2, args.threads), args.threads})

    cold = open_catalog(directory)
    report.emit(
        "load_table_cold", 1,
        lambda: measure(1, min(args.ops, layout.tables), 0, args.seconds,
                        lambda t, i: cold.load_table(layout.table(i))),
        notes=f"first load of each table by a new SqlCatalog; {no_cache}",
    )
    for threads in thread_counts:
        report.emit(
            "load_table_warm", threads,
            lambda: measure(threads, args.ops, args.warmup, args.seconds,
                            lambda t, i: catalog.load_table(layout.table(pick(t, i, layout.tables)))),
            notes=no_cache,
        )

    def exists(t, i):
        identifier = layout.table(pick(t, i, layout.tables))
        if not catalog.table_exists(identifier):
            raise RuntimeError(f"{identifier} reported missing")

    for threads in thread_counts:
        report.emit("table_exists", threads,
                    lambda: measure(threads, args.ops, args.warmup, args.seconds, exists))
    report.emit(
        "list_tables", 1,
        lambda: measure(1, args.ops, args.warmup, args.seconds,
                        lambda t, i: catalog.list_tables(layout.namespace(pick(t, i, layout.tables)))),
        notes=f"{layout.per_ns} tables per namespace",
    )
    report.emit(
        "list_namespaces", 1,
        lambda: measure(1, args.ops, args.warmup, args.seconds, lambda t, i: catalog.list_namespaces()),
        notes=f"{layout.namespaces + 2} namespaces",
    )
    report.emit(
        "create_table", 1,
        lambda: measure(1, args.commit_ops, 2, args.seconds,
                        lambda t, i: catalog.create_table(("bench_create", f"c{t}_{i}"), schema=SCHEMA)),
    )

    commit_note = ("fast-append-shaped commit, no data files; load + commit per op, retried on conflict; "
                   "SQLite through SQLAlchemy defaults, metadata files not fsynced")
    cases = [(1, "same_table")]
    for threads in sorted({args.threads, MANY_COMMITTERS}):
        if threads > 1:
            cases += [(threads, "same_table"), (threads, "different_tables")]
    for case, (threads, variant) in enumerate(cases):
        tables = [("bench_commit", f"k{case}_{t}") for t in range(1 if variant == "same_table" else threads)]
        for identifier in tables:
            catalog.create_table(identifier, schema=SCHEMA)
        # Each write case starts with the page cache clean, as every driver does (bench/README.md).
        os.sync()
        conflicts = [0] * threads
        report.emit(
            "commit", threads,
            lambda: measure(threads, args.commit_ops, 1, args.seconds,
                            lambda t, i: append(catalog, tables[t % len(tables)], conflicts, t)),
            variant=variant, notes=commit_note, conflicts=conflicts,
        )

    conflicts = [0] * args.threads

    def mixed(t, i):
        identifier = layout.table(pick(t, i, layout.tables))
        if pick(t, i ^ 0x5EED, 10) == 0:
            append(catalog, identifier, conflicts, t)
        else:
            catalog.load_table(identifier)

    os.sync()
    report.emit(
        "mixed_90_10", args.threads,
        lambda: measure(args.threads, args.ops, args.warmup, args.seconds, mixed),
        notes="90% load_table, 10% fast-append commit, random tables", conflicts=conflicts,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--tables-per-namespace", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ops", type=int, default=20_000)
    parser.add_argument("--commit-ops", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--warmup", type=int, default=100)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
