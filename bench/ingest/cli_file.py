"""The end-to-end ingest shape of a new user: one Parquet file on disk into a
fresh table, as separate processes, on the same file.

  skade-cli      `skade --warehouse W ingest --create --table bench.t FILE`
                 (embedded catalog), wall time of the whole process.
  pyiceberg-sql  `pq.read_table(FILE)` + `table.append` into a fresh table of a
                 SqlCatalog (SQLite) — the same kind of catalog, embedded, on
                 local files; wall time of read + create + append only (the
                 interpreter's start and imports are left out, in PyIceberg's
                 favour).
  arrow-parquet  the limit on this machine: `pq.read_table` + writing the rows
                 back as one Parquet file per core (zstd, one thread each) —
                 Arrow's own decode and encode on every core, no catalog.

The file (generated unless --data is given) has --rows rows of long,
timestamptz, string with nulls, double and list<string>; 4 M rows make about
68 MB in 4 row groups (pyarrow's defaults). Each target runs --reps times in fresh processes, interleaved; the
median wall counts. peak_rss_mb is the process's peak resident set (wait4's
ru_maxrss), cores its CPU time over its wall. One JSON line per target
(scenario ingest_cli_file) goes to --out; the ratios are printed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PYICEBERG = r"""
import sys, time, json
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
path, warehouse = sys.argv[1], sys.argv[2]
start = time.perf_counter()
data = pq.read_table(path)
catalog = SqlCatalog("bench", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
catalog.create_namespace("bench")
table = catalog.create_table("bench.t", schema=data.schema)
table.append(data)
print(json.dumps({"wall": time.perf_counter() - start, "rows": data.num_rows}))
"""

RAW = r"""
import os, sys, time, json, threading
import pyarrow.parquet as pq
path, out = sys.argv[1], sys.argv[2]
start = time.perf_counter()
data = pq.read_table(path)
cores = os.cpu_count()
step = (data.num_rows + cores - 1) // cores
def write(i):
    pq.write_table(data.slice(i * step, step), f"{out}/part-{i}.parquet", compression="zstd")
threads = [threading.Thread(target=write, args=(i,)) for i in range(cores)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"wall": time.perf_counter() - start, "rows": data.num_rows}))
"""


def generate(path, rows):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    seed = [42]

    def integers(n, high):  # deterministic uniform integers in [0, high)
        seed[0] += 1
        return pc.cast(pc.floor(pc.multiply(pc.random(n, initializer=seed[0]), high)), pa.int64())

    words = pa.array([f"w{i:04d}" for i in range(5000)])
    chunk = 1 << 20
    writer = None
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        seed[0] += 1
        names = pc.if_else(pc.less(pc.random(n, initializer=seed[0]), 0.1),
                           pa.scalar(None, pa.string()), pc.take(words, integers(n, len(words))))
        counts = pc.cast(integers(n, 5), pa.int32())
        offsets = pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(counts)])
        tags = pa.ListArray.from_arrays(offsets, pc.take(words, integers(offsets[-1].as_py(), 300)))
        seed[0] += 1
        batch = pa.table({
            "id": pa.array(range(start, start + n), pa.int64()),
            # Events about 20 ms apart, as a log's are.
            "ts": pc.cast(pc.add(pc.multiply(pa.array(range(start, start + n), pa.int64()), 20_000),
                                 pc.add(integers(n, 1000), 1_700_000_000_000_000)),
                          pa.timestamp("us", "UTC")),
            "name": names,
            "score": pc.round(pc.multiply(pc.random(n, initializer=seed[0]), 10000), 1),
            "tags": tags,
        })
        if writer is None:
            writer = pq.ParquetWriter(path, batch.schema)
        writer.write_table(batch)
    writer.close()


def run(argv):
    """Runs argv; returns (wall seconds, cpu seconds, peak RSS MB, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skade", required=True, help="the skade binary")
    parser.add_argument("--data", help="Parquet input (default: generated)")
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--durability", default="immediate", help="skade's --durability")
    parser.add_argument("--run-id", default="adhoc")
    parser.add_argument("--out", default="-")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="skade-cli-bench-")
    try:
        data = args.data or os.path.join(scratch, "input.parquet")
        if not args.data:
            generate(data, args.rows)
        size_mb = os.path.getsize(data) / 1e6
        runs = {"skade-cli": [], "pyiceberg-sql": [], "arrow-parquet": []}
        rows = None
        for rep in range(args.reps):
            for target in runs:
                work = os.path.join(scratch, f"{target}-{rep}")
                os.makedirs(work)
                if target == "skade-cli":
                    wall, cpu, rss, out = run([args.skade, "--warehouse", work, "--durability",
                                               args.durability, "ingest", "--create", "--table",
                                               "bench.t", data])
                    inner = wall
                else:
                    script = PYICEBERG if target == "pyiceberg-sql" else RAW
                    wall, cpu, rss, out = run([sys.executable, "-c", script, data, work])
                    result = json.loads(out.strip().splitlines()[-1])
                    inner, rows = result["wall"], result["rows"]
                runs[target].append({"wall": inner, "process_wall": wall, "cores": cpu / wall,
                                     "rss": rss})
                shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    records = []
    for target, reps in runs.items():
        walls = [r["wall"] for r in reps]
        median = statistics.median(walls)
        middle = min(reps, key=lambda r: abs(r["wall"] - median))
        records.append({
            "target": target, "scenario": "ingest_cli_file", "run_id": args.run_id,
            "threads": os.cpu_count(), "ops": rows * len(reps), "ops_per_sec": rows / median,
            "p50_us": int(median * 1e6), "p99_us": int(max(walls) * 1e6),
            "p999_us": int(max(walls) * 1e6), "rows_per_sec": rows / median,
            "mb_per_sec": size_mb / median, "input_mb": round(size_mb, 1), "rows": rows,
            "commits": 0 if target == "arrow-parquet" else 1, "reps": len(reps),
            "cores": round(middle["cores"], 2),
            "peak_rss_mb": max(r["rss"] for r in reps),
            "durability": args.durability if target == "skade-cli" else None,
        })
    lines = "".join(json.dumps(r) + "\n" for r in records)
    if args.out == "-":
        sys.stdout.write(lines)
    else:
        with open(args.out, "a") as out:
            out.write(lines)
    by = {r["target"]: r for r in records}
    for r in records:
        print(f"{r['target']}: {r['p50_us'] / 1e6:.2f} s, {r['cores']} cores, "
              f"peak RSS {r['peak_rss_mb']:.0f} MB", file=sys.stderr)
    print(f"skade-cli / pyiceberg-sql: "
          f"{by['skade-cli']['rows_per_sec'] / by['pyiceberg-sql']['rows_per_sec']:.2f}x; "
          f"arrow-parquet (limit) / pyiceberg-sql: "
          f"{by['arrow-parquet']['rows_per_sec'] / by['pyiceberg-sql']['rows_per_sec']:.2f}x",
          file=sys.stderr)


if __name__ == "__main__":
    main()
