"""The benchmark harness (`make bench`, bench/README.md) in its tiny smoke mode: the skade targets only,
a few hundred ops. Checks the JSON lines are well-formed and that BENCHMARKS.md can be rendered from
them, without touching bench/results/ or the real BENCHMARKS.md."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

SCENARIOS = {
    "load_table_cold", "load_table_warm", "table_exists", "list_tables", "list_namespaces",
    "create_table", "commit", "mixed_90_10",
}
NUMBERS = ("ops_per_sec", "p50_us", "p99_us", "p999_us")


def run_bench(bin_dir, tmp_path, run_id, **settings):
    """scripts/bench.sh with `settings` (BENCH_* variables), its results and report under tmp_path."""
    env = dict(
        os.environ,
        BENCH_RUN_ID=run_id,
        BENCH_RESULTS_DIR=str(tmp_path / "results"),
        BENCH_REPORT=str(tmp_path / "BENCHMARKS.md"),
        **settings,
    )
    proc = subprocess.run(
        [str(ROOT / "scripts" / "bench.sh"), str(bin_dir.parent)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "results" / f"{run_id}.jsonl"


def run_smoke(bin_dir, tmp_path):
    return run_bench(bin_dir, tmp_path, "smoke-test", BENCH_SMOKE="1",
                     BENCH_TARGETS="skade-embedded,skade-rest")


def test_smoke_run_writes_records_and_report(bin_dir, tmp_path):
    results = run_smoke(bin_dir, tmp_path)
    records = [json.loads(line) for line in results.read_text().splitlines()]

    failures = [r for r in records if "error" in r]
    assert not failures, failures
    for r in records:
        assert r["run_id"] == "smoke-test"
        assert r["target"] in ("skade-embedded", "skade-rest")
        assert r["ops"] > 0 and r["threads"] >= 1 and r["catalog_tables"] == 20
        assert all(isinstance(r[key], (int, float)) for key in NUMBERS), r
        assert 0 < r["p50_us"] <= r["p99_us"] <= r["p999_us"], r
        assert r["durability"] and "notes" in r
    for target in ("skade-embedded", "skade-rest"):
        assert SCENARIOS <= {r["scenario"] for r in records if r["target"] == target}, target
    group_commit = {r.get("group_commit") for r in records
                    if r["target"] == "skade-embedded" and r["scenario"] == "commit"}
    assert group_commit == {"on", "off"}
    # Store transactions per commit: one each with group commit off, at most one each with it on.
    for r in records:
        if r["target"] != "skade-embedded" or r["scenario"] != "commit":
            continue
        assert r["store_transactions"] >= 1 and r["client_write_bytes_per_op"] > 0, r
        if r["group_commit"] == "off":
            assert r["commits_per_store_transaction"] == 1, r
        assert r["commits_per_store_transaction"] >= 1, r
    group_row = next(line for line in (tmp_path / "BENCHMARKS.md").read_text().splitlines()
                     if "group commit on ÷ off" in line)
    assert "commits per store transaction" in group_row and "KiB written per commit" in group_row
    # skade-rest: every commit case with the server-side rebase on and off, real appends counted.
    rest_commits = [r for r in records if r["target"] == "skade-rest" and r["scenario"] == "commit"]
    for threads in (2, 16):
        for rebase in ("on", "off"):
            assert [r for r in rest_commits if (r["variant"], r["threads"], r["rebase"])
                    == ("same_table", threads, rebase)], (threads, rebase)
    for r in rest_commits:
        assert {"conflicts", "retries", "failures", "commits_per_sec"} <= r.keys(), r
        assert r["retries"] + r["failures"] == r["conflicts"], r
        assert "a writer's append" in r["notes"], r
    mixed = next(r for r in records if r["target"] == "skade-rest" and r["scenario"] == "mixed_90_10"
                 and "variant" not in r)
    assert mixed["read_ops"] + mixed["commit_ops"] == mixed["ops"], mixed
    assert 0 < mixed["read_p50_us"] <= mixed["read_p99_us"], mixed
    # The floor under it: the writers' client-side work, no commit sent (REST targets only).
    floor = [r for r in records if r["scenario"] == "mixed_90_10" and r.get("variant") == "writer_only"]
    assert [r["target"] for r in floor] == ["skade-rest"], floor
    assert floor[0]["read_ops"] > 0 and floor[0]["commit_ops"] > 0 and "conflicts" not in floor[0]
    # CPU per op: the load generator's on every record, the server's where its pid was given.
    assert all(r["client_cpu_us_per_op"] > 0 for r in records), records
    assert all(r["server_cpu_us_per_op"] > 0 for r in records if r["target"] == "skade-rest")
    assert not [r for r in records if r["target"] == "skade-embedded" and "server_cpu_us_per_op" in r]

    meta = json.loads(results.with_name("smoke-test.meta.json").read_text())
    assert meta["mode"] == "smoke" and meta["options"]["tables"] == 20
    # The Python peers' versions, their dependencies included, as the run found them.
    from importlib.metadata import version
    assert f"pyiceberg {version('pyiceberg')}, SQLAlchemy {version('SQLAlchemy')}" in meta["peers"]

    report = (tmp_path / "BENCHMARKS.md").read_text()
    assert f"- **Python peers**: {meta['peers']}" in report
    for heading in ("## Targets", "## Against the design notes' numbers", "## Results by scenario",
                    "### `commit`", "## Targets and scenarios without numbers"):
        assert heading in report
    assert "pyiceberg-sql | not run | not selected" in report
    # One committer against two syncs: the floor comes from the run's own durable-create probe.
    single = next(line for line in report.splitlines() if "one committer on one table" in line)
    sys.path.insert(0, str(ROOT / "bench"))
    from report import fmt_us
    two_syncs = fmt_us(2 * float(meta["fsync_ms_start"]) * 1000)
    assert f"vs {two_syncs} µs" in single and ("pass" in single or "fail" in single), single
    # The group-commit ceiling: the run's own bandwidth probe and the grouped run's bytes and CPU.
    assert float(meta["write_mb_s_start"]) > 0, meta
    ceiling = next(line for line in report.splitlines() if "the machine's ceiling" in line)
    assert f"disk {float(meta['write_mb_s_start']):,.0f} MB/s ÷" in ceiling, ceiling
    assert "KiB =" in ceiling and "µs CPU =" in ceiling and "reach" in ceiling, ceiling
    assert "nessie | not run | not selected" in report and "| polaris | not obtainable |" in report
    writers = rest_writer_rows(report)
    assert len(writers) == 9, writers
    assert "iceberg-rest-fixture: not selected" in writers[1] and "not measured" in writers[3]
    assert ("pass" in writers[0] or "fail" in writers[0]) and "skade-rest ÷ skade-rest" in writers[2]
    assert "pass" in writers[2] or "fail" in writers[2]
    # What the machine allows: the ceiling against the fixture has nothing to divide by here.
    assert "ceiling" in writers[5] and "not measured" in writers[5], writers[5]
    for row in writers[6:8]:
        assert "reach" in row and "not measured" not in row, row
    assert "what the server's commits add" in writers[8] and "×" in writers[8], writers[8]
    assert not (ROOT / ".deps" / "bench" / "smoke-test").exists()


def rest_writer_rows(report: str) -> list:
    """The target rows of the report's "Concurrent REST writers (issue 12 targets)" section."""
    section = report.split("## Concurrent REST writers (issue 12 targets)", 1)[1].split("\n## ", 1)[0]
    rows = section.split("| target | measured | required | result |\n|---|---|---|---|\n", 1)[1]
    return rows.split("\n\n", 1)[0].splitlines()


