"""Renders BENCHMARKS.md from the JSON lines of one `make bench` run (bench/README.md).

Every ratio is computed between records of that one run; the run's context (machine, load, mode)
comes from the <run_id>.meta.json beside the results. Targets without numbers are listed with the
reason the harness recorded.

Usage: report.py RESULTS.jsonl [--output BENCHMARKS.md]
"""

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "ingest"))
import summarize as ingest_summary  # noqa: E402  (bench/ingest/summarize.py)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from coalesce import summarize as coalesce_summary  # noqa: E402  (bench/coalesce/summarize.py)
from micro import static_tree_summary  # noqa: E402  (bench/micro/static_tree_summary.py)
from s3 import summarize as s3_summary  # noqa: E402  (bench/s3/summarize.py)
from scan import summarize as scan_summary  # noqa: E402  (bench/scan/summarize.py)

REQUIRED_FIELDS = ("run_id", "target", "scenario", "threads", "ops")
MEASURED_FIELDS = ("ops_per_sec", "p50_us", "p99_us", "p999_us")
FAILURE_SCENARIOS = ("unavailable", "harness_error")
SCENARIO_ORDER = (
    "load_table_cold", "load_table_warm", "resolve_metadata", "table_exists", "list_tables",
    "list_namespaces", "create_table", "commit", "mixed_90_10",
)
SKADE_REST_REBASE_OFF = "skade-rest (rebase off)"
TARGET_ORDER = (
    "skade-embedded", "skade-embedded (group commit off)", "iceberg-rust-memory", "iceberg-rust-sql",
    "pyiceberg-sql", "skade-rest", SKADE_REST_REBASE_OFF, "iceberg-rest-fixture",
    "skade-rest-history", "skade-rest-s3", "nessie",
)
REST_TARGETS = ("skade-rest", SKADE_REST_REBASE_OFF, "iceberg-rest-fixture", "skade-rest-s3", "nessie")
# skade serve on an s3:// warehouse in MinIO, and the peer on the same storage it is held to
# (issue 14: >= 5x the throughput, p99 <= 1/5, on loadTable and HEAD).
SKADE_REST_S3 = "skade-rest-s3"
S3_REST_PEER = ("nessie", "Nessie")
S3_REST_RATIO = 5
# The design notes' published numbers (bench/README.md "Performance bar"), on another machine.
SEED = (
    ("embedded `load_table` p50", "skade-embedded", "load_table_warm", 1.5),
    ("embedded `table_exists` p50", "skade-embedded", "table_exists", 0.32),
    ("REST `table_exists` (HEAD) p50", "skade-rest", "table_exists", 36.0),
)
GROUP_COMMIT_SAME_BUILD = "same build"
# The JVM REST catalogs skade-rest is held to "at least 10×" against (bench/README.md "Performance
# bar"), with their names in the target rows.
JVM_REST_PEERS = (("iceberg-rest-fixture", "REST fixture"), ("nessie", "Nessie"))
# A peer of the design notes that no run can measure, and why (listed with the targets without numbers).
UNOBTAINABLE = (
    ("polaris", "Apache Polaris: no runnable server artifact on Maven Central (nor on the other package "
                "registries the harness installs from), so it is not measured"),
)


class ReportError(Exception):
    pass


def load_records(path: pathlib.Path) -> list:
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ReportError(f"{path}:{number}: not JSON: {e}") from e
        missing = [f for f in REQUIRED_FIELDS if f not in record]
        if "error" not in record:
            missing += [f for f in MEASURED_FIELDS if f not in record]
        if missing:
            raise ReportError(f"{path}:{number}: missing {', '.join(missing)}")
        records.append(record)
    run_ids = {r["run_id"] for r in records}
    if len(run_ids) > 1:
        raise ReportError(f"{path}: records of several runs ({', '.join(sorted(run_ids))})")
    return records


def display_target(record: dict) -> str:
    if record["target"] == "skade-embedded" and record.get("group_commit") == "off":
        return "skade-embedded (group commit off)"
    if record["target"] == "skade-rest" and record.get("rebase") == "off":
        return SKADE_REST_REBASE_OFF
    return record["target"]


def order_key(name: str, order: tuple) -> tuple:
    return (order.index(name) if name in order else len(order), name)


