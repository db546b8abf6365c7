"""The `coalesce` scenario's part of BENCHMARKS.md (bench/README.md): its targets and its section,
from the records of one run (scripts/bench.sh `bench_coalesce`). report.py calls target_rows() and
markdown(); every ratio is between records of that one run."""

SCENARIO = "coalesce"
TARGETS = ("skade-embedded", "iceberg-rust-sql", "pyiceberg-sql")
SMALL = "1_row/1_table"
SIXTEEN = 16  # the writers of the one-table target
# The targets of issue 11 §4.
COALESCING_FACTOR = 50
OVER_PYICEBERG = 100
OVER_SAME_TABLE_COMMIT = 10
P99_LIMIT_US = 20_000


def _label(record: dict) -> str:
    committer = record.get("committer")
    if committer == "on":
        return "skade-embedded (committer)"
    if committer == "off":
        return "skade-embedded (a commit per write)"
    return record["target"]


def _records(records: list) -> list:
    return [r for r in records if r.get("scenario") == SCENARIO]


def _find(records: list, target: str, variant: str, threads=None, committer=None):
    """The measured record; threads None = the many-writer case (the most writers other than the
    16-writer case's, when there are such)."""
    matches = [r for r in _records(records) if "error" not in r and r["target"] == target
               and r.get("variant") == variant and r.get("committer") == committer
               and (threads is None or r["threads"] == threads)]
    if threads is None and any(r["threads"] != SIXTEEN for r in matches):
        matches = [r for r in matches if r["threads"] != SIXTEEN]
    return max(matches, key=lambda r: r["threads"], default=None)


def _why_missing(records: list, selected: str, target: str, variant: str, committer=None) -> str:
    if selected and "coalesce" not in selected.split(","):
        return "not selected for this run (BENCH_TARGETS)"
    for r in _records(records):
        if ("error" in r and r["target"] == target and r.get("variant") == variant
                and r.get("committer") == committer):
            return r["error"]
    return "no record"


def _ratio(value: float) -> str:
    return f"{value:,.0f}×" if value >= 100 else f"{value:.2f}×"


def target_rows(records: list, selected: str, commit_same_table_16) -> list:
    """(target, measured, required, result) rows. `commit_same_table_16` is this run's
    skade-embedded `commit` same_table record at 16 threads with group commit on, or None."""
    rows = []
    on = _find(records, "skade-embedded", SMALL, committer="on")
    many = f"{on['threads']:,} writers" if on else "the most writers"

    def missing(title, required, *parts):
        reasons = "; ".join(f"{name}: {_why_missing(records, selected, *key)}" for name, key in parts)
        return (title, f"not measured ({reasons})", required, "not measured")

    title = f"Coalesce: logical writes/s ÷ physical commits/s ({many}, 1 row each, 1 table)"
    required = f"≥ {COALESCING_FACTOR}×"
    if on is None:
        rows.append(missing(title, required, ("skade-embedded", ("skade-embedded", SMALL, "on"))))
    else:
        factor = on["ops"] / on["physical_commits"] if on["physical_commits"] else float("inf")
        rows.append((title, f"{_ratio(factor)} ({on['ops']:,} writes in {on['physical_commits']:,} "
                            f"commits, {on['ops_per_sec']:,.0f} writes/s)", required,
                     "✅ pass" if factor >= COALESCING_FACTOR else "❌ fail"))

    title = f"Coalesce: logical writes/s, skade ({many}) ÷ PyIceberg per-append loop (1 row, 1 table)"
    required = f"≥ {OVER_PYICEBERG}×"
    loop = _find(records, "pyiceberg-sql", SMALL, threads=1)
    if on is None or loop is None:
        parts = [p for p, r in ((("skade-embedded", ("skade-embedded", SMALL, "on")), on),
                                (("pyiceberg-sql", ("pyiceberg-sql", SMALL)), loop)) if r is None]
        rows.append(missing(title, required, *parts))
    else:
        ratio = on["ops_per_sec"] / loop["ops_per_sec"]
        rows.append((title, f"{_ratio(ratio)} ({on['ops_per_sec']:,.0f} vs "
                            f"{loop['ops_per_sec']:,.1f} writes/s)", required,
                     "✅ pass" if ratio >= OVER_PYICEBERG else "❌ fail"))

    title = ("Coalesce: 16 writers on one table ÷ `commit` same_table 16 threads (ops/s), "
             f"p99 ≤ {P99_LIMIT_US // 1000} ms, 0 conflicts and errors")
    required = f"≥ {OVER_SAME_TABLE_COMMIT}×, p99 ≤ {P99_LIMIT_US // 1000} ms, 0 errors"
    sixteen = _find(records, "skade-embedded", SMALL, threads=SIXTEEN, committer="on")
    if sixteen is None or commit_same_table_16 is None:
        reasons = []
        if sixteen is None:
            reasons.append("skade-embedded coalesce 16 writers: "
                           + _why_missing(records, selected, "skade-embedded", SMALL, "on"))
        if commit_same_table_16 is None:
            reasons.append("skade-embedded `commit` same_table 16 threads: no record in this run "
                           "(BENCH_TARGETS needs skade-embedded)")
        rows.append((title, f"not measured ({'; '.join(reasons)})", required, "not measured"))
    else:
        ratio = sixteen["ops_per_sec"] / commit_same_table_16["ops_per_sec"]
        clean = sixteen["p99_us"] <= P99_LIMIT_US and sixteen.get("errors", 0) == 0 \
            and sixteen.get("conflicts", 0) == 0
        rows.append((title, f"{_ratio(ratio)} ({sixteen['ops_per_sec']:,.0f} vs "
                            f"{commit_same_table_16['ops_per_sec']:,.0f} ops/s); p99 "
                            f"{sixteen['p99_us'] / 1000:,.1f} ms; {sixteen.get('conflicts', 0)} "
                            f"conflicts, {sixteen.get('errors', 0)} errors", required,
                     "✅ pass" if ratio >= OVER_SAME_TABLE_COMMIT and clean else "❌ fail"))
    return rows