def test_smoke_rest_writers_against_the_rest_fixture(bin_dir, tmp_path):
    """skade-rest and the Iceberg REST fixture in one smoke run: the writer's appends (real manifests
    and manifest lists the client writes under the table locations both servers hand out) reach
    both, and every row of the concurrent-writer section is computed (whatever the verdicts)."""
    results = run_bench(bin_dir, tmp_path, "writers-test", BENCH_SMOKE="1",
                        BENCH_TARGETS="skade-rest,iceberg-rest-fixture")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert not [r for r in records if "error" in r], [r for r in records if "error" in r]
    same_table = {(r["target"], r.get("rebase"), r["threads"]) for r in records
                  if r["scenario"] == "commit" and r.get("variant") == "same_table"}
    for threads in (2, 16):
        for key in (("skade-rest", "on"), ("skade-rest", "off"), ("iceberg-rest-fixture", None)):
            assert key + (threads,) in same_table, (key, threads)
    report = (tmp_path / "BENCHMARKS.md").read_text()
    writers = rest_writer_rows(report)
    assert len(writers) == 9, writers
    assert not [line for line in writers if "not measured" in line], writers
    # The fixture's pid reached the load generator: its JVM's CPU is in its commit records.
    commits = [r for r in records if r["scenario"] == "commit"]
    assert commits and min(r["server_cpu_us_per_op"] for r in commits) > 0, commits


