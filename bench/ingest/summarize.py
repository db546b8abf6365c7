"""Prints one ingest benchmark run (bench/ingest/run.sh) as a table, with the
ratios issue 4 §7 sets targets for:
  skade ingest      >= 0.9 x the raw all-core Parquet encode rate
  skade ingest      >= 5 x PyIceberg's rows/s
  overlap           >= 1.3 x serial rows/s when commit latency dominates
"""
import argparse
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="JSON lines file")
    parser.add_argument("--run-id", required=True)
    args = parser.parse_args()
    records = []
    with open(args.results) as f:
        for line in f:
            record = json.loads(line)
            if record.get("run_id") == args.run_id:
                records.append(record)

    def find(target, scenario, variant=None, latency=0):
        for r in records:
            if (r["target"], r["scenario"], r.get("variant"), r.get("commit_latency_ms", 0)) == (
                    target, scenario, variant, latency):
                return r
        return None

    durability = {r.get("durability") for r in records if r.get("durability")}
    print(f"run {args.run_id} (skade durability: {', '.join(sorted(durability))})")
    print(f"{'target':16} {'scenario':26} {'variant':8} {'lat ms':>6} {'rows/s':>12} "
          f"{'MB/s':>8} {'commits':>7} {'p50 ms':>8}")
    for r in records:
        if "error" in r:
            print(f"{r['target']:16} {r['scenario']:26} ERROR {r['error']}")
            continue
        print(f"{r['target']:16} {r['scenario']:26} {r.get('variant') or '':8} "
              f"{r.get('commit_latency_ms', 0):>6} {r['rows_per_sec']:>12,.0f} "
              f"{r['mb_per_sec']:>8.1f} {r.get('commits', 0):>7} {r['p50_us'] / 1000:>8.1f}")

    def ratio(label, a, b, target=None):
        if a is None or b is None or "error" in a or "error" in b:
            print(f"{label:48} n/a")
            return
        value = a["rows_per_sec"] / b["rows_per_sec"]
        verdict = "" if target is None else (
            f"  (target >= {target}x: {'met' if value >= target else 'NOT met'})")
        print(f"{label:48} {value:6.2f}x{verdict}")

    raw = find("arrow-parquet", "ingest_raw_encode")
    pipelined = find("skade-embedded", "ingest_pipelined")
    overlap = find("skade-embedded", "ingest_pipelined_overlap")
    pyiceberg = find("pyiceberg-sql", "ingest_append")
    print()
    ratio("IngestPipelined / raw encode", pipelined, raw, 0.9)
    ratio("IngestPipelinedOverlap / raw encode", overlap, raw, 0.9)
    ratio("IngestPipelined / PyIceberg append", pipelined, pyiceberg, 5)
    ratio("IngestPipelinedOverlap / PyIceberg append", overlap, pyiceberg, 5)
    for variant in ("serial", "overlap"):
        ratio(f"commit-bound {variant} (0 ms) / PyIceberg append",
              find("skade-embedded", "ingest_commit_bound", variant, 0),
              find("pyiceberg-sql", "ingest_commit_bound"), 5)
    latencies = sorted({r.get("commit_latency_ms", 0) for r in records
                        if r["scenario"] == "ingest_commit_bound"})
    for latency in latencies:
        ratio(f"commit-bound overlap / serial at {latency} ms",
              find("skade-embedded", "ingest_commit_bound", "overlap", latency),
              find("skade-embedded", "ingest_commit_bound", "serial", latency),
              1.3 if latency > 0 else None)


if __name__ == "__main__":
    main()