def _order(record: dict) -> tuple:
    rows = record.get("rows_per_write", 0)
    tables = record.get("tables", 0)
    committer = {"on": 0, "off": 1}.get(record.get("committer"), 2)
    target = TARGETS.index(record["target"]) if record["target"] in TARGETS else len(TARGETS)
    return (rows, tables, -record["threads"], target, committer)


def markdown(records: list) -> list:
    """The section's lines, or none when the run has no coalesce record."""
    measured = sorted((r for r in _records(records) if "error" not in r), key=_order)
    if not measured and not _records(records):
        return []
    lines = [
        "## Coalesce", "",
        "Many concurrent small appends, each acknowledged when durable (skade at "
        "`durability=immediate`): skade's `CoalescingCommitter` and the same driver committing each "
        "write on its own (`ingest::Append`), against PyIceberg's `table.append` and iceberg-rust's "
        "data file + `fast_append` per write. `writes/s` counts acknowledged logical writes; latency "
        "is per write, from the call to its return; `conflicts` counts writes redone after the "
        "client's own retries gave up. Every case checks at the end that the tables hold exactly "
        "the acknowledged rows.", "",
        "| target | rows/write | tables | writers | writes | writes/s | physical commits | "
        "writes ÷ commit | data files | p50 ms | p99 ms | p999 ms | conflicts | peak RSS MB | "
        "durability |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    notes = {}
    for r in measured:
        commits = r.get("physical_commits", 0)
        per_commit = f"{r['ops'] / commits:,.1f}" if commits else ""
        rss = r.get("peak_rss_mb")
        lines.append(
            f"| {_label(r)} | {r.get('rows_per_write', 0):,} | {r.get('tables', 0)} | "
            f"{r['threads']:,} | {r['ops']:,} | {r['ops_per_sec']:,.1f} | {commits:,} | "
            f"{per_commit} | {r.get('data_files', 0):,} | {r['p50_us'] / 1000:,.2f} | "
            f"{r['p99_us'] / 1000:,.2f} | {r['p999_us'] / 1000:,.2f} | {r.get('conflicts', 0):,} | "
            f"{'' if rss is None else f'{rss:,.0f}'} | {r.get('durability', '')} |")
        if r.get("notes"):
            notes.setdefault(r["notes"], []).append(_label(r))
    if notes:
        lines.append("")
        for note, labels in notes.items():
            lines.append(f"- {', '.join(dict.fromkeys(labels))}: {note}")
    if any("error" in r for r in _records(records)):
        lines += ["", "Cases without numbers are listed under \"Targets and scenarios without "
                  "numbers\"."]
    return lines + [""]