def test_smoke_coalesce_run_verifies_rows_and_reports_the_targets(bin_dir, tmp_path):
    """The coalesce scenario at smoke sizes (skade only: the peers are skipped in smoke mode): every
    case with and without the committer measured and verified by its driver, and the report's
    coalesce section and target rows rendered."""
    results = run_bench(bin_dir, tmp_path, "coalesce-test", BENCH_SMOKE="1", BENCH_TARGETS="coalesce")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert not [r for r in records if "error" in r], records
    cases = {(r["variant"], r["threads"], r["committer"]) for r in records}
    for variant in ("1_row/1_table", "1_row/10_tables", "100_rows/1_table", "100_rows/10_tables"):
        for committer in ("on", "off"):
            assert (variant, 8, committer) in cases
    assert ("1_row/1_table", 16, "on") in cases and ("1_row/1_table", 16, "off") in cases
    for r in records:
        assert r["scenario"] == "coalesce" and r["target"] == "skade-embedded"
        assert r["ops"] == r["threads"] * r["writes_per_writer"] and r["errors"] == 0, r
        assert 0 < r["p50_us"] <= r["p99_us"] <= r["p999_us"], r
        assert 1 <= r["physical_commits"] <= r["ops"] and r["data_files"] >= 1, r
        if r["committer"] == "off":
            assert r["physical_commits"] == r["ops"], r

    report = (tmp_path / "BENCHMARKS.md").read_text()
    assert "## Coalesce" in report and "skade-embedded (a commit per write)" in report
    targets = [line for line in report.split("## Targets", 1)[1].split("\n## ", 1)[0].splitlines()
               if line.startswith("| Coalesce:")]
    assert len(targets) == 3, targets
    # The per-write ratio is measurable here; the PyIceberg and same-table ratios need other targets.
    assert "pass" in targets[0] or "fail" in targets[0]
    assert "not measured" in targets[1] and "not measured" in targets[2]


def test_smoke_history_run_fills_the_history_section(bin_dir, tmp_path):
    """`make bench`'s history target (bench/rest/history_bench.cc) in smoke mode: every scenario on
    both tables, and the report's two ratios and the commit floor computed from them."""
    results = run_bench(bin_dir, tmp_path, "history-test", BENCH_SMOKE="1", BENCH_TARGETS="history")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert not [r for r in records if "error" in r]
    measured = {(r["target"], r["scenario"], r["variant"]) for r in records}
    for scenario in ("history_commit", "history_load_refs", "history_load_all", "history_write",
                     "history_write_fsync"):
        for variant in ("snapshots_10", "snapshots_300"):
            assert ("skade-rest-history", scenario, variant) in measured
    report = (tmp_path / "BENCHMARKS.md").read_text()
    section = report.split("## History length", 1)[1].split("\n## ", 1)[0]
    assert "`set-properties` commit p50, 300 ÷ 10 snapshots" in section
    assert "`loadTable?snapshots=refs` p50, 300 ÷ 10 snapshots" in section
    assert "commit floor" in section
    assert "### `history_commit`" not in report


