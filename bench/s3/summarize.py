"""The ingest half of the "Object storage (issue 14 targets)" section of BENCHMARKS.md, from the
records of bench/s3/s3_ingest.py (<run_id>.s3-ingest.jsonl; bench/report.py adds the REST half).

Targets (issue 14), every ratio between records of one run:
  `skade ingest` to S3          >= 2 x PyIceberg appending the same data to the same MinIO, in every
                                shape (one large file, commit-bound small files, 8 concurrent writers)
                                and at every added latency
  overlap / serial on S3        >= 1.5 x on the commit-bound shape with added latency
  memory of a multi-GB ingest   bounded by the S3 upload buffers, part size x parts in flight: the
                                peak RSS of the multi-GB ingest exceeds that of the same ingest of a
                                file a tenth its size by at most that bound; and the S3 FileIO
                                alone (skade_s3_stream_memory) streaming one multi-GB object, and
                                one an eighth its size, holds at most part size x (parts in flight
                                + 1) in Arrow's memory pool (the parts in flight and the one being
                                filled); its RSS growth is printed beside it

Usage: summarize.py RESULTS.s3-ingest.jsonl
"""
import json
import sys

SCENARIOS = ("s3_ingest", "s3_ingest_commit_bound", "s3_ingest_concurrent", "s3_ingest_memory")
LABELS = {
    "s3_ingest": "one Parquet file",
    "s3_ingest_commit_bound": "commit-bound (small files, 4 per commit)",
    "s3_ingest_concurrent": "8 concurrent writers, one table",
    "s3_ingest_memory": "multi-GB input",
}
INGEST_RATIO = 2.0
OVERLAP_RATIO = 1.5


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _latencies(records):
    return sorted({r.get("added_latency_ms", 0) for r in records if r["scenario"] in SCENARIOS})


def _find(records, target, scenario, variant, latency):
    for r in records:
        if (r["target"], r["scenario"], r.get("variant", ""), r.get("added_latency_ms", 0)) == (
                target, scenario, variant, latency) and "error" not in r:
            return r
    return None


def _why(records, target, scenario, variant, latency):
    for r in records:
        if "error" not in r:
            continue
        if r["target"] == "s3-ingest":
            return r["error"]
        if (r["target"], r["scenario"], r.get("variant", ""), r.get("added_latency_ms", 0)) == (
                target, scenario, variant, latency):
            return r["error"]
    return "no record"


def _latency_label(latency):
    return "loopback" if not latency else f"+{latency:g} ms"


def _fmt_ratio(value):
    return f"{value:.2f}×"


