#!/usr/bin/env bash
# Runs each libFuzzer target for a bounded time on a scratch copy of its seed
# corpus; fails on the first crash. Usage: scripts/fuzz.sh BIN_DIR SECONDS
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$1 seconds=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for pair in metadata_json_fuzz:metadata manifest_fuzz:manifest rest_request_fuzz:rest \
  expression_fuzz:expression copy_delta_fuzz:copy_delta; do
  target=${pair%%:*} seeds=tests/fuzz/corpus/${pair##*:}
  mkdir -p "$work/$target"
  cp -r "$seeds"/. "$work/$target"/
  echo "fuzz: $target for ${seconds}s"
  if "$bin/$target" -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$work/" "$work/$target" > "$work/$target.log" 2>&1; then
    grep -E "^stat::number_of_executed_units" "$work/$target.log"
  else
    grep -A40 -E "==[0-9]+==ERROR|deadly signal" "$work/$target.log" | head -60
    # Keep the input (the scratch directory goes away) and print it, so a
    # crash seen only in CI can be replayed: $bin/$target FILE.
    mkdir -p "$bin/../fuzz-crashes"
    for input in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [[ -e $input ]] || continue
      cp "$input" "$bin/../fuzz-crashes/$target-${input##*/}"
      echo "fuzz: kept $bin/../fuzz-crashes/$target-${input##*/}; base64 of the input:"
      base64 -w0 "$input" | head -c 20000
      echo
    done
    status=1
  fi
done
((status == 0)) && echo "fuzz: no crashes"
exit $status