def test_smoke_time_travel_run_fills_the_time_travel_section(bin_dir, tmp_path):
    """`make bench`'s time-travel target in smoke mode (skade only; the peers are skipped): a real
    commit log populated, every scenario measured with the commit-log index and from the live store
    only (the driver checks every answer), and the report's issue-13 section rendered."""
    results = run_bench(bin_dir, tmp_path, "time-travel-test", BENCH_SMOKE="1",
                        BENCH_TARGETS="time-travel")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert not [r for r in records if "error" in r], records
    measured = {(r["scenario"], r.get("variant", "")) for r in records}
    assert any(scenario == "populate_history" for scenario, _ in measured), measured
    for scenario in ("load_table_at_snapshot", "resolve_snapshot", "batch_load_planning"):
        variants = {variant for s, variant in measured if s == scenario}
        assert len(variants) == 2, (scenario, variants)  # with the index, live store only
    for r in records:
        if r["scenario"] != "populate_history":
            assert r["ops"] > 0 and 0 < r["p50_us"] <= r["p99_us"], r
    report = (tmp_path / "BENCHMARKS.md").read_text()
    section = report.split("## Time travel (issue 13 targets)", 1)[1].split("\n## ", 1)[0]
    assert "load_table_at_snapshot" in section and "batch_load_planning" in section


def test_quick_ingest_run_fills_the_ingest_section(bin_dir, tmp_path):
    """`make bench`'s ingest target at quick sizes: every scenario measured, for skade, the raw encoder
    and PyIceberg, and BENCHMARKS.md computes every ratio from them (whatever the numbers are)."""
    run_bench(bin_dir, tmp_path, "ingest-test", BENCH_QUICK="1", BENCH_TARGETS="ingest")
    path = tmp_path / "results" / "ingest-test.ingest.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert not [r for r in records if "error" in r]
    assert all(r["run_id"] == "ingest-test" and r["rows_per_sec"] > 0 for r in records)
    measured = {(r["target"], r["scenario"], r.get("variant"), r.get("durability"),
                 r.get("commit_latency_ms", 0)) for r in records}
    for latency in (0, 5, 20):
        for variant in ("serial", "overlap"):
            assert ("skade-embedded", "ingest_commit_bound", variant, "immediate", latency) in measured
    assert ("skade-embedded", "ingest_commit_bound", "overlap", "none", 0) in measured
    for key in (("arrow-parquet", "ingest_raw_encode"), ("skade-embedded", "ingest_pipelined"),
                ("skade-embedded", "ingest_pipelined_overlap"), ("pyiceberg-sql", "ingest_append"),
                ("pyiceberg-sql", "ingest_commit_bound"), ("skade-cli", "ingest_cli_file"),
                ("pyiceberg-sql", "ingest_cli_file"), ("arrow-parquet", "ingest_cli_file")):
        assert key in {m[:2] for m in measured}, key

    report = (tmp_path / "BENCHMARKS.md").read_text()
    section = report.split("## Ingest", 1)[1].split("\n## ", 1)[0]
    ratios = [line for line in section.splitlines() if "÷" in line]
    # 12 ratios of the library pipelines, 2 of the end-to-end `skade ingest` shape.
    assert len(ratios) == 14, ratios
    assert not [line for line in ratios if "n/a" in line]
    assert sum(("pass" in line) or ("fail" in line) for line in ratios) == 11


