#!/usr/bin/env python3
"""The read-path benchmark (issue 15): TPC-H lineitem ingested by `skade ingest`, partitioned by
month(l_shipdate), scanned by skade and its peers in one run; and planning on a table of many data
files. Writes one JSON line per measurement to --out; bench/scan/summarize.py reports the ratios.

Scenarios and peers:
  full_scan       skade (plan + RecordBatchReader, all cores), the raw all-core Arrow read of the
                  same Parquet files (skade_scan_bench raw: the limit), PyIceberg scan().to_arrow()
  selective_scan  one month of l_shipdate and a range of l_quantity: skade, PyIceberg, DuckDB
                  iceberg_scan on the metadata file, DuckDB over skade's REST catalog (DuckDB
                  materializes the rows in a temporary table of its own)
  planning        plan only, on a table of --planning-files data files with a selective filter:
                  skade cold (a new manifest cache each time) and warm, PyIceberg plan_files()
  rest_plan       a REST planTableScan round trip to `skade serve` on the planning table

Usage: scan_bench.py --bin BUILD/bin --python .venv/bin/python --duckdb .deps/duckdb-iceberg
                     --work DIR --out RESULTS.jsonl --run-id ID [--sf 1] [--reps 5]
                     [--planning-files 10000]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

MONTH_FILTER = ("l_shipdate >= '1995-03-01' and l_shipdate < '1995-04-01' "
                "and l_quantity >= 10 and l_quantity < 20")
# The planning table (skade_scan_bench make-planning-table): one month, and an id range inside it.
PLANNING_FILTER = "day >= '1995-03-01' and day < '1995-04-01' and id >= 0 and id < 1000000000"


def log(*parts):
    print("scan-bench:", *parts, file=sys.stderr, flush=True)


def run(cmd, env=None, timeout=3600):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return proc.stdout


def last_json(text):
    return json.loads([line for line in text.splitlines() if line.startswith("{")][-1])


def peak_rss_mb_of_children():
    import resource
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0


# DuckDB 1.5.5 with its extensions from the wheels (requirements-duckdb-iceberg.txt), in a
# subprocess: argv is a JSON object of what to do; prints one JSON object.
DUCKDB_SCRIPT = r"""
import json, pathlib, sys, time
import duckdb
args = json.loads(sys.argv[1])
root = pathlib.Path(args["root"])
con = duckdb.connect(config={"autoinstall_known_extensions": False,
                             "autoload_known_extensions": False})
for name in args["extensions"]:
    [path] = root.glob(f"duckdb_extension_{name}/extensions/*/{name}.duckdb_extension")
    con.sql(f"LOAD '{path}'")
