#!/usr/bin/env bash
# The ingest benchmark (issue 4 §7) in one run: skade_ingest_bench (raw
# all-core Parquet encode, IngestPipelined, IngestPipelinedOverlap, and the
# commit-bound serial-vs-overlap runs at 0/5/20 ms) and its PyIceberg peer
# on the same generated data, under one run id; then the ratios.
#
# Then the end-to-end shape (cli_file.py): `skade ingest` of one Parquet file
# on disk vs PyIceberg reading and appending it.
#
# Usage: bench/ingest/run.sh [BUILD_DIR] [skade_ingest_bench options…]
# Environment: FILES, ROWS (per file), FPC (files per commit), REPS, RUN_ID,
# CLI_ROWS (rows of the end-to-end file; 0 skips it),
# DURABILITY (immediate | eventual | none; PyIceberg fsyncs no table file),
# OUT (default bench/results/ingest.jsonl), PYTHON (default .venv).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
RUN_ID=${RUN_ID:-ingest-$(date -u +%Y%m%dT%H%M%SZ)}
OUT=${OUT:-$ROOT/bench/results/ingest.jsonl}
FILES=${FILES:-40}
ROWS=${ROWS:-100000}
FPC=${FPC:-4}
REPS=${REPS:-3}
DURABILITY=${DURABILITY:-immediate}
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$(dirname "$OUT")"

"$BUILD/bin/skade_ingest_bench" --run-id "$RUN_ID" --out "$OUT" --warehouse "$SCRATCH/warehouse" \
  --files "$FILES" --rows-per-file "$ROWS" --files-per-commit "$FPC" --reps "$REPS" \
  --durability "$DURABILITY" \
  --dump-data "$SCRATCH/data.parquet" --dump-commit-bound-data "$SCRATCH/small.parquet" "$@"
# PyIceberg fsyncs no file: the commit-bound shape once more at its durability.
if [[ $DURABILITY != none ]]; then
  "$BUILD/bin/skade_ingest_bench" --run-id "$RUN_ID" --out "$OUT" --warehouse "$SCRATCH/warehouse" \
    --reps "$REPS" --durability none --scenarios commit_bound --latencies-ms 0 "$@"
fi
"$PYTHON" "$ROOT/bench/ingest/pyiceberg_append.py" --data "$SCRATCH/data.parquet" \
  --files "$FILES" --files-per-commit "$FPC" --reps "$REPS" --run-id "$RUN_ID" --out "$OUT"
"$PYTHON" "$ROOT/bench/ingest/pyiceberg_append.py" --data "$SCRATCH/small.parquet" \
  --scenario ingest_commit_bound --files 40 --files-per-commit "$FPC" --reps "$REPS" \
  --run-id "$RUN_ID" --out "$OUT"
CLI_ROWS=${CLI_ROWS:-4000000}
if [[ $CLI_ROWS != 0 ]]; then
  "$PYTHON" "$ROOT/bench/ingest/cli_file.py" --skade "$BUILD/bin/skade" --rows "$CLI_ROWS" \
    --reps "$REPS" --durability "$DURABILITY" --run-id "$RUN_ID" --out "$OUT"
fi
"$PYTHON" "$ROOT/bench/ingest/summarize.py" --run-id "$RUN_ID" "$OUT"
