#!/usr/bin/env bash
# Self-check of the RCK runner: starts a fresh Iceberg REST fixture on a free loopback port with a
# temporary warehouse, runs tests/rck/run-rck.sh against it, stops the fixture, removes the warehouse.
# Prints run-rck.sh's output (ending "RCK: N passed, N failed, N skipped") and exits with its status.
# Expected with Iceberg 1.10.1: 140 passed, 1 failed (tableCreationWithoutNamespace: the fixture's
# JdbcCatalog creates tables in missing namespaces, and we run with rck.requires-namespace-create=true),
# 8 skipped (assumptions: empty/nested namespaces, names with dots).
set -euo pipefail
cd "$(dirname "$0")/../.."

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
warehouse=$(mktemp -d "${TMPDIR:-/tmp}/skade-rck-fixture.XXXXXX")
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

pid=$(REST_FIXTURE_LOG=${REST_FIXTURE_LOG:-.deps/logs/rck-fixture.log} \
  bench/peers/start-rest-fixture.sh "$port" "$warehouse")
tests/rck/run-rck.sh "http://127.0.0.1:$port/" "file:$warehouse"