out = {"version": duckdb.__version__}
if args["do"] == "dbgen":
    con.sql(f"CALL dbgen(sf={args['sf']})")
    con.sql(f"COPY lineitem TO '{args['path']}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    out["rows"] = con.sql("SELECT count(*) FROM lineitem").fetchone()[0]
else:
    if args.get("uri"):
        con.sql(f"ATTACH '' AS lake (TYPE iceberg, ENDPOINT '{args['uri']}', AUTHORIZATION_TYPE 'none')")
    times, rows = [], 0
    # The rows are materialized in DuckDB's own memory (all columns decoded), as skade's land in
    # Arrow batches; no conversion to Python or Arrow objects is timed.
    for _ in range(args["reps"]):
        start = time.perf_counter()
        con.sql(f"CREATE OR REPLACE TEMP TABLE result AS {args['query']}")
        times.append(time.perf_counter() - start)
        rows = con.sql("SELECT count(*) FROM result").fetchone()[0]
    out["seconds"], out["rows"] = times, rows
print(json.dumps(out))
"""

# PyIceberg on the table's metadata file (StaticTable: no catalog in the way).
PYICEBERG_SCRIPT = r"""
import json, sys, time
from pyiceberg.table import StaticTable
args = json.loads(sys.argv[1])
out = {}
times, rows = [], 0
for _ in range(args["reps"]):
    start = time.perf_counter()
    table = StaticTable.from_metadata(args["metadata"])
    scan = table.scan(row_filter=args["filter"]) if args["filter"] else table.scan()
    if args["do"] == "plan":
        rows = sum(1 for _ in scan.plan_files())
    else:
        rows = scan.to_arrow().num_rows
    times.append(time.perf_counter() - start)
out["seconds"], out["rows"] = times, rows
import resource
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(out))
"""


class Bench:
    def __init__(self, args):
        self.args = args
        self.bin = Path(args.bin)
        self.work = Path(args.work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.out = open(args.out, "a")
        self.base = {"run_id": args.run_id, "target": "scan", "sf": args.sf}

    def record(self, scenario, peer, **fields):
        rec = dict(self.base, scenario=scenario, peer=peer, **fields)
        if "seconds" in fields and isinstance(fields["seconds"], list):
            values = fields["seconds"]
            rec["median_s"] = statistics.median(values)
            rec["min_s"] = min(values)
        self.out.write(json.dumps(rec) + "\n")
        self.out.flush()
        log(scenario, peer, {k: v for k, v in rec.items() if k in ("median_s", "rows", "error")})

    def failed(self, scenario, peer, error):
        self.record(scenario, peer, error=str(error)[-1000:])

    def duckdb(self, job, extensions):
        env = dict(os.environ, PYTHONPATH=self.args.duckdb)
        job = dict(job, root=self.args.duckdb, extensions=extensions)
        return last_json(run([sys.executable, "-c", DUCKDB_SCRIPT, json.dumps(job)], env=env))

    def pyiceberg(self, job):
        return last_json(run([self.args.python, "-c", PYICEBERG_SCRIPT, json.dumps(job)]))

    def skade(self, *argv):
        return run([str(self.bin / "skade"), "--warehouse", str(self.warehouse), *argv])

    def scan_tool(self, *argv):
        return last_json(run([str(self.bin / "skade_scan_bench"), *argv]))

    def metadata_location(self, table):
        text = self.skade("table", "describe", table)
        for line in text.splitlines():
            if line.startswith("metadata "):
                return line.split(None, 1)[1].strip()
        raise RuntimeError(f"no metadata location for {table}")

    # --- data ---------------------------------------------------------------------------------

    def prepare_lineitem(self):
        self.warehouse = self.work / "warehouse"
        parquet = self.work / f"lineitem-sf{self.args.sf}.parquet"
        if not parquet.exists():
            log(f"dbgen sf={self.args.sf}")
            self.duckdb({"do": "dbgen", "sf": self.args.sf, "path": str(parquet)}, ["tpch"])
        if not (self.warehouse / "tpch").exists():
            log("skade ingest lineitem, partitioned by month(l_shipdate)")
            self.skade("ns", "create", "tpch")
            self.skade("ingest", "--table", "tpch.lineitem", "--create", "--partition-by",
                       "month(l_shipdate)", str(parquet))
        self.lineitem = self.metadata_location("tpch.lineitem")
        files = sorted(str(p) for p in (self.warehouse / "tpch" / "lineitem").rglob("*.parquet"))
        self.files_from = self.work / "lineitem-files.txt"
        self.files_from.write_text("\n".join(files) + "\n")
        self.data_bytes = sum(os.path.getsize(f) for f in files)
        self.base.update(lineitem_files=len(files), lineitem_bytes=self.data_bytes)

    # --- scenarios ----------------------------------------------------------------------------

    def full_scan(self):
        reps = str(self.args.reps)
        try:
            raw = self.scan_tool("raw", "--files-from", str(self.files_from), "--reps", reps)
            self.record("full_scan", "arrow_raw", **raw)
        except Exception as e:  # noqa: BLE001 - recorded, never dropped
            self.failed("full_scan", "arrow_raw", e)
        try:
            mine = self.scan_tool("scan", "--warehouse", str(self.warehouse), "--table",
                                  "tpch.lineitem", "--reps", reps)
            self.record("full_scan", "skade", **mine)
        except Exception as e:  # noqa: BLE001
            self.failed("full_scan", "skade", e)
        try:
            py = self.pyiceberg({"do": "scan", "metadata": self.lineitem, "filter": "",
                                 "reps": self.args.reps})
            self.record("full_scan", "pyiceberg", **py)
        except Exception as e:  # noqa: BLE001
            self.failed("full_scan", "pyiceberg", e)

    def selective_scan(self, rest_uri):
        reps = str(self.args.reps)
        try:
            mine = self.scan_tool("scan", "--warehouse", str(self.warehouse), "--table",
                                  "tpch.lineitem", "--where", MONTH_FILTER, "--reps", reps)
            self.record("selective_scan", "skade", **mine)
        except Exception as e:  # noqa: BLE001
            self.failed("selective_scan", "skade", e)
        try:
            py = self.pyiceberg({"do": "scan", "metadata": self.lineitem, "filter": MONTH_FILTER,
                                 "reps": self.args.reps})
            self.record("selective_scan", "pyiceberg", **py)
        except Exception as e:  # noqa: BLE001
            self.failed("selective_scan", "pyiceberg", e)
        where = MONTH_FILTER.replace("'1995-03-01'", "DATE '1995-03-01'").replace(
            "'1995-04-01'", "DATE '1995-04-01'")
        try:
            duck = self.duckdb({"do": "query", "reps": self.args.reps,
                                "query": f"SELECT * FROM iceberg_scan('{self.lineitem}') WHERE {where}"},
                               ["avro", "iceberg"])
            self.record("selective_scan", "duckdb_iceberg_scan", **duck)
        except Exception as e:  # noqa: BLE001
            self.failed("selective_scan", "duckdb_iceberg_scan", e)
        if rest_uri:
            try:
                duck = self.duckdb({"do": "query", "reps": self.args.reps, "uri": rest_uri,
                                    "query": f"SELECT * FROM lake.tpch.lineitem WHERE {where}"},
                                   ["httpfs", "avro", "iceberg"])
                self.record("selective_scan", "duckdb_rest_skade", **duck)
            except Exception as e:  # noqa: BLE001
                self.failed("selective_scan", "duckdb_rest_skade", e)

    def planning(self):
        files = str(self.args.planning_files)
        if not (self.warehouse / "plan").exists():
            self.skade("ns", "create", "plan")
            made = self.scan_tool("make-planning-table", "--warehouse", str(self.warehouse),
                                  "--table", "plan.files", "--files", files, "--commits",
                                  str(max(1, self.args.planning_files // 100)))
            log("planning table:", made)
        self.planning_metadata = self.metadata_location("plan.files")
        try:
            mine = self.scan_tool("plan", "--warehouse", str(self.warehouse), "--table",
                                  "plan.files", "--where", PLANNING_FILTER, "--reps",
                                  str(self.args.reps))
            cold, warm = mine.pop("cold_ms"), mine.pop("warm_ms")
            self.record("planning", "skade_cold", seconds=[ms / 1e3 for ms in cold], **mine)
            self.record("planning", "skade_warm", seconds=[ms / 1e3 for ms in warm], **mine)
        except Exception as e:  # noqa: BLE001
            self.failed("planning", "skade_cold", e)
        try:
            py = self.pyiceberg({"do": "plan", "metadata": self.planning_metadata,
                                 "filter": PLANNING_FILTER, "reps": self.args.reps})
            self.record("planning", "pyiceberg_plan_files", tasks=py["rows"], **py)
        except Exception as e:  # noqa: BLE001
            self.failed("planning", "pyiceberg_plan_files", e)

    def rest_plan(self, uri):
        body = json.dumps({"filter": {"type": "and",
                                      "left": {"type": "gt-eq", "term": "day", "value": "1995-03-01"},
                                      "right": {"type": "lt", "term": "day", "value": "1995-04-01"}}}
                          ).encode()
        url = f"{uri}/v1/namespaces/plan/tables/files/plan"
        times, tasks = [], 0
        try:
            for _ in range(max(5, self.args.reps * 4)):
                start = time.perf_counter()
                req = urllib.request.Request(url, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=120) as resp:
                    answer = json.loads(resp.read())
                times.append(time.perf_counter() - start)
                tasks = len(answer.get("file-scan-tasks", [])) + len(answer.get("plan-tasks", []))
            times = sorted(times)
            self.record("rest_plan", "skade_rest", seconds=times, tasks=tasks,
                        p99_s=times[min(len(times) - 1, int(len(times) * 0.99))],
                        status=answer.get("status"))
        except Exception as e:  # noqa: BLE001
            self.failed("rest_plan", "skade_rest", e)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--duckdb", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--sf", default="1")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--planning-files", type=int, default=10000)
    args = parser.parse_args()
    bench = Bench(args)
    try:
        bench.prepare_lineitem()
        bench.planning()
    except Exception as e:  # noqa: BLE001
        bench.failed("setup", "skade", e)
        return 0
    bench.full_scan()
    port = free_port()
    server = subprocess.Popen([str(bench.bin / "skade"), "--warehouse", str(bench.warehouse),
                               "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=open(bench.work / "serve.log", "w"))
    uri = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{uri}/v1/config", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        bench.selective_scan(uri)
        bench.rest_plan(uri)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