def test_smoke_object_storage_run_fills_the_object_storage_section(bin_dir, tmp_path):
    """Issue 14's targets in smoke mode: skade serve on an s3:// warehouse in MinIO (every scenario,
    the writer's appends writing their manifests to s3://), and ingest into MinIO, `skade ingest`
    against PyIceberg, on loopback and (as root, with iproute2) behind the delayed link; the report's
    object-storage section computes every ratio it has records for."""
    if not (ROOT / ".deps" / "bin" / "minio").exists():
        pytest.skip("MinIO is not built (scripts/minio.sh install)")
    delayed = os.geteuid() == 0 and shutil.which("ip") is not None
    results = run_bench(bin_dir, tmp_path, "s3-test", BENCH_SMOKE="1",
                        BENCH_TARGETS="skade-rest-s3,s3-ingest",
                        BENCH_S3_LATENCY_MS="5" if delayed else "0")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert not [r for r in records if "error" in r], [r for r in records if "error" in r]
    assert SCENARIOS <= {r["scenario"] for r in records if r["target"] == "skade-rest-s3"}
    commits = [r for r in records if r["scenario"] == "commit"]
    assert commits and all(r["ops"] > 0 and "s3: skade's S3FileIO" in r["notes"] for r in commits)

    ingest = [json.loads(line) for line in
              results.with_name("s3-test.s3-ingest.jsonl").read_text().splitlines()]
    assert not [r for r in ingest if "error" in r], [r for r in ingest if "error" in r]
    measured = {(r["target"], r["scenario"], r.get("variant", ""), r["added_latency_ms"])
                for r in ingest}
    for latency in (0, 5) if delayed else (0,):
        for key in (("skade-cli", "s3_ingest", "serial"), ("skade-cli", "s3_ingest", "overlap"),
                    ("pyiceberg-sql", "s3_ingest", ""),
                    ("skade-cli", "s3_ingest_commit_bound", "serial"),
                    ("skade-cli", "s3_ingest_commit_bound", "overlap"),
                    ("pyiceberg-sql", "s3_ingest_commit_bound", ""),
                    ("skade-cli", "s3_ingest_concurrent", "coalesce"),
                    ("pyiceberg-sql", "s3_ingest_concurrent", "threads")):
            assert key + (latency,) in measured, (key, latency)
    assert all(r["rows_per_sec"] > 0 and r["peak_rss_mb"] > 0 for r in ingest)

    report = (tmp_path / "BENCHMARKS.md").read_text()
    section = report.split("## Object storage (issue 14 targets)", 1)[1].split("\n## ", 1)[0]
    targets = [line for line in section.splitlines() if "| ≥" in line or "| ≤" in line]
    # 4 REST rows; 5 ingest ratios per latency; overlap ÷ serial with latency; memory: the ingest's
    # and the S3 FileIO stream's (not in smoke).
    assert len(targets) == 4 + 5 * (2 if delayed else 1) + 3, targets
    # Nessie (a JVM) is left out of the smoke run: its rows say so.
    assert [line for line in targets if "not measured" in line] == [
        line for line in targets if "Nessie" in line or "multi-GB" in line
        or ("overlap ÷ serial" in line and not delayed)]
    assert all("nessie: not selected" in line for line in targets if "Nessie" in line)


def test_smoke_scan_run_fills_the_read_path_section(bin_dir, tmp_path):
    """bench/scan/scan_bench.py at SF0.01: every peer measured, every target row with a number."""
    results = run_bench(bin_dir, tmp_path, "smoke-scan", BENCH_SMOKE="1", BENCH_TARGETS="scan")
    records = [json.loads(line)
               for line in results.with_name("smoke-scan.scan.jsonl").read_text().splitlines()]
    failures = [r for r in records if "error" in r]
    assert not failures, failures
    peers = {(r["scenario"], r["peer"]) for r in records}
    assert {("full_scan", "skade"), ("full_scan", "arrow_raw"), ("full_scan", "pyiceberg"),
            ("selective_scan", "skade"), ("selective_scan", "duckdb_iceberg_scan"),
            ("selective_scan", "duckdb_rest_skade"), ("planning", "skade_cold"),
            ("planning", "pyiceberg_plan_files"), ("rest_plan", "skade_rest")} <= peers
    full = {r["peer"]: r["rows"] for r in records if r["scenario"] == "full_scan"}
    assert full["skade"] == full["arrow_raw"] == full["pyiceberg"] > 0
    selective = {r["peer"]: r["rows"] for r in records if r["scenario"] == "selective_scan"}
    assert len(set(selective.values())) == 1, selective
    report = (tmp_path / "BENCHMARKS.md").read_text()
    section = report.split("## Read path (issue 15 targets)", 1)[1].split("\n## ", 1)[0]
    assert "not measured" not in section, section
    assert section.count("✅ pass") + section.count("❌ fail") == 5, section


