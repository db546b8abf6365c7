"""Ingest into an S3 warehouse (bench/README.md "Object storage"): `skade ingest` against PyIceberg
appending the same data into the same MinIO, each in its own processes, one JSON line per target and
scenario on --out.

Scenarios (--scenarios, comma-separated):
  bulk          one generated Parquet file (--bulk-rows rows, row groups of 2^20 rows) into a fresh
                table in one snapshot: `skade ingest` (variant serial) and `skade ingest --overlap`
                (variant overlap), against PyIceberg `pq.read_table` + one `table.append`.
  commit_bound  --small-files Parquet files of --small-rows rows, --files-per-commit per snapshot:
                `skade ingest --files-per-commit K` (serial: every file written, then the commits
                one after another) and with `--overlap` (the committer beside the writes), against
                PyIceberg reading the files and appending K at a time (the same snapshots). Also
                skade with the same files in one commit (variant one_commit) and with the first
                file alone (one_file): what the commits and the fixed costs of a run take.
  concurrent    --writers writers into one shared table, --concurrent-files files of --small-rows
                rows, one logical write each: `skade ingest --coalesce --writers W` (the coalescing
                committer: many writes, few commits) against PyIceberg with W threads, each
                appending its files one by one (file i to writer i mod W) and redoing an append
                that lost to another (CommitFailedException) from a fresh load.
  memory        one multi-GB Parquet file (--memory-rows rows) into a fresh table with
                `skade ingest`, and the same of a --memory-baseline-rows file: peak RSS of each,
                against the S3 upload buffers' bound, part size (Arrow's fixed 10 MiB) × parts in
                flight (s3.multipart.parts-in-flight, passed explicitly). Then the S3 FileIO alone
                (skade_s3_stream_memory, target skade-s3-fileio): one object of --stream-bytes
                streamed through NewOutputFile, and one an eighth the size; the peak of Arrow's
                memory pool (the part buffers: what the upload held) and the peak RSS over the RSS
                before the upload (which also counts freed buffers the allocator kept).

Every run makes a fresh table (a new warehouse prefix in --bucket and a new local catalog: skade's
LMDB store, PyIceberg's SqlCatalog on SQLite). Runs are --reps times, targets interleaved; the
median wall counts. skade's wall is its whole process (start, catalog open, read, encode, upload,
commit); PyIceberg's is its read + create + append(s), without the interpreter's start and imports
(in its favour). peak_rss_mb is the process's peak resident set (GNU time's %M, /usr/bin/time -v's
"Maximum resident set size").

Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (both clients read them). --added-latency-ms
only labels the records (scripts/bench.sh puts MinIO behind skade_delay_line for that).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ingest"))
import cli_file  # noqa: E402  (bench/ingest/cli_file.py: the generated data)

# Arrow's S3 multipart part size (fixed; s3/s3_config.h).
PART_SIZE_MB = 10 * 1024 * 1024 / 1e6
ROW_GROUP = 1 << 20

PYICEBERG = r"""
import json, os, sys, threading, time
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException
config = json.loads(sys.argv[1])
start = time.perf_counter()
catalog = SqlCatalog("bench", uri=f"sqlite:///{config['catalog']}", warehouse=config["warehouse"],
                     **config["properties"])
catalog.create_namespace("bench")
files = config["files"]
first = pq.read_table(files[0])
table = catalog.create_table("bench.t", schema=first.schema)
rows = commits = conflicts = 0
if config["writers"] == 0:
    per = config["files_per_commit"] or len(files)
    for i in range(0, len(files), per):
        chunk = pa.concat_tables([first if f == files[0] else pq.read_table(f) for f in files[i:i + per]])
        table.append(chunk)
        rows += chunk.num_rows
        commits += 1