def fmt_us(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_ops(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def fmt_ratio(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}×"
    return f"{value:.2f}×" if value >= 0.1 else f"{value:.2g}×"


# Every target family the harness knows, as BENCH_TARGETS names it, and the targets it yields.
FAMILIES = {
    "skade-embedded": ("skade-embedded",),
    "skade-rest": ("skade-rest", SKADE_REST_REBASE_OFF),
    "pyiceberg-sql": ("pyiceberg-sql",),
    "iceberg-rest-fixture": ("iceberg-rest-fixture",),
    "iceberg-rust": ("iceberg-rust-memory", "iceberg-rust-sql"),
    "history": ("skade-rest-history",),
    "time-travel": ("time-travel",),
    "nessie": ("nessie",),
    "skade-rest-s3": (SKADE_REST_S3,),
    "s3-ingest": ("s3-ingest",),
    "scan": ("scan",),
}

HISTORY_TARGET = "skade-rest-history"
HISTORY_PREFIX = "history_"
# bench/catalog/time_travel_bench.cc and bench/peers/pyiceberg_time_travel.py: their own section.
TIME_TRAVEL = "time-travel"
TIME_TRAVEL_SCENARIOS = ("populate_history", "load_table_at_snapshot", "resolve_snapshot",
                         "batch_load_planning")
# A time-travel driver that failed: a record of this scenario with the reason (scripts/bench.sh).
TIME_TRAVEL_FAILURE = "time_travel"
TIME_TRAVEL_PEERS = ("pyiceberg-sql", "iceberg-rust-memory")


class Run:
    def __init__(self, records: list, selected: str = None):
        self.measured = [r for r in records if "error" not in r]
        self.failed = [r for r in records if "error" in r]
        self.selected = selected
        families = selected.split(",") if selected else list(FAMILIES)
        # A family with records counts as selected: runs from before Nessie was selectable have its
        # "unavailable" record without naming it in their targets.
        recorded = {r["target"] for r in records} | {display_target(r) for r in records}
        self.unselected = [t for f, targets in FAMILIES.items()
                           if f not in families and not recorded.intersection(targets) for t in targets]

    def find(self, target: str, scenario: str, threads: int = None, variant: str = "",
             group_commit: str = None) -> dict:
        """The one measured record matching, or None. `threads` None = the largest count."""
        matches = [
            r for r in self.measured
            if display_target(r) == target and r["scenario"] == scenario
            and r.get("variant", "") == variant
            and (group_commit is None or r.get("group_commit") == group_commit)
        ]
        if threads is None:
            return max(matches, key=lambda r: r["threads"], default=None)
        return next((r for r in matches if r["threads"] == threads), None)

    def failure(self, target: str, scenario: str = None) -> str:
        """Why `target` has no numbers: not selected, unavailable, or (given `scenario`) that
        scenario's recorded error."""
        if target in self.unselected:
            return "not selected for this run (BENCH_TARGETS)"
        for r in self.failed:
            if not (r["target"].startswith(target) or display_target(r) == target):
                continue
            if r["scenario"] in FAILURE_SCENARIOS or r["scenario"] == scenario:
                return r["error"]
        # A target measured by the driver of another (the rebase-off peer of skade-rest).
        base = target.split(" (", 1)[0]
        return self.failure(base) if base != target else ""

    def missing(self, *targets: str, scenario: str = None) -> str:
        reasons = [f"{t}: {self.failure(t, scenario) or 'no record'}" for t in targets]
        return "not measured (" + "; ".join(reasons) + ")"


def throughput(a: dict, b: dict) -> str:
    return f"{fmt_ops(a['ops_per_sec'])} vs {fmt_ops(b['ops_per_sec'])} ops/s"


def verdict(passed: bool) -> str:
    return "✅ pass" if passed else "❌ fail"


def target_row(run: Run, title: str, required: str, threshold: float, ours: tuple, theirs: tuple,
               key, detail, lower_is_better: bool = False, scenario: str = None) -> tuple:
    """`ours` and `theirs` are (target name, record or None); the ratio is ours ÷ theirs on `key` (a
    field name, or a function of the record) (theirs ÷ ours when lower is better), so a larger ratio
    is always better for skade. `scenario` names the scenario whose recorded error explains a
    missing record."""
    (our_name, a), (their_name, b) = ours, theirs
    if a is None or b is None:
        return (title, run.missing(*[n for n, r in (ours, theirs) if r is None], scenario=scenario),
                required, "not measured")
    value = key if callable(key) else (lambda r: r[key])
    numerator, denominator = (value(b), value(a)) if lower_is_better else (value(a), value(b))
    ratio = numerator / denominator if denominator > 0 else float("inf")
    return (title, f"{fmt_ratio(ratio)} ({detail(a, b)})", required, verdict(ratio >= threshold))


def group_commit_detail(record: dict) -> str:
    """What one group-commit record says of its store transactions and writes (records from
    before these fields say nothing)."""
    parts = []
    if record.get("commits_per_store_transaction"):
        parts.append(f"{record['commits_per_store_transaction']:.1f} commits per store transaction")
    if record.get("client_write_bytes_per_op"):
        parts.append(f"{record['client_write_bytes_per_op'] / 1024:,.0f} KiB written per commit")
    return "".join(f"; {part}" for part in parts)


def group_commit_ceiling_row(meta: dict, on: dict, off: dict) -> tuple:
    """What the machine allows the group-commit ratio: every byte a commit writes (its metadata
    file, the store's pages) reaches the disk sooner or later, so a sustained rate is at most the
    disk's sequential write bandwidth (scripts/bench.sh, at the start) ÷ the bytes written per
    commit; and at most the cores ÷ the CPU time per commit. Both are measured on the grouped
    run; the lower, ÷ the ungrouped rate, is the most the ratio can be here."""
    title = ("Commit, 16 committers on different tables: the machine's ceiling (the lower of disk "
             "write bandwidth ÷ bytes written per commit and cores ÷ CPU per commit) ÷ group commit "
             "off's commits/s")
    bandwidth = float(meta.get("write_mb_s_start") or 0)
    written = (on or {}).get("client_write_bytes_per_op")
    cpu_us = (on or {}).get("client_cpu_us_per_op")
    if not (bandwidth and written and cpu_us and off):
        return (title, "not measured (no bandwidth probe, bytes or CPU per commit in this run)",
                "≥ 5× for the target to be reachable", "not measured")
    disk = bandwidth * 1e6 / written
    cpu = int(meta.get("cores", 2)) * 1e6 / cpu_us
    ceiling = min(disk, cpu)
    ratio = ceiling / off["ops_per_sec"]
    detail = (f"{fmt_ratio(ratio)} ({fmt_ops(ceiling)} vs {fmt_ops(off['ops_per_sec'])} commits/s; "
              f"disk {bandwidth:,.0f} MB/s ÷ {written / 1024:,.0f} KiB = {fmt_ops(disk)} commits/s, "
              f"cores ÷ {cpu_us:,.0f} µs CPU = {fmt_ops(cpu)} commits/s)")
    return (title, detail, "≥ 5× for the target to be reachable",
            "within reach" if ratio >= 5 else "out of reach on this machine")


def single_committer_row(run: Run, meta: dict) -> tuple:
    """Issue 11: one committer's commit p50 at durability=immediate within 2× of the physical floor,
    two durable writes (the store's commit syncs its pages and then its meta page), each costed at
    the run's own durable 4 KiB file create median (scripts/bench.sh, at the start, before any
    target ran)."""
    title = ("Commit, one committer on one table (`durability=immediate`): p50 ÷ two syncs "
             "(2 × this run's durable 4 KiB file create median)")
    record = run.find("skade-embedded", "commit", 1, "same_table", "on")
    sync_ms = meta.get("fsync_ms_start")
    if record is None or not sync_ms:
        reason = run.missing("skade-embedded", scenario="commit") if record is None else \
            "not measured (no durable-create probe in this run's metadata)"
        return (title, reason, "≤ 2×", "not measured")
    floor_us = 2 * float(sync_ms) * 1000
    ratio = record["p50_us"] / floor_us
    return (title, f"{fmt_ratio(ratio)} ({fmt_us(record['p50_us'])} vs {fmt_us(floor_us)} µs)", "≤ 2×",
            verdict(ratio <= 2))


def target_rows(run: Run, meta: dict) -> list:
    """(target, measured, required, result) rows for the targets of bench/README.md "Performance bar"."""
    embedded = ("skade-embedded", run.find("skade-embedded", "load_table_warm", 1))
    pyiceberg = ("pyiceberg-sql", run.find("pyiceberg-sql", "load_table_warm", 1))
    rows = [target_row(
        run, "Embedded warm `load_table` vs PyIceberg `SqlCatalog` (1 thread, ops/s)", "≥ 1000×", 1000,
        embedded, pyiceberg, "ops_per_sec",
        lambda a, b: f"{throughput(a, b)}; p50 {fmt_us(a['p50_us'])} vs {fmt_us(b['p50_us'])} µs")]

    for scenario, label in (("load_table_warm", "`loadTable` (GET)"), ("table_exists", "`HEAD table`")):
        skade = run.find("skade-rest", scenario)
        threads = skade["threads"] if skade else None
        ours = ("skade-rest", skade)
        connections = f"{threads or 'N'} connections"
        for peer, name in JVM_REST_PEERS:
            theirs = (peer, run.find(peer, scenario, threads))
            rows.append(target_row(
                run, f"REST {label} throughput, skade-rest vs {name} ({connections})", "≥ 10×", 10,
                ours, theirs, "ops_per_sec", throughput))
            rows.append(target_row(
                run, f"REST {label} p99, {name} ÷ skade-rest ({connections})", "≥ 10× (p99 ≤ 1/10)",
                10, ours, theirs, "p99_us",
                lambda a, b: f"{fmt_us(a['p99_us'])} vs {fmt_us(b['p99_us'])} µs", lower_is_better=True))

    for scenario in ("load_table_warm", "table_exists"):
        rows.append(target_row(
            run, f"Embedded `{scenario}` scaling, 2 threads ÷ 1 thread (ops/s)", "≥ 1.8×", 1.8,
            ("skade-embedded", run.find("skade-embedded", scenario, 2)),
            ("skade-embedded", run.find("skade-embedded", scenario, 1)), "ops_per_sec", throughput))

    title = "Commit, 16 committers on different tables, group commit on ÷ off (`durability=immediate`)"
    on = run.find("skade-embedded", "commit", 16, "different_tables", "on")
    off = run.find("skade-embedded (group commit off)", "commit", 16, "different_tables")
    row = target_row(run, title, "≥ 5×", 5, ("skade-embedded", on),
                     ("skade-embedded (group commit off)", off), "ops_per_sec",
                     lambda a, b: f"{throughput(a, b)}{group_commit_detail(a)}; "
                                  f"durability {a.get('durability')}")
    if off and GROUP_COMMIT_SAME_BUILD in off.get("notes", ""):
        row = row[:3] + ("⚠️ not measurable: this build has no group-commit option (same build both ways)",)
    rows.append(row)
    rows.append(group_commit_ceiling_row(meta, on, off))
    rows.append(single_committer_row(run, meta))
    rows += coalesce_summary.target_rows(run.measured + run.failed, run.selected,
                                         run.find("skade-embedded", "commit", 16, "same_table", "on"))
    return rows


# The concurrent-writer targets' client counts (issue 12): the targets use the larger.
REST_WRITERS = (2, 16)


def count(record: dict, key: str) -> str:
    """A record's count field, or — for records from before the field existed."""
    value = record.get(key)
    return "—" if value is None else f"{value:,}"


def commits_per_sec(record: dict) -> float:
    """Appends that committed per second (records before `commits_per_sec` existed: every op did)."""
    return record.get("commits_per_sec", record["ops_per_sec"])


def reach(value: float, required: float) -> str:
    """The result of a row that says how far this machine lets a target go: `value` must be at least
    `required`; for a ratio that must stay at or below a bound, pass (bound, ratio)."""
    return "within reach here" if value >= required else "out of reach on this machine"


def load_generator_limit_rows(run: Run, cores: int, label: str, on: dict, off: dict,
                              fixture: dict, mixed: dict, baseline: dict) -> list:
    """Rows that measure what the machine allows: the load generator runs on the server's cores, so
    its own CPU per append caps commits/s however cheap the server is, and its writers' client-side
    work (`mixed_90_10` `writer_only`: each append stops before its commit is sent) sets a floor
    under the read p99 with commits. Only records with the CPU fields give the ceiling."""
    rows = []
    if on is not None and on.get("client_cpu_us_per_op", 0) > 0 and cores:
        ceiling = cores * 1e6 / on["client_cpu_us_per_op"]
        server = (f"{fmt_us(on['server_cpu_us_per_op'])} µs" if "server_cpu_us_per_op" in on
                  else "not measured")
        spent = (f"{fmt_us(on['client_cpu_us_per_op'])} µs of the load generator's CPU per append "
                 f"(skade serve: {server})")
        for peer_name, peer, threshold in (("REST fixture", fixture, 10),
                                           ("skade-rest with rebase off", off, 5)):
            title = (f"{label}: the load generator's ceiling ({cores} cores ÷ its CPU per append, the "
                     f"server costing nothing) ÷ {peer_name}'s commits/s")
            if peer is None:
                rows.append((title, "not measured", f"≥ {threshold}× for the target to be reachable",
                             "not measured"))
                continue
            ratio = ceiling / commits_per_sec(peer) if commits_per_sec(peer) > 0 else float("inf")
            rows.append((title, f"{fmt_ratio(ratio)} ({fmt_ops(ceiling)} vs "
                                f"{fmt_ops(commits_per_sec(peer))} commits/s; {spent})",
                         f"≥ {threshold}× for the target to be reachable", reach(ratio, threshold)))
    floor = run.find("skade-rest", "mixed_90_10", variant="writer_only")
    if floor is not None and baseline is not None and "read_p99_us" in floor:
        ratio = floor["read_p99_us"] / baseline["p99_us"] if baseline["p99_us"] > 0 else float("inf")
        rows.append((f"`mixed_90_10` `writer_only` read p99 (each append stops before its commit is "
                     f"sent) ÷ `load_table_warm` p99: the floor the load generator's own writers set",
                     f"{fmt_ratio(ratio)} ({fmt_us(floor['read_p99_us'])} vs "
                     f"{fmt_us(baseline['p99_us'])} µs)", "≤ 2× for the target to be reachable",
                     reach(2, ratio)))
        if mixed is not None and "read_p99_us" in mixed and floor["read_p99_us"] > 0:
            rows.append(("`mixed_90_10` read p99 with commits ÷ `writer_only` read p99: what the "
                         "server's commits add to the reads",
                         f"{fmt_ratio(mixed['read_p99_us'] / floor['read_p99_us'])} "
                         f"({fmt_us(mixed['read_p99_us'])} vs {fmt_us(floor['read_p99_us'])} µs)",
                         "—", ""))
    return rows


def rest_writer_lines(run: Run, cores: int = 0) -> list:
    """Section "Concurrent REST writers (issue 12 targets)": a writer's appends over REST (`commit`
    `same_table`) from 16 clients on one table, skade-rest (server-side rebase of appends on, its
    default) against itself with the rebase off and against the REST fixture, and `mixed_90_10`'s read
    p99 against the read-only p99 at the same connection count; every ratio within this run. Then
    what this machine allows (load_generator_limit_rows), given its `cores`."""
    writers = REST_WRITERS[-1]
    targets = ("skade-rest", SKADE_REST_REBASE_OFF, "iceberg-rest-fixture")
    on, off, fixture = (run.find(t, "commit", writers, "same_table") for t in targets)
    label = f"{writers} REST clients, one table"
    rows = []
    title = f"{label}: client-visible conflicts (HTTP 409), skade-rest"
    if on is None:
        rows.append((title, run.missing("skade-rest", scenario="commit"), "0", "not measured"))
    else:
        rows.append((title, f"{count(on, 'conflicts')} (retries {count(on, 'retries')}, given up "
                            f"{count(on, 'failures')}, of {on['ops']:,} appends)", "0",
                     verdict(on.get("conflicts", 0) == 0)))

    def commits(a, b):
        return (f"{fmt_ops(commits_per_sec(a))} vs {fmt_ops(commits_per_sec(b))} commits/s; "
                f"conflicts {count(a, 'conflicts')} vs {count(b, 'conflicts')}")

    rows.append(target_row(run, f"{label}: commits/s, skade-rest ÷ REST fixture", "≥ 10×", 10,
                           ("skade-rest", on), ("iceberg-rest-fixture", fixture), commits_per_sec,
                           commits, scenario="commit"))
    rows.append(target_row(run, f"{label}: commits/s, skade-rest ÷ skade-rest with rebase off",
                           "≥ 5×", 5, ("skade-rest", on), (SKADE_REST_REBASE_OFF, off),
                           commits_per_sec, commits, scenario="commit"))
    rows.append(target_row(
        run, f"{label}: p99 of an append (load, files, commit, retries), REST fixture ÷ skade-rest",
        "≥ 10× (p99 ≤ 1/10)", 10, ("skade-rest", on), ("iceberg-rest-fixture", fixture), "p99_us",
        lambda a, b: f"{fmt_us(a['p99_us'])} vs {fmt_us(b['p99_us'])} µs", lower_is_better=True,
        scenario="commit"))

    mixed = run.find("skade-rest", "mixed_90_10")
    baseline = run.find("skade-rest", "load_table_warm", mixed["threads"]) if mixed else None
    connections = mixed["threads"] if mixed else "N"
    title = (f"`mixed_90_10` read p99 with commits ÷ `load_table_warm` p99 without, skade-rest "
             f"({connections} connections)")
    if mixed is None or baseline is None:
        missing = [("skade-rest", "mixed_90_10")] if mixed is None else [("skade-rest", "load_table_warm")]
        rows.append((title, run.missing(missing[0][0], scenario=missing[0][1]), "≤ 2×", "not measured"))
    elif "read_p99_us" not in mixed:
        rows.append((title, "not measured (the mixed_90_10 record has no read_p99_us: an older driver)",
                     "≤ 2×", "not measured"))
    else:
        ratio = mixed["read_p99_us"] / baseline["p99_us"] if baseline["p99_us"] > 0 else float("inf")
        rows.append((title, f"{fmt_ratio(ratio)} ({fmt_us(mixed['read_p99_us'])} vs "
                            f"{fmt_us(baseline['p99_us'])} µs)", "≤ 2×", verdict(ratio <= 2)))
    rows += load_generator_limit_rows(run, cores, label, on, off, fixture, mixed, baseline)

    lines = ["Appends as a writer makes them over REST (`commit` `same_table`, bench/README.md): load, "
             "write a manifest and a manifest list, commit; on HTTP 409 reload and retry with "
             "Iceberg's backoff, up to 4 retries. skade-rest keeps skade's default (the server rebases "
             "a refused pure append); *rebase off* is the same server with tables created with "
             "`skade.commit.rebase-appends=false`.", "",
             "| target | measured | required | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    if on is not None and off is not None and on.get("conflicts", 0) > 0 and off.get("conflicts", 0) > 0:
        lines += ["", "> skade-rest saw conflicts with the rebase on as well as off: this build does "
                      "not rebase appends on the server (or they did not qualify)."]
    lines += ["", "| target | clients | appends | commits/s | conflicts | retries | given up | p50 µs | "
                  "p99 µs |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for threads in REST_WRITERS:
        for target in targets + ("nessie",):
            r = run.find(target, "commit", threads, "same_table")
            if r is None:
                lines.append(f"| {target} | {threads} | {run.missing(target, scenario='commit')} "
                             "| | | | | | |")
                continue
            lines.append(f"| {target} | {threads} | {r['ops']:,} | {fmt_ops(commits_per_sec(r))} | "
                         f"{count(r, 'conflicts')} | {count(r, 'retries')} | {count(r, 'failures')} | "
                         f"{fmt_us(r['p50_us'])} | {fmt_us(r['p99_us'])} |")
    return lines + [""]


def object_storage_lines(run: Run, s3_ingest: list) -> list:
    """Section "Object storage (issue 14 targets)": skade serve on an s3:// warehouse against Nessie
    on the same MinIO (loadTable and HEAD: >= 5x the throughput, p99 <= 1/5), then the S3 ingest
    targets and records of bench/s3/s3_ingest.py (bench/s3/summarize.py)."""
    peer, name = S3_REST_PEER
    rows = []
    for scenario, label in (("load_table_warm", "`loadTable` (GET)"), ("table_exists", "`HEAD table`")):
        skade = run.find(SKADE_REST_S3, scenario)
        threads = skade["threads"] if skade else None
        ours, theirs = (SKADE_REST_S3, skade), (peer, run.find(peer, scenario, threads))
        connections = f"{threads or 'N'} connections"
        rows.append(target_row(
            run, f"REST {label} throughput, skade-rest-s3 vs {name}, both on MinIO ({connections})",
            f"≥ {S3_REST_RATIO}×", S3_REST_RATIO, ours, theirs, "ops_per_sec", throughput))
        rows.append(target_row(
            run, f"REST {label} p99, {name} ÷ skade-rest-s3, both on MinIO ({connections})",
            f"≥ {S3_REST_RATIO}× (p99 ≤ 1/{S3_REST_RATIO})", S3_REST_RATIO, ours, theirs, "p99_us",
            lambda a, b: f"{fmt_us(a['p99_us'])} vs {fmt_us(b['p99_us'])} µs", lower_is_better=True))
    lines = ["Catalog scenarios with the warehouse in MinIO on this machine: `skade serve` on an "
             "`s3://` warehouse (catalog store in a local directory) and Nessie, in the same run, "
             "through the same load generator, whose appends write their manifests to `s3://` "
             "(bench/README.md \"Object storage\"). Then ingest into the same kind of MinIO: "
             "`skade ingest` against PyIceberg, on loopback and with latency added in front of "
             "MinIO.", "", "| target | measured | required | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    lines += ["", f"| scenario | variant | threads | skade-rest-s3 ops/s | {name} ops/s | skade ÷ "
                  f"{name} | skade-rest-s3 p99 µs | {name} p99 µs | conflicts (skade / {name}) |",
              "|---|---|--:|--:|--:|--:|--:|--:|---|"]
    keys = sorted({(r["scenario"], r.get("variant", ""), r["threads"]) for r in run.measured
                   if r["target"] in (SKADE_REST_S3, peer) and r["scenario"] in SCENARIO_ORDER},
                  key=lambda k: (order_key(k[0], SCENARIO_ORDER), k[1], k[2]))
    for scenario, variant, threads in keys:
        a = run.find(SKADE_REST_S3, scenario, threads, variant)
        b = run.find(peer, scenario, threads, variant)
        ratio = (fmt_ratio(a["ops_per_sec"] / b["ops_per_sec"])
                 if a and b and b["ops_per_sec"] > 0 else "")
        cell = (lambda r, key, f: f(r[key]) if r else "—")
        conflicts = (f"{count(a, 'conflicts') if a else '—'} / {count(b, 'conflicts') if b else '—'}"
                     if scenario in ("commit", "mixed_90_10") else "")
        lines.append(f"| `{scenario}` | {variant or '—'} | {threads} | {cell(a, 'ops_per_sec', fmt_ops)} | "
                     f"{cell(b, 'ops_per_sec', fmt_ops)} | {ratio} | {cell(a, 'p99_us', fmt_us)} | "
                     f"{cell(b, 'p99_us', fmt_us)} | {conflicts} |")
    if not keys:
        lines.append(f"| {run.missing(SKADE_REST_S3, peer)} | | | | | | | | |")
    lines += ["", "### Ingest into S3", ""]
    if s3_ingest:
        lines += s3_summary.markdown(s3_ingest)
    else:
        lines.append("Not measured: " + (run.failure("s3-ingest") or "no records") + ".")
    return lines + [""]


def seed_rows(run: Run) -> list:
    rows = []
    for label, target, scenario, seed_us in SEED:
        record = run.find(target, scenario, 1)
        if record is None:
            rows.append((label, f"{seed_us} µs", run.missing(target), ""))
        else:
            rows.append((label, f"{seed_us} µs", f"{fmt_us(record['p50_us'])} µs",
                         f"{record['p50_us'] / seed_us:.2f}×"))
    return rows


def counterpart(target: str) -> str:
    return "skade-rest" if target in REST_TARGETS else "skade-embedded"


def scenario_sections(run: Run) -> list:
    lines = []
    scenarios = sorted({r["scenario"] for r in run.measured
                        if r["scenario"] != coalesce_summary.SCENARIO
                        and not r["scenario"].startswith(HISTORY_PREFIX)
                        and r["scenario"] not in TIME_TRAVEL_SCENARIOS},
                       key=lambda s: order_key(s, SCENARIO_ORDER))
    for scenario in scenarios:
        records = [r for r in run.measured if r["scenario"] == scenario]
        lines += [f"### `{scenario}`", ""]
        write = scenario in ("create_table", "commit", "mixed_90_10")
        header = "| target | variant | threads | ops | ops/s | p50 µs | p99 µs | p999 µs | skade × |"
        rule = "|---|---|--:|--:|--:|--:|--:|--:|--:|"
        if write:
            header += " conflicts | retries | given up | durability |"
            rule += "--:|--:|--:|---|"
        lines += [header, rule]
        records.sort(key=lambda r: (r.get("variant", ""), r["threads"],
                                    order_key(display_target(r), TARGET_ORDER)))
        notes = {}
        for r in records:
            target = display_target(r)
            base = run.find(counterpart(target), scenario, r["threads"], r.get("variant", ""),
                            "on" if counterpart(target) == "skade-embedded" else None)
            speedup = ""
            if base is not None and base is not r and r["ops_per_sec"] > 0:
                speedup = fmt_ratio(base["ops_per_sec"] / r["ops_per_sec"])
            row = (f"| {target} | {r.get('variant', '') or '—'} | {r['threads']} | {r['ops']:,} | "
                   f"{fmt_ops(r['ops_per_sec'])} | {fmt_us(r['p50_us'])} | {fmt_us(r['p99_us'])} | "
                   f"{fmt_us(r['p999_us'])} | {speedup} |")
            if write:
                counts = [r.get(key) for key in ("conflicts", "retries", "failures")]
                row += "".join(f" {'' if c is None else f'{c:,}'} |" for c in counts)
                row += f" {r.get('durability', '')} |"
            lines.append(row)
            if r.get("notes"):
                notes.setdefault(r["notes"], []).append(target)
        if notes:
            lines.append("")
            for note, targets in notes.items():
                lines.append(f"- {', '.join(dict.fromkeys(targets))}: {note}")
        lines.append("")
    return lines


def history_lines(run: Run) -> list:
    """The section of bench/rest/history_bench.cc: commit and `snapshots=refs` cost on the longest
    history ÷ on the shortest (targets: within 2×), and the floor the bytes alone put under the commit
    ratio."""
    records = [r for r in run.measured if r["target"] == HISTORY_TARGET]
    lengths = sorted({int(r["variant"].removeprefix("snapshots_")) for r in records})
    if len(lengths) < 2:
        return ["Not measured: " + (run.failure(HISTORY_TARGET) or "no records") + ".", ""]
    short, long = lengths[0], lengths[-1]

    def find(scenario, length):
        return run.find(HISTORY_TARGET, scenario, 1, f"snapshots_{length}")

    def us(record, key="p50_us"):
        return record[key] if record else None

    lines = [f"`bench/rest/history_bench.cc` over `skade serve` (`durability=immediate`): a table with "
             f"{long:,} snapshots against one with {short:,}, same run, interleaved rounds. A commit "
             "writes a new metadata file and returns the whole metadata (the REST spec's commit "
             "response carries it), so its floor grows with the bytes even when no history is "
             "serialized again. skade makes a commit durable through its store's journal "
             "(compressed metadata in the same transaction as the pointer swap) when the metadata "
             "file is at most `journal_max_bytes`, and by the file's fsync when it is larger; the "
             "floor takes the matching write (`history_write` unsynced, `history_write_fsync` "
             "durable; both keep their files, as a commit does).", "",
             "| target | measured | required | result |", "|---|---|---|---|"]
    for scenario, title in (("history_commit", "`set-properties` commit p50"),
                            ("history_load_refs", "`loadTable?snapshots=refs` p50")):
        a, b = find(scenario, long), find(scenario, short)
        label = f"{title}, {long:,} ÷ {short:,} snapshots"
        if a is None or b is None:
            lines.append(f"| {label} | {run.missing(HISTORY_TARGET)} | ≤ 2× | not measured |")
            continue
        ratio = a["p50_us"] / b["p50_us"] if b["p50_us"] > 0 else float("inf")
        lines.append(f"| {label} | {fmt_ratio(ratio)} ({fmt_us(a['p50_us'])} vs {fmt_us(b['p50_us'])} µs) "
                     f"| ≤ 2× | {'✅ pass' if ratio <= 2 else '❌ fail'} |")
    # The least the commit ratio can be: the short table's commit plus what writing the larger
    # metadata file the way the commit does (unsynced when journaled, else durable) and returning
    # it cost more (the commit response carries the whole metadata). A lower bound: building the
    # metadata, and journaling it, cost more on top.
    def file_write(length):
        record = find("history_write", length)
        if record and record.get("metadata_bytes", 0) > record.get("journal_max_bytes", 0):
            record = find("history_write_fsync", length)
        return record

    commit_short = us(find("history_commit", short))
    pairs = [(file_write(long), file_write(short)),
             (find("history_load_all", long), find("history_load_all", short))]
    if commit_short and all(a and b for a, b in pairs):
        floor = (commit_short + sum(us(a) - us(b) for a, b in pairs)) / commit_short
        verdict = ("the 2× target is within physical reach" if floor <= 2
                   else "⚠️ 2× is below the physical floor on this machine")
        how = {"history_write": "unsynced, journaled", "history_write_fsync": "made durable"}
        lines.append(f"| commit floor: ({short:,}-snapshot commit + the extra write of the larger "
                     f"metadata file ({how[pairs[0][0]['scenario']]}, as the commit does) and its "
                     f"extra transfer) ÷ {short:,}-snapshot commit | {fmt_ratio(floor)} | — | "
                     f"{verdict} |")
    lines += ["", "| scenario | snapshots | ops | p50 µs | p99 µs | notes |", "|---|--:|--:|--:|--:|---|"]
    for scenario in ("history_commit", "history_load_refs", "history_load_all", "history_write",
                     "history_write_fsync"):
        for length in lengths:
            r = find(scenario, length)
            if r:
                lines.append(f"| `{scenario}` | {length:,} | {r['ops']:,} | {fmt_us(r['p50_us'])} | "
                             f"{fmt_us(r['p99_us'])} | {r.get('notes', '')} |")
    return lines + [""]


def fmt_ns(ops_per_sec: float) -> str:
    """Mean ns per op from a single-threaded record's ops/s."""
    return f"{1e9 / ops_per_sec:,.0f}" if ops_per_sec > 0 else "—"


def time_travel_lines(run: Run) -> list:
    """Section "Time travel (issue 13 targets)": LoadTableAt of random historical snapshots and
    ResolveMany of 1,000 keys per call, skade with its commit-log index against the same catalog
    answering from the live store only, PyIceberg (walking the metadata log) and iceberg-rust; the
    target load_table_at_snapshot ≥ 100 × PyIceberg (mean latency, i.e. single-threaded ops/s)."""
    def find(target, scenario, variant=""):
        return run.find(target, scenario, None, variant)

    def why(target):
        target = target.split(" (", 1)[0]  # "skade-embedded (live store)": the same driver
        for r in run.failed:
            if r["target"] == target and r["scenario"] in TIME_TRAVEL_SCENARIOS + (TIME_TRAVEL_FAILURE,):
                return r["error"]
        return "no record"

    def missing(*targets):
        return "not measured (" + "; ".join(f"{t}: {why(t)}" for t in targets) + ")"

    def latency(a, b):
        return (f"{fmt_ns(a['ops_per_sec'])} vs {fmt_ns(b['ops_per_sec'])} ns/op; p50 "
                f"{fmt_us(a['p50_us'])} vs {fmt_us(b['p50_us'])} µs")

    def row(title, required, threshold, ours, theirs):
        (our_name, a), (their_name, b) = ours, theirs
        if a is None or b is None:
            names = [n for n, r in (ours, theirs) if r is None]
            return (title, missing(*names), required, "not measured")
        ratio = a["ops_per_sec"] / b["ops_per_sec"] if b["ops_per_sec"] > 0 else float("inf")
        result = verdict(ratio >= threshold) if threshold else "—"
        return (title, f"{fmt_ratio(ratio)} ({latency(a, b)})", required, result)

    skade = "skade-embedded"
    index = {s: (skade, find(skade, s, "index")) for s in TIME_TRAVEL_SCENARIOS}
    rows = [row("`load_table_at_snapshot`: skade (index) ÷ PyIceberg, per-op latency", "≥ 100×", 100,
                index["load_table_at_snapshot"],
                ("pyiceberg-sql", find("pyiceberg-sql", "load_table_at_snapshot")))]
    for scenario in ("load_table_at_snapshot", "resolve_snapshot", "batch_load_planning"):
        rows.append(row(f"`{scenario}`: skade (index) ÷ skade (live store only)", "—", None,
                        index[scenario], (f"{skade} (live store)", find(skade, scenario, "live_store"))))
    rows.append(row("`batch_load_planning`: skade (index) ÷ PyIceberg, per call of 1,000 keys", "—",
                    None, index["batch_load_planning"],
                    ("pyiceberg-sql", find("pyiceberg-sql", "batch_load_planning"))))
    for scenario in ("load_table_at_snapshot", "batch_load_planning"):
        rows.append(row(f"`{scenario}`: skade (index) ÷ iceberg-rust", "—", None, index[scenario],
                        ("iceberg-rust-memory", find("iceberg-rust-memory", scenario))))

    lines = ["Random (table, snapshot id) pairs from every snapshot a catalog ever committed, most of them "
             "expired from the current metadata (bench/README.md \"Time travel\"). skade: `LoadTableAt` and "
             "`ResolveMany` with the commit-log index built once after population, and a second catalog on "
             "the same warehouse whose index never builds, so the live LMDB store answers every lookup. "
             "PyIceberg: load the table, then read the metadata log's files until one holds the snapshot, "
             "on the smaller history it could populate in its time budget (which only favours it). Ratios "
             "are of mean per-op latency (single-threaded ops/s), within this run.", "",
             "| target | measured | required | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]

    lines += ["", "| target | scenario | variant | ops | ns/op | p50 µs | p99 µs | per key ns | history |",
              "|---|---|---|--:|--:|--:|--:|--:|---|"]
    for target in (skade,) + TIME_TRAVEL_PEERS:
        records = [r for r in run.measured if r["target"] == target and r["scenario"] in TIME_TRAVEL_SCENARIOS]
        if not records:
            lines.append(f"| {target} | {missing(target)} | | | | | | | |")
            continue
        records.sort(key=lambda r: (TIME_TRAVEL_SCENARIOS.index(r["scenario"]), r.get("variant", "")))
        for r in records:
            if r["scenario"] == "populate_history":
                continue
            per_key = f"{r['ns_per_key']:,.0f}" if "ns_per_key" in r else ""
            history = f"{r.get('commit_log_commits', 0):,.0f} commits"
            if "unreachable_snapshots" in r:
                history += f"; {r['unreachable_snapshots']:,.0f} unreachable"
            if "file_reads_per_op" in r:
                history += f"; {r['file_reads_per_op']:.1f} metadata files read per op"
            if "index_keys" in r:
                history += (f"; index of {r['index_keys']:,.0f} keys built in {r.get('index_build_ms', 0):,.0f} "
                            f"ms, {r.get('index_hits', 0):,.0f} index hits, {r.get('index_tail_hits', 0):,.0f} "
                            "tail hits")
            lines.append(f"| {target} | `{r['scenario']}` | {r.get('variant', '') or '—'} | {r['ops']:,} | "
                         f"{fmt_ns(r['ops_per_sec'])} | {fmt_us(r['p50_us'])} | {fmt_us(r['p99_us'])} | "
                         f"{per_key} | {history} |")
    lines += ["", "Population (not timed in the scenarios above):", ""]
    for target in (skade,) + TIME_TRAVEL_PEERS:
        r = find(target, "populate_history")
        if r is None:
            continue
        lines.append(f"- {target}: {r.get('commits', r['ops']):,.0f} commits in {r.get('seconds', 0):,.1f} s "
                     f"({fmt_ops(r['ops_per_sec'])} commits/s"
                     + (f"; {r['metadata_files']:,.0f} metadata files, {r['metadata_mb']:,.0f} MB"
                        if "metadata_files" in r else "") + f"). {r.get('notes', '')}")
    notes = {r["notes"] for r in run.measured
             if r["scenario"] in TIME_TRAVEL_SCENARIOS[1:] and r.get("notes")}
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in sorted(notes)]
    return lines + [""]


def failure_lines(run: Run) -> list:
    lines = []
    if not run.failed and not run.unselected:
        lines += ["Every selected target was obtained and every scenario ran.", ""]
    lines += ["| target | what | reason |", "|---|---|---|"]
    lines += [f"| {t} | not run | not selected for this run (BENCH_TARGETS) |" for t in run.unselected]
    for r in sorted(run.failed, key=lambda r: order_key(r["target"], TARGET_ORDER)):
        what = r["scenario"] if r["scenario"] in FAILURE_SCENARIOS else (
            f"scenario `{r['scenario']}` {r.get('variant', '')} ({r['threads']} threads)")
        reason = r["error"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r['target']} | {what} | {reason} |")
    lines += [f"| {target} | not obtainable | {reason} |" for target, reason in UNOBTAINABLE]
    return lines + [""]


def render(records: list, meta: dict, results_name: str, ingest: list = (),
           ingest_name: str = "", static_tree: dict = None, static_tree_name: str = "",
           s3_ingest: list = (), scan: list = (), static_tree_paired: dict = None) -> str:
    run = Run(records, meta.get("targets"))
    run_id = meta.get("run_id") or (records[0]["run_id"] if records else "?")
    options = meta.get("options", {})
    mode = meta.get("mode", "?")
    lines = [
        "# skade benchmarks",
        "",
        f"_Generated by `make bench` (`scripts/bench.sh` → `bench/report.py`) from "
        f"`bench/results/{results_name}`; do not edit by hand. Scenario definitions: "
        f"[bench/README.md](bench/README.md)._",
        "",
        f"- **Run** `{run_id}`, mode **{mode}**, {meta.get('started', '?')} → {meta.get('finished', '?')}, "
        f"commit `{meta.get('git_commit', '?')}` (branch `{meta.get('git_branch', '?')}`)",
        f"- **Machine**: {meta.get('cpu', '?')}, {meta.get('cores', '?')} cores; load average "
        f"{meta.get('load_start', '?')} at start, {meta.get('load_end', '?')} at end"
        + (f"; durable 4 KiB file create median {meta['fsync_ms_start']} ms at start, "
           f"{meta.get('fsync_ms_end', '?')} ms at end" if "fsync_ms_start" in meta else "")
        + (f"; empty file create median {meta['create_us_start']} µs at start, "
           f"{meta.get('create_us_end', '?')} µs at end" if meta.get("create_us_start") else "")
        + (f"; sequential write {meta['write_mb_s_start']} MB/s" if "write_mb_s_start" in meta else ""),
        *([f"- **Python peers**: {meta['peers']}"] if meta.get("peers") else []),
        f"- **Catalog**: {options.get('tables', '?')} tables, {options.get('tables_per_namespace', '?')} per "
        f"namespace; N = {options.get('threads', '?')} threads; per scenario at most "
        f"{options.get('ops', '?'):,} read ops / {options.get('commit_ops', '?'):,} write ops and "
        f"{options.get('seconds', '?')} s; {options.get('warmup', '?')} warm-up ops per thread"
        if isinstance(options.get("ops"), int) else "- **Catalog**: ?",
        "",
    ]
    if mode != "full":
        lines += [f"> **{mode} mode**: small catalog, short scenarios. Good for catching regressions, not for "
                  "publishing; run `make bench` (full mode, 10,000 tables) on a quiet machine for that.", ""]
    try:
        load = float(str(meta.get("load_start", "0")).split()[0])
        if load > 0.5 * float(meta.get("cores", 1)):
            lines += [f"> The machine was busy (load {meta['load_start']} on {meta['cores']} cores): other "
                      "work competed for the CPU. Re-run on a quiet machine before trusting small differences.",
                      ""]
    except ValueError:
        pass
    lines += ["## Targets", "", "Ratios between targets of this run only.", "",
              "| target | measured | required | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in target_rows(run, meta)]
    lines += ["", "## Concurrent REST writers (issue 12 targets)", ""] + rest_writer_lines(run, int(meta.get("cores") or 0))
    lines += ["", "## Against the design notes' numbers", "",
              "The design notes (bench/README.md, \"Performance bar\") measured an earlier Rust implementation on a larger machine; these are absolute "
              "figures from different hardware, for orientation only (single thread).", "",
              "| metric | design notes | this run | this run ÷ design notes |", "|---|--:|--:|--:|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in seed_rows(run)]
    lines += ["", "## Results by scenario", "",
              "`skade ×` is skade's throughput divided by the row's, same scenario, variant and threads: "
              "skade-embedded for the embedded peers, skade-rest for the REST peers.", ""]
    lines += scenario_sections(run)
    lines += coalesce_summary.markdown(run.measured + run.failed)
    if ingest:
        where = (f"measured on its own (`{ingest_name}`; its ratios are within that run)"
                 if ingest_name else "in the same run")
        lines += ["## Ingest", "",
                  f"`bench/ingest/run.sh` {where}: the raw all-core Arrow Parquet encode rate (the "
                  "physical limit), `IngestPipelined`, `IngestPipelinedOverlap` and PyIceberg "
                  "`table.append` on the same generated data.", ""]
        lines += ingest_summary.markdown(ingest) + [""]
    if s3_ingest or not {SKADE_REST_S3, "s3-ingest"} <= set(run.unselected):
        lines += ["## Object storage (issue 14 targets)", ""] + object_storage_lines(run, s3_ingest)
    if scan or "scan" not in run.unselected:
        lines += ["## Read path (issue 15 targets)", "",
                  "`bench/scan/scan_bench.py` in the same run: medians of its repetitions.", ""]
        lines += (scan_summary.markdown(scan) if scan
                  else ["Not measured: " + (run.failure("scan") or "no records") + "."]) + [""]
    if HISTORY_TARGET not in run.unselected:
        lines += ["## History length", ""] + history_lines(run)
    if TIME_TRAVEL not in run.unselected:
        lines += ["## Time travel (issue 13 targets)", ""] + time_travel_lines(run)
    if static_tree:
        lines += ["## Static index lookups (issue 13 targets)", "",
                  f"`skade_micro_bench --benchmark_filter='StaticTree|Lookup'` in the same run "
                  f"(`{static_tree_name}`; bench/micro/static_tree_benchmark.cc).", ""]
        lines += static_tree_summary.markdown(static_tree, static_tree_paired) + [""]
    lines += ["## Targets and scenarios without numbers", ""]
    lines += failure_lines(run)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("--output", type=pathlib.Path, default=pathlib.Path("BENCHMARKS.md"))
    parser.add_argument("--ingest", type=pathlib.Path,
                        help="an ingest run of its own (bench/ingest/run.sh) instead of this run's")
    args = parser.parse_args()
    try:
        records = load_records(args.results)
    except (OSError, ReportError) as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 1
    meta_path = args.results.with_name(args.results.name.removesuffix(".jsonl") + ".meta.json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    # The same run's ingest benchmark, if it ran (scripts/bench.sh writes it beside the results).
    ingest_path = args.ingest or args.results.with_name(
        args.results.name.removesuffix(".jsonl") + ".ingest.jsonl")
    ingest = ingest_summary.load(ingest_path) if ingest_path.exists() else []
    # The same run's static-tree micro benchmark, if it ran.
    static_tree_path = args.results.with_name(
        args.results.name.removesuffix(".jsonl") + ".static-tree.json")
    static_tree = (static_tree_summary.load(static_tree_path) if static_tree_path.exists()
                   else None)
    paired_path = static_tree_path.with_name(
        static_tree_path.name.removesuffix(".json") + "-paired.json")
    static_tree_paired = (static_tree_summary.load(paired_path) if paired_path.exists()
                          else None)
    # The same run's S3 ingest benchmark (bench/s3/s3_ingest.py), if it ran.
    s3_ingest_path = args.results.with_name(
        args.results.name.removesuffix(".jsonl") + ".s3-ingest.jsonl")
    s3_ingest = s3_summary.load(s3_ingest_path) if s3_ingest_path.exists() else []
    # The same run's read-path benchmark (bench/scan/scan_bench.py), if it ran.
    scan_path = args.results.with_name(args.results.name.removesuffix(".jsonl") + ".scan.jsonl")
    scan = scan_summary.load(scan_path) if scan_path.exists() else []
    args.output.write_text(render(records, meta, args.results.name, ingest,
                                  ingest_path.name if args.ingest else "", static_tree,
                                  static_tree_path.name, s3_ingest, scan, static_tree_paired))
    return 0


if __name__ == "__main__":
    sys.exit(main())
