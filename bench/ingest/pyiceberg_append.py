"""The PyIceberg peer of skade_ingest_bench: `table.append` on the same
generated data (the file skade_ingest_bench --dump-data writes), into a
PyIceberg SqlCatalog (SQLite) warehouse, one append per files_per_commit
files — the same snapshots skade's IngestPipelined makes.

Appends one JSON line per run (target pyiceberg-sql, scenario
ingest_append, or ingest_commit_bound on the commit-bound data) with the fields of bench/README.md "Records" plus rows_per_sec,
mb_per_sec and commit_latency_ms, like skade_ingest_bench.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * (len(ordered) - 1) + 0.5))]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", required=True, help="Parquet file from --dump-data")
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--files-per-commit", type=int, default=4)
    parser.add_argument("--scenario", default="ingest_append",
                        help="ingest_append (bulk) or ingest_commit_bound (many small files)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--run-id", default="adhoc")
    parser.add_argument("--out", default="-")
    args = parser.parse_args()

    data = pq.read_table(args.data)
    rows_per_file = data.num_rows // args.files
    groups = [data.slice(i * rows_per_file, rows_per_file) for i in range(args.files)]
    appends = [pa.concat_tables(groups[i:i + args.files_per_commit])
               for i in range(0, args.files, args.files_per_commit)]
    arrow_bytes = sum(group.nbytes for group in groups)

    warehouse = tempfile.mkdtemp(prefix="pyiceberg-bench-")
    try:
        catalog = SqlCatalog("bench", uri=f"sqlite:///{warehouse}/catalog.db",
                             warehouse=f"file://{warehouse}")
        catalog.create_namespace("bench")
        walls = []
        for rep in range(args.reps):
            table = catalog.create_table(f"bench.t{rep}", schema=data.schema)
            start = time.perf_counter()
            for chunk in appends:
                table.append(chunk)
            walls.append(time.perf_counter() - start)
            assert len(table.metadata.snapshots) == len(appends)
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)

    median = statistics.median(walls)
    record = {
        "target": "pyiceberg-sql",
        "scenario": args.scenario,
        "threads": os.cpu_count(),
        "ops": data.num_rows * len(walls),
        "ops_per_sec": data.num_rows / median,
        "p50_us": int(median * 1e6),
        "p99_us": int(percentile(walls, 0.99) * 1e6),
        "p999_us": int(percentile(walls, 0.999) * 1e6),
        "run_id": args.run_id,
        "rows_per_sec": data.num_rows / median,
        "mb_per_sec": arrow_bytes / 1e6 / median,
        "commit_latency_ms": 0,
        "rows": data.num_rows,
        "files": args.files,
        "commits": len(appends),
        "files_per_commit": args.files_per_commit,
        "reps": len(walls),
        # The process's peak resident set, input data included (as skade's).
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    line = json.dumps(record)
    if args.out == "-":
        print(line)
    else:
        with open(args.out, "a") as out:
            out.write(line + "\n")
    print(f"pyiceberg-sql {args.scenario}: {record['rows_per_sec']:.0f} rows/s "
          f"(median {median * 1000:.0f} ms)", file=sys.stderr)


if __name__ == "__main__":
    main()