def test_report_rejects_malformed_records(tmp_path):
    results = tmp_path / "bad.jsonl"
    results.write_text(json.dumps({"run_id": "x", "target": "skade-embedded", "scenario": "commit",
                                   "threads": 1, "ops": 3}) + "\n")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "report.py"), str(results),
         "--output", str(tmp_path / "out.md")],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1
    assert "missing ops_per_sec" in proc.stderr
    assert not (tmp_path / "out.md").exists()


def test_static_tree_targets_come_from_the_paired_run(tmp_path):
    """The issue-13 ratios use the interleaved (paired) run when there is one, not the long run."""
    sys.path.insert(0, str(ROOT / "bench"))
    from micro import static_tree_summary

    def run_file(name, ns):
        benchmarks = [
            {"name": f"{family}/keys:1000000/present:{present}{kernel}_median",
             "run_type": "aggregate", "aggregate_name": "median", "repetitions": 9,
             "per_lookup": value * 1e-9}
            for (family, kernel), values in ns.items() for present, value in zip((1, 0), values)
        ]
        path = tmp_path / name
        path.write_text(json.dumps({"context": {}, "benchmarks": benchmarks}))
        return static_tree_summary.load(path)

    tree, batch = ("BM_StaticTreeLowerBound", "/kernel:2"), ("BM_StaticTreeLowerBoundBatch", "/kernel:2")
    lower_bound, hash_map = ("BM_LookupStdLowerBound", ""), ("BM_LookupFlatHashMap", "")
    # The long run: the batched tree loses to the hash map on absent keys; the paired run: it wins.
    long_run = run_file("long.json", {tree: (40, 40), batch: (12, 15), lower_bound: (150, 150),
                                      hash_map: (30, 11)})
    paired = run_file("paired.json", {tree: (60, 62), batch: (10, 10), lower_bound: (155, 165),
                                      hash_map: (33, 13), ("BM_LookupOneRandomRead", ""): (5, 6)})
    alone = "\n".join(static_tree_summary.markdown(long_run))
    assert "| batched lookup vs absl::flat_hash_map | > 1× | 0.73× | **miss** |" in alone
    both = "\n".join(static_tree_summary.markdown(long_run, paired))
    assert "9 repetitions of each structure" in both
    assert "| batched lookup vs absl::flat_hash_map | > 1× | 1.30× | pass |" in both
    assert "| single lookup vs std::lower_bound | ≥ 3× | 2.58× | **miss** |" in both
    # Memory's share of a single lookup is a row of the paired table, not a target.
    assert "| one random read in an array of the keys' size (memory's share) | 5.0 / 6.0 |" in both


def test_history_floor_takes_the_write_the_commit_pays(tmp_path):
    """The history floor adds the unsynced write for a metadata file the store journals, and the
    durable write for one above `journal_max_bytes` (which the commit fsyncs)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import report

    def records(long_bytes):
        p50 = {"history_commit": (1000, 9000), "history_load_refs": (50, 60),
               "history_load_all": (50, 1050), "history_write": (30, 530),
               "history_write_fsync": (400, 4400)}
        return [{"target": "skade-rest-history", "scenario": scenario, "variant": f"snapshots_{n}",
                 "threads": 1, "ops": 10, "p50_us": value, "p99_us": value,
                 "metadata_bytes": size, "journal_max_bytes": 1 << 20}
                for scenario, values in p50.items()
                for n, value, size in zip((10, 10000), values, (4000, long_bytes))]

    def floor_row(long_bytes):
        lines = report.history_lines(report.Run(records(long_bytes)))
        return next(line for line in lines if line.startswith("| commit floor"))

    # Journaled: 1000 + (530 - 30) + (1050 - 50) = 2500 µs → 2.50×.
    assert "(unsynced, journaled, as the commit does)" in floor_row(900_000)
    assert "| 2.50× |" in floor_row(900_000)
    # Fsynced: 1000 + (4400 - 30) + (1050 - 50) = 6370 µs → 6.37×.
    assert "(made durable, as the commit does)" in floor_row(3_000_000)
    assert "| 6.37× |" in floor_row(3_000_000)