else:
    lock = threading.Lock()
    errors = []
    def writer(w):
        global rows, commits, conflicts
        for path in files[w::config["writers"]]:
            data = pq.read_table(path)
            while True:
                try:
                    catalog.load_table("bench.t").append(data)
                    break
                except CommitFailedException:
                    with lock:
                        conflicts += 1
            with lock:
                rows += data.num_rows
                commits += 1
    threads = [threading.Thread(target=writer, args=(w,)) for w in range(config["writers"])]
    for t in threads: t.start()
    for t in threads: t.join()
wall = time.perf_counter() - start
total = int(catalog.load_table("bench.t").current_snapshot().summary["total-records"])
print(json.dumps({"wall": wall, "rows": rows, "commits": commits, "conflicts": conflicts,
                  "total_records": total}))
"""


# The peak RSS comes from GNU time (as `/usr/bin/time -v`'s "Maximum resident set size"), not from
# this process's wait4: Linux carries the pre-exec memory of a vfork/fork child (this interpreter's,
# with the generated data in it) into the child's ru_maxrss.
TIME = "/usr/bin/time"


class Runner:
    """Runs the targets' processes and measures them (wall, CPU, peak RSS)."""

    def __init__(self, args):
        self.args = args
        self.count = 0

    def _measured(self, argv):
        """Runs argv under /usr/bin/time; its wall, CPU and peak RSS, and its stdout."""
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as scratch:
            usage_path = os.path.join(scratch, "usage")
            err_path = os.path.join(scratch, "stderr")
            with open(err_path, "w") as err:
                proc = subprocess.run([TIME, "-f", "%M %U %S", "-o", usage_path, *argv],
                                      stdout=subprocess.PIPE, stderr=err, text=True)
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                with open(err_path) as err:
                    raise RuntimeError(f"{os.path.basename(argv[0])} exited {proc.returncode}: "
                                       f"{err.read().strip()[-800:]}")
            with open(usage_path) as usage:
                rss_kb, user, system = usage.read().split()[-3:]
        return {"process_wall": wall, "cpu": float(user) + float(system),
                "rss_mb": int(rss_kb) / 1024, "stdout": proc.stdout}

    def fresh(self, name):
        self.count += 1
        prefix = f"{name}-{self.count}"
        local = os.path.join(self.args.work, prefix)
        os.makedirs(local)
        return f"s3://{self.args.bucket}/{prefix}", local

    def skade(self, name, files, extra):
        warehouse, local = self.fresh(name)
        argv = [self.args.skade, "--warehouse", warehouse, "--store", os.path.join(local, "store"),
                "--s3-endpoint", self.args.endpoint, "--io",
                f"s3.multipart.parts-in-flight={self.args.parts_in_flight}",
                "--durability", self.args.durability, "ingest", "--create", "--table", "bench.t",
                *extra, *files]
        result = self._measured(argv)
        shutil.rmtree(local, ignore_errors=True)
        out = result["stdout"]
        match = re.search(r"ingested (\d+) rows.*?(\d+) commits? in", out) or re.search(
            r"ingested (\d+) rows.*?(\d+) physical commits", out)
        if not match:
            raise RuntimeError(f"skade ingest printed no summary: {out.strip()[-300:]}")
        # "N snapshots, M commits" when a commit chained several (--overlap).
        chained = re.search(r"(\d+) snapshots, \d+ commits? in", out)
        result.update(wall=result["process_wall"], rows=int(match.group(1)),
                      commits=int(match.group(2)), conflicts=0,
                      snapshots=int(chained.group(1)) if chained else int(match.group(2)))
        return result

    def stream(self, name, size):
        """skade_s3_stream_memory: `size` generated bytes streamed through the S3 FileIO; its
        peak RSS over the RSS before the upload (the tool resets the peak when it starts)."""
        stream_tool = os.path.join(os.path.dirname(self.args.skade), "skade_s3_stream_memory")
        result = self._measured([stream_tool, "--endpoint", self.args.endpoint, "--bucket",
                                 self.args.bucket, "--key", f"{name}-{size}.bin", "--bytes",
                                 str(size), "--parts-in-flight", str(self.args.parts_in_flight)])
        line = json.loads(result["stdout"].strip().splitlines()[-1])
        result.update(wall=line["seconds"], rows=size, commits=0, conflicts=0,  # MiB -> MB:
                      growth_mb=line["growth_mb"] * 1.048576,
                      arrow_peak_mb=line["arrow_peak_mb"] * 1.048576)
        return result

    def pyiceberg(self, name, files, files_per_commit=0, writers=0):
        warehouse, local = self.fresh(name)
        config = {
            "catalog": os.path.join(local, "catalog.db"), "warehouse": warehouse, "files": files,
            "files_per_commit": files_per_commit, "writers": writers,
            "properties": {
                "s3.endpoint": self.args.endpoint, "s3.region": os.environ.get("AWS_REGION", "us-east-1"),
                "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
                "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"],
            },
        }
        result = self._measured([self.args.python, "-c", PYICEBERG, json.dumps(config)])
        shutil.rmtree(local, ignore_errors=True)
        inner = json.loads(result["stdout"].strip().splitlines()[-1])
        if inner["total_records"] != inner["rows"]:
            raise RuntimeError(f"PyIceberg table holds {inner['total_records']} rows, appended {inner['rows']}")
        result.update(inner)
        return result


