"""The static-index micro benchmark (bench/micro/static_tree_benchmark.cc) as a BENCHMARKS.md section.

scripts/bench.sh runs `skade_micro_bench --benchmark_filter='StaticTree|Lookup'` with JSON output
(`<run_id>.static-tree.json`, median of repetitions); this turns it into ns per lookup per structure
and key count. The issue-13 targets (ratios at 10^6 keys) come from a second, paired run
(`<run_id>.static-tree-paired.json`) when there is one: only the structures the targets compare, their
repetitions in random order (Google Benchmark's random interleaving), so that both sides of a ratio
share the machine's quiet and noisy moments instead of running minutes apart.
"""

import json
import pathlib
import re

# Benchmark family -> the row it is reported as.
STRUCTURES = [
    ("BM_StaticTreeLowerBoundBatch", "StaticTree, batched (1,024 per call)"),
    ("BM_StaticTreeLowerBound", "StaticTree, one at a time"),
    ("BM_LookupStdLowerBound", "std::lower_bound (same sorted array)"),
    ("BM_LookupFlatHashMap", "absl::flat_hash_map::find"),
    ("BM_LookupBtreeMap", "absl::btree_map::find"),
    ("BM_LookupLmdbCursor", "LMDB cursor (MDB_SET_RANGE)"),
    # Not a structure: what memory alone costs a lookup that reads one random line of an array the
    # keys' size, independent reads as the single lookups are (the rest of a lookup is its code and
    # the chain of levels each waiting for the one above).
    ("BM_LookupOneRandomRead", "one random read in an array of the keys' size (memory's share)"),
]
NAME = re.compile(r"^(BM_\w+)/keys:(\d+)(?:/present:(\d))?(?:/kernel:(\d))?")


def load(path: pathlib.Path) -> dict:
    """{(family, keys, present, kernel): median record} of one JSON run."""
    data = json.loads(path.read_text())
    medians = {}
    for bench in data.get("benchmarks", []):
        aggregate = bench.get("aggregate_name")
        if bench.get("run_type") == "aggregate" and aggregate != "median":
            continue
        match = NAME.match(bench["name"])
        if not match:
            continue
        family, keys, present, kernel = match.groups()
        key = (family, int(keys), None if present is None else int(present),
               None if kernel is None else int(kernel))
        # A median, when there are repetitions, replaces the single runs.
        if aggregate == "median" or key not in medians:
            medians[key] = bench
    return {"medians": medians, "context": data.get("context", {})}


def per_lookup_ns(run: dict, family: str, keys: int, present: int):
    """The best kernel's ns per lookup (StaticTree runs once per rank kernel)."""
    values = [bench["per_lookup"] * 1e9 for (f, k, p, _), bench in run["medians"].items()
              if f == family and k == keys and p == present and "per_lookup" in bench]
    return min(values) if values else None


def build_rate(run: dict, keys: int):
    for (family, k, _, _), bench in run["medians"].items():
        if family == "BM_StaticTreeBuild" and k == keys:
            return bench.get("items_per_second")
    return None


def fmt_ns(value) -> str:
    return "—" if value is None else (f"{value:.1f}" if value < 100 else f"{value:.0f}")


def markdown(run: dict, paired: dict = None) -> list:
    sizes = sorted({k for (_, k, _, _) in run["medians"]})
    lines = ["ns per lookup, present / absent keys (random 64-bit keys, sorted); the best rank kernel "
             "of this CPU for StaticTree. Median of repetitions, one process.", ""]
    lines.append("| structure | " + " | ".join(f"{k:,} keys" for k in sizes) + " |")
    lines.append("|---|" + "---|" * len(sizes))
    for family, title in STRUCTURES:
        cells = []
        for k in sizes:
            present = per_lookup_ns(run, family, k, 1)
            absent = per_lookup_ns(run, family, k, 0)
            cells.append(f"{fmt_ns(present)} / {fmt_ns(absent)}")
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    rates = [build_rate(run, k) for k in sizes]
    lines.append("| StaticTree build (M keys/s) | " +
                 " | ".join("—" if r is None else f"{r / 1e6:,.0f}" for r in rates) + " |")
    targets = paired or run
    if paired:
        repetitions = next((b["repetitions"] for b in paired["medians"].values()
                            if "repetitions" in b), "several")
        lines += ["", f"The targets below come from the paired run: {repetitions} repetitions of each "
                  "structure at 10^6 keys in random order, medians (ns per lookup, present / absent):",
                  "", "| structure | 1,000,000 keys |", "|---|---|"]
        for family, title in STRUCTURES:
            present = per_lookup_ns(paired, family, 1_000_000, 1)
            absent = per_lookup_ns(paired, family, 1_000_000, 0)
            if present is not None or absent is not None:
                lines.append(f"| {title} | {fmt_ns(present)} / {fmt_ns(absent)} |")
    lines += ["", "| target (10^6 keys) | required | measured | |", "|---|---|---|---|"]

    def ratio(family_a, family_b, keys=1_000_000):
        a = [per_lookup_ns(targets, family_a, keys, p) for p in (1, 0)]
        b = [per_lookup_ns(targets, family_b, keys, p) for p in (1, 0)]
        if None in a or None in b:
            return None
        return min(b[0] / a[0], b[1] / a[1])  # the worse of present and absent

    def row(title, required, value, threshold, unit="×"):
        if value is None:
            lines.append(f"| {title} | {required} | not measured | — |")
            return
        verdict = "pass" if value >= threshold else "**miss**"
        lines.append(f"| {title} | {required} | {value:,.2f}{unit} | {verdict} |")

    row("batched lookup vs std::lower_bound", "≥ 10×",
        ratio("BM_StaticTreeLowerBoundBatch", "BM_LookupStdLowerBound"), 10)
    row("batched lookup vs absl::flat_hash_map", "> 1×",
        ratio("BM_StaticTreeLowerBoundBatch", "BM_LookupFlatHashMap"), 1.0000001)
    row("single lookup vs std::lower_bound", "≥ 3×",
        ratio("BM_StaticTreeLowerBound", "BM_LookupStdLowerBound"), 3)
    rate = build_rate(run, 1_000_000)
    row("index build", "≥ 50 M keys/s", None if rate is None else rate / 1e6, 50, " M keys/s")
    lines.append("")
    lines.append("Ratios take the worse of present and absent keys. The seed's anchor: about 10 ns per "
                 "batched lookup at 10^6 keys on one core.")
    return lines