def target_rows(records):
    """(target, measured, required, result) rows."""
    rows = []

    def ratio_row(title, a, b, missing, required=None):
        if a is None or b is None:
            return (title, f"not measured ({missing})", f"≥ {required:g}×" if required else "—",
                    "not measured")
        value = a["rows_per_sec"] / b["rows_per_sec"] if b["rows_per_sec"] > 0 else float("inf")
        detail = (f"{a['rows_per_sec']:,.0f} vs {b['rows_per_sec']:,.0f} rows/s; "
                  f"{a['p50_us'] / 1e6:.2f} vs {b['p50_us'] / 1e6:.2f} s")
        if required is None:
            return (title, f"{_fmt_ratio(value)} ({detail})", "—", "")
        return (title, f"{_fmt_ratio(value)} ({detail})", f"≥ {required:g}×",
                "✅ pass" if value >= required else "❌ fail")

    for latency in _latencies(records):
        where = _latency_label(latency)
        for scenario, ours in (("s3_ingest", ("serial", "overlap")),
                               ("s3_ingest_commit_bound", ("serial", "overlap")),
                               ("s3_ingest_concurrent", ("coalesce",))):
            peer_variant = "threads" if scenario == "s3_ingest_concurrent" else ""
            theirs = _find(records, "pyiceberg-sql", scenario, peer_variant, latency)
            for variant in ours:
                a = _find(records, "skade-cli", scenario, variant, latency)
                missing = "; ".join(
                    f"{t}: {_why(records, t, scenario, v, latency)}"
                    for t, v, r in (("skade-cli", variant, a), ("pyiceberg-sql", peer_variant, theirs))
                    if r is None)
                command = {"serial": "`skade ingest`", "overlap": "`skade ingest --overlap`",
                           "coalesce": "`skade ingest --coalesce --writers 8`"}[variant]
                rows.append(ratio_row(f"S3 ingest, {LABELS[scenario]}, {where}: {command} ÷ PyIceberg",
                                      a, theirs, missing, INGEST_RATIO))
        scenario = "s3_ingest_commit_bound"
        a = _find(records, "skade-cli", scenario, "overlap", latency)
        b = _find(records, "skade-cli", scenario, "serial", latency)
        missing = "; ".join(f"{v}: {_why(records, 'skade-cli', scenario, v, latency)}"
                            for v, r in (("overlap", a), ("serial", b)) if r is None)
        # The target is the one with added latency; on loopback it is context.
        rows.append(ratio_row(f"S3 ingest, {LABELS[scenario]}, {where}: overlap ÷ serial committer",
                              a, b, missing, OVERLAP_RATIO if latency else None))
        # What the commits cost the serial run: the same files in one commit (one_commit) saves
        # all but one of them.
        one = _find(records, "skade-cli", scenario, "one_commit", latency)
        if b is not None and one is not None and b["commits"] > 1:
            rows.append((f"S3 ingest, {LABELS[scenario]}, {where}: the serial run's commits "
                         "beyond the first (serial − one commit, of the serial wall)",
                         f"{(b['p50_us'] - one['p50_us']) / 1e6:.2f} s of {b['p50_us'] / 1e6:.2f} s "
                         f"({b['commits'] - 1} commits)", "—",
                         "what overlap can hide behind the writes, at most"))
    if not any(latency for latency in _latencies(records)):
        rows.append(("S3 ingest, commit-bound, with added latency: overlap ÷ serial committer",
                     "not measured (no pass with added latency: "
                     + _why(records, "skade-cli", "s3_ingest_commit_bound", "overlap", 5) + ")",
                     f"≥ {OVERLAP_RATIO:g}×", "not measured"))

    large = _find(records, "skade-cli", "s3_ingest_memory", "large", 0)
    baseline = _find(records, "skade-cli", "s3_ingest_memory", "baseline", 0)
    title = ("S3 ingest of a multi-GB file: peak RSS growth over the same ingest of a file a "
             "fraction its size")
    if large is None or baseline is None:
        missing = "; ".join(f"{v}: {_why(records, 'skade-cli', 's3_ingest_memory', v, 0)}"
                            for v, r in (("large", large), ("baseline", baseline)) if r is None)
        rows.append((title, f"not measured ({missing})", "≤ part size × parts in flight",
                     "not measured"))
    else:
        bound = large["upload_bound_mb"]
        growth = large["peak_rss_mb"] - baseline["peak_rss_mb"]
        rows.append((title, f"{growth:+,.0f} MB ({large['peak_rss_mb']:,.0f} MB for "
                            f"{large['input_mb'] / 1e3:,.2f} GB vs {baseline['peak_rss_mb']:,.0f} MB for "
                            f"{baseline['input_mb'] / 1e3:,.2f} GB)",
                     f"≤ {bound:,.1f} MB ({large['part_size_mb']:g} MB × {large['parts_in_flight']})",
                     "✅ pass" if growth <= bound else "❌ fail"))
        rows.append(("S3 ingest of a multi-GB file: peak RSS against part size × parts in flight alone",
                     f"{large['peak_rss_mb']:,.0f} MB vs {bound:,.1f} MB "
                     f"({large['peak_rss_mb'] / bound:,.1f}×)", "—",
                     "context: the whole process, with the pipeline's decoded and encoded groups"))
    stream = {v: _find(records, "skade-s3-fileio", "s3_ingest_memory", v, 0)
              for v in ("stream-large", "stream-baseline")}
    title = "S3 FileIO streaming one multi-GB object: peak bytes its upload held (Arrow's pool)"
    if None in stream.values():
        missing = "; ".join(f"{v}: {_why(records, 'skade-s3-fileio', 's3_ingest_memory', v, 0)}"
                            for v, r in stream.items() if r is None)
        rows.append((title, f"not measured ({missing})", "≤ part size × (parts in flight + 1)",
                     "not measured"))
    else:
        large, small = stream["stream-large"], stream["stream-baseline"]
        # The parts in flight, and the one being filled.
        bound = large["part_size_mb"] * (large["parts_in_flight"] + 1)
        held = max(large["arrow_peak_mb"], small["arrow_peak_mb"])
        rows.append((title, f"{large['arrow_peak_mb']:,.1f} MB for {large['stream_bytes'] / 1e9:,.2f} GB "
                            f"({small['arrow_peak_mb']:,.1f} MB for {small['stream_bytes'] / 1e9:,.2f} GB)",
                     f"≤ {bound:,.1f} MB ({large['part_size_mb']:g} MB × "
                     f"({large['parts_in_flight']} + 1))", "✅ pass" if held <= bound else "❌ fail"))
        rows.append(("S3 FileIO streaming one multi-GB object: peak RSS over the RSS before the upload",
                     f"{large['growth_mb']:,.1f} MB ({small['growth_mb']:,.1f} MB for the smaller)",
                     "—", "context: also freed part buffers the allocator has not given back yet"))
    return rows


def markdown(records):
    """The ingest lines of the section: targets, then every record."""
    lines = ["| target | measured | required | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in target_rows(records)]
    lines += ["", "| target | scenario | variant | storage | rows/s | MB/s | commits | wall p50 s "
                  "| cores | peak RSS MB | conflicts |",
              "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    failures = []
    for r in records:
        if r["scenario"] not in SCENARIOS:
            if "error" in r:
                failures.append(r)
            continue
        if "error" in r:
            failures.append(r)
            continue
        lines.append(
            f"| {r['target']} | {LABELS[r['scenario']]} ({r['input_mb']:,.1f} MB in {r['input_files']} "
            f"file{'s' if r['input_files'] != 1 else ''}) | {r.get('variant') or '—'} | "
            f"{_latency_label(r.get('added_latency_ms', 0))} | {r['rows_per_sec']:,.0f} | "
            f"{r['mb_per_sec']:.1f} | {r['commits']:,} | {r['p50_us'] / 1e6:.2f} | {r['cores']:.2f} | "
            f"{r['peak_rss_mb']:,.0f} | {r.get('conflicts', 0):,} |")
    storages = sorted({r["storage"] for r in records if r.get("storage")})
    if storages:
        lines += ["", "Storage: " + "; ".join(storages) + "."]
    if failures:
        lines += ["", "Without numbers:", ""]
        lines += [f"- {r['target']} `{r['scenario']}` {r.get('variant', '')} "
                  f"({_latency_label(r.get('added_latency_ms', 0))}): {r['error']}" for r in failures]
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print("\n".join(markdown(load(sys.argv[1]))))


if __name__ == "__main__":
    main()