def record(args, target, scenario, variant, reps, input_files, extra=None):
    walls = [r["wall"] for r in reps]
    median = statistics.median(walls)
    middle = min(reps, key=lambda r: abs(r["wall"] - median))
    rows = middle["rows"]
    input_mb = sum(os.path.getsize(f) for f in input_files) / 1e6
    out = {
        "run_id": args.run_id, "target": target, "scenario": scenario, "threads": os.cpu_count(),
        "ops": rows * len(reps), "ops_per_sec": rows / median, "p50_us": int(median * 1e6),
        "p99_us": int(max(walls) * 1e6), "p999_us": int(max(walls) * 1e6),
        "rows_per_sec": rows / median, "mb_per_sec": input_mb / median, "input_mb": round(input_mb, 1),
        "input_files": len(input_files), "rows": rows, "commits": middle["commits"],
        "snapshots": middle.get("snapshots", middle["commits"]),
        "reps": len(reps), "cores": round(middle["cpu"] / middle["process_wall"], 2),
        "peak_rss_mb": round(max(r["rss_mb"] for r in reps), 1),
        "added_latency_ms": args.added_latency_ms, "storage": args.storage,
        "durability": args.durability if target == "skade-cli" else "peer-default",
    }
    if variant:
        out["variant"] = variant
    # The S3 FileIO's stream: the peak of Arrow's pool (what it held) and of RSS over the RSS
    # before the upload.
    for key in ("arrow_peak_mb", "growth_mb"):
        if key in middle:
            out[key] = round(middle[key], 1)
    if args.notes:
        out["notes"] = args.notes
    out.update(extra or {})
    return out


def failure(args, target, scenario, variant, error):
    out = {"run_id": args.run_id, "target": target, "scenario": scenario, "threads": 0, "ops": 0,
           "added_latency_ms": args.added_latency_ms, "error": error}
    if variant:
        out["variant"] = variant
    return out


def measure(args, runner, scenario, cases, input_files):
    """cases: (target, variant, function() -> result, extra fields, of which "inputs" replaces
    input_files for that case); runs them --reps times, interleaved; returns one record per case
    (an error record for a case that failed)."""
    results = {i: [] for i in range(len(cases))}
    errors = {}
    for rep in range(args.reps):
        for i, (target, variant, call, _) in enumerate(cases):
            if i in errors:
                continue
            try:
                results[i].append(call())
            except Exception as e:  # a failed target gets a record saying why
                errors[i] = f"{type(e).__name__}: {e}"
            outcome = errors[i] if i in errors else f"{results[i][-1]['wall']:.2f} s"
            print(f"s3_ingest: {scenario} {target} {variant} rep {rep + 1}: {outcome}",
                  file=sys.stderr)
    name = "s3_ingest" if scenario == "bulk" else f"s3_ingest_{scenario}"
    out = []
    for i, (target, variant, _, extra) in enumerate(cases):
        if i in errors:
            out.append(failure(args, target, name, variant, errors[i]))
        else:
            reps = results[i]
            fields = dict(extra)
            inputs = fields.pop("inputs", input_files)
            fields["conflicts"] = max(r.get("conflicts", 0) for r in reps)
            out.append(record(args, target, name, variant, reps, inputs, fields))
    return out


