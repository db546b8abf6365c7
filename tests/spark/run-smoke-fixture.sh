#!/usr/bin/env bash
# Runs tests/spark/smoke.py against a fresh Iceberg REST fixture (free loopback port, temporary
# warehouse), then stops the fixture. PYTHON selects the interpreter that has pyspark
# (default .venv/bin/python). Ends with "SPARK SMOKE: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-.venv/bin/python}

scripts/fetch-jars.sh fixture spark
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
warehouse=$(mktemp -d "${TMPDIR:-/tmp}/skade-spark-fixture.XXXXXX")
pid=""
cleanup() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$warehouse"
}
trap cleanup EXIT

pid=$(REST_FIXTURE_LOG=${REST_FIXTURE_LOG:-.deps/logs/spark-fixture.log} \
  bench/peers/start-rest-fixture.sh "$port" "$warehouse")
"$python" tests/spark/smoke.py --uri "http://127.0.0.1:$port" --warehouse "file:$warehouse"
