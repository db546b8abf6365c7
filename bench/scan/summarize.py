"""The "Read path (issue 15 targets)" section of BENCHMARKS.md, from the records of
bench/scan/scan_bench.py (<run_id>.scan.jsonl). Every ratio is between records of one run, as the
medians of their repetitions.

Targets (issue 15):
  full scan of lineitem        skade >= 0.9 x the raw all-core Arrow read of the same files, and
                               >= 3 x PyIceberg scan().to_arrow()
  selective scan               skade faster than DuckDB iceberg_scan (one month of l_shipdate and
                               a range of l_quantity)
  planning, 10,000 data files  skade >= 20 x PyIceberg plan_files() with a cold manifest cache,
                               >= 100 x with a warm one

Usage: summarize.py RESULTS.scan.jsonl
"""
import json
import sys

TARGETS = (
    # (title, scenario, ours, theirs, required ratio theirs_time / ours_time)
    ("full scan of lineitem: skade ÷ raw all-core Arrow read (the limit)", "full_scan", "skade",
     "arrow_raw", 0.9),
    ("full scan of lineitem: skade ÷ PyIceberg `scan().to_arrow()`", "full_scan", "skade",
     "pyiceberg", 3.0),
    ("full scan of lineitem: raw all-core Arrow read ÷ PyIceberg (the most a reader at the raw "
     "limit can reach against PyIceberg on this machine)", "full_scan", "arrow_raw", "pyiceberg",
     None),
    ("selective scan: skade ÷ DuckDB `iceberg_scan`", "selective_scan", "skade",
     "duckdb_iceberg_scan", 1.0),
    ("selective scan: skade ÷ PyIceberg", "selective_scan", "skade", "pyiceberg", None),
    ("selective scan: skade ÷ DuckDB over skade's REST catalog", "selective_scan", "skade",
     "duckdb_rest_skade", None),
    ("planning, many files, selective filter, cold manifest cache: skade ÷ PyIceberg `plan_files`",
     "planning", "skade_cold", "pyiceberg_plan_files", 20.0),
    ("planning, many files, selective filter, warm manifest cache: skade ÷ PyIceberg `plan_files`",
     "planning", "skade_warm", "pyiceberg_plan_files", 100.0),
)


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _find(records, scenario, peer):
    for r in records:
        if r.get("scenario") == scenario and r.get("peer") == peer:
            return r
    return None


def _why(record):
    if record is None:
        return "no record"
    return record.get("error", "")


def target_rows(records):
    rows = []
    for title, scenario, ours, theirs, required in TARGETS:
        a, b = _find(records, scenario, ours), _find(records, scenario, theirs)
        need = f"≥ {required:g}×" if required else "—"
        if a is None or b is None or "error" in a or "error" in b:
            missing = "; ".join(f"{p}: {_why(r)}" for p, r in ((ours, a), (theirs, b))
                                if r is None or "error" in r)
            rows.append((title, f"not measured ({missing})", need, "not measured" if required else ""))
            continue
        ratio = b["median_s"] / a["median_s"] if a["median_s"] > 0 else float("inf")
        detail = f"{a['median_s'] * 1e3:,.1f} ms vs {b['median_s'] * 1e3:,.1f} ms"
        if a.get("rows") is not None and b.get("rows") is not None and scenario != "planning":
            detail += f"; {a['rows']:,} vs {b['rows']:,} rows"
        result = ("✅ pass" if ratio >= required else "❌ fail") if required else ""
        if required and scenario == "selective_scan" and required == 1.0:
            result = "✅ pass" if ratio > 1.0 else "❌ fail"
        rows.append((title, f"{ratio:,.2f}× ({detail})", need, result))
    return rows


def markdown(records):
    lines = ["| target | measured | required | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in target_rows(records)]
    lines += ["", "| scenario | reader | median ms | min ms | rows | tasks | peak RSS MB |",
              "|---|---|--:|--:|--:|--:|--:|"]
    failures = []
    for r in records:
        if "error" in r:
            failures.append(r)
            continue
        lines.append(f"| {r['scenario']} | {r['peer']} | {r['median_s'] * 1e3:,.1f} | "
                     f"{r['min_s'] * 1e3:,.1f} | {r.get('rows', '') if r['scenario'] != 'planning' else ''} | "
                     f"{r.get('tasks', '')} | {r.get('peak_rss_mb', 0):,.0f} |")
    first = records[0] if records else {}
    if first:
        lines += ["", f"TPC-H SF{first.get('sf')} lineitem: {first.get('lineitem_files', '?')} Parquet "
                      f"files, {first.get('lineitem_bytes', 0) / 1e6:,.0f} MB, written by `skade ingest` "
                      "partitioned by month(l_shipdate)."]
    if failures:
        lines += ["", "Without numbers:", ""]
        lines += [f"- `{r['scenario']}` {r['peer']}: {r['error']}" for r in failures]
    return lines


if __name__ == "__main__":
    for line in markdown(load(sys.argv[1])):
        print(line)