def generate_files(directory, count, rows):
    paths = []
    os.makedirs(directory, exist_ok=True)
    for i in range(count):
        path = os.path.join(directory, f"part-{i:04d}.parquet")
        cli_file.generate(path, rows)
        paths.append(path)
    return paths


def generate_large(path, rows):
    """A Parquet file of `rows` rows in row groups of 2^20 rows without generating every row: one
    generated group repeated, its ids and timestamps moved on each time (Parquet encode is the
    cost, a few seconds per 100 MB)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    template_path = path + ".template"
    cli_file.generate(template_path, ROW_GROUP)
    template = pq.read_table(template_path)
    os.unlink(template_path)
    writer = pq.ParquetWriter(path, template.schema)
    for start in range(0, rows, ROW_GROUP):
        n = min(ROW_GROUP, rows - start)
        group = template.slice(0, n)
        group = group.set_column(0, "id", pc.add(group["id"], pa.scalar(start, pa.int64())))
        group = group.set_column(1, "ts", pc.add(group["ts"], pa.scalar(start * 20_000, pa.duration("us"))))
        writer.write_table(group, row_group_size=ROW_GROUP)
    writer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skade", required=True)
    parser.add_argument("--python", default=sys.executable, help="Python with PyIceberg")
    parser.add_argument("--endpoint", required=True, help="http://HOST:PORT of the S3 server")
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--work", required=True, help="scratch directory (inputs, local catalogs)")
    parser.add_argument("--data", help="directory of inputs to reuse (made if missing)")
    parser.add_argument("--run-id", default="adhoc")
    parser.add_argument("--out", default="-")
    parser.add_argument("--scenarios", default="bulk,commit_bound,concurrent")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--bulk-rows", type=int, default=4_000_000)
    parser.add_argument("--small-files", type=int, default=40)
    parser.add_argument("--small-rows", type=int, default=2000)
    parser.add_argument("--files-per-commit", type=int, default=4)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--concurrent-files", type=int, default=64)
    parser.add_argument("--memory-rows", type=int, default=150 * ROW_GROUP)
    parser.add_argument("--memory-baseline-rows", type=int, default=16 * ROW_GROUP)
    parser.add_argument("--stream-bytes", type=int, default=2 << 30,
                        help="memory: bytes streamed through the S3 FileIO alone (and an eighth)")
    parser.add_argument("--parts-in-flight", type=int, default=4)
    parser.add_argument("--durability", default="immediate")
    parser.add_argument("--added-latency-ms", type=float, default=0)
    parser.add_argument("--storage", default="MinIO on this machine")
    parser.add_argument("--notes", default="")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    data = args.data or os.path.join(args.work, "data")
    os.makedirs(data, exist_ok=True)
    runner = Runner(args)
    scenarios = args.scenarios.split(",")
    records = []

    if "bulk" in scenarios:
        bulk = os.path.join(data, f"bulk-{args.bulk_rows}.parquet")
        if not os.path.exists(bulk):
            cli_file.generate(bulk, args.bulk_rows)
        records += measure(args, runner, "bulk", [
            ("skade-cli", "serial", lambda: runner.skade("bulk-skade", [bulk], []), {}),
            ("skade-cli", "overlap", lambda: runner.skade("bulk-skade-overlap", [bulk], ["--overlap"]), {}),
            ("pyiceberg-sql", "", lambda: runner.pyiceberg("bulk-py", [bulk]), {}),
        ], [bulk])

    if "commit_bound" in scenarios or "concurrent" in scenarios:
        count = max(args.small_files, args.concurrent_files if "concurrent" in scenarios else 0)
        small_dir = os.path.join(data, f"small-{args.small_rows}")
        have = sorted(f for f in os.listdir(small_dir)) if os.path.isdir(small_dir) else []
        small = ([os.path.join(small_dir, f) for f in have[:count]] if len(have) >= count
                 else generate_files(small_dir, count, args.small_rows))
    if "commit_bound" in scenarios:
        files = small[:args.small_files]
        fpc = args.files_per_commit
        shape = {"files_per_commit": fpc}
        records += measure(args, runner, "commit_bound", [
            ("skade-cli", "serial",
             lambda: runner.skade("cb-skade", files, ["--files-per-commit", str(fpc)]), shape),
            ("skade-cli", "overlap",
             lambda: runner.skade("cb-skade-overlap", files, ["--files-per-commit", str(fpc), "--overlap"]),
             shape),
            ("pyiceberg-sql", "", lambda: runner.pyiceberg("cb-py", files, files_per_commit=fpc), shape),
            # What the commits cost: the same files in one commit (the writes without the
            # commits), and one file in one commit (what every run pays: start, create, one commit).
            ("skade-cli", "one_commit", lambda: runner.skade("cb-skade-one", files, []),
             {"files_per_commit": 0}),
            ("skade-cli", "one_file", lambda: runner.skade("cb-skade-file", files[:1], []),
             {"files_per_commit": 0, "inputs": files[:1]}),
        ], files)

    if "concurrent" in scenarios:
        files = small[:args.concurrent_files]
        writers = args.writers
        shape = {"writers": writers, "writes": len(files), "tables": 1}
        records += measure(args, runner, "concurrent", [
            ("skade-cli", "coalesce",
             lambda: runner.skade("cc-skade", files, ["--coalesce", "--writers", str(writers)]), shape),
            ("pyiceberg-sql", "threads",
             lambda: runner.pyiceberg("cc-py", files, writers=writers), shape),
        ], files)
        for r in records:
            if r.get("scenario") == "s3_ingest_concurrent" and "error" not in r:
                r["writes_per_sec"] = len(files) / (r["p50_us"] / 1e6)
                r["threads"] = writers

    if "memory" in scenarios:
        bound_mb = PART_SIZE_MB * args.parts_in_flight
        shape = {"parts_in_flight": args.parts_in_flight, "part_size_mb": round(PART_SIZE_MB, 2),
                 "upload_bound_mb": round(bound_mb, 1)}
        cases = []
        for label, rows in (("large", args.memory_rows), ("baseline", args.memory_baseline_rows)):
            path = os.path.join(data, f"memory-{rows}.parquet")
            if not os.path.exists(path):
                began = time.perf_counter()
                generate_large(path, rows)
                print(f"s3_ingest: generated {path} ({os.path.getsize(path) / 1e9:.2f} GB) in "
                      f"{time.perf_counter() - began:.0f} s", file=sys.stderr)
            cases.append((label, path))
        saved_reps, args.reps = args.reps, 1
        for label, path in cases:
            records += measure(args, runner, "memory", [
                ("skade-cli", label,
                 lambda p=path, n=label: runner.skade(f"mem-{n}", [p], []), shape),
            ], [path])
        # The S3 FileIO's own bound: one object streamed through it, large and small.
        for label, size in (("stream-large", args.stream_bytes),
                            ("stream-baseline", args.stream_bytes // 8)):
            records += measure(args, runner, "memory", [
                ("skade-s3-fileio", label, lambda n=label, b=size: runner.stream(n, b),
                 dict(shape, stream_bytes=size)),
            ], [])
        args.reps = saved_reps

    lines = "".join(json.dumps(r) + "\n" for r in records)
    if args.out == "-":
        sys.stdout.write(lines)
    else:
        with open(args.out, "a") as out:
            out.write(lines)
    return 1 if any("error" in r for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
