#!/usr/bin/env bash
# MinIO, the S3-compatible object store that skade's S3 tests and benchmarks run against, built from
# source with `go install` at a pinned version into .deps/bin/minio (MinIO publishes no semver tags
# its module proxy serves, so the pin is the pseudo-version `@latest` resolved to).
#
# Usage:
#   scripts/minio.sh install                   build .deps/bin/minio unless it is there at the pin
#                                              (quiet when it is; ~7 min on 2 cores when it is not)
#   scripts/minio.sh start DATA_DIR PORT       start `minio server DATA_DIR` on 127.0.0.1:PORT (or
#                                              MINIO_HOST:PORT) in the background, wait until it is
#                                              live, print its PID
#   scripts/minio.sh stop PID                  SIGTERM, then SIGKILL after 10 s
#   scripts/minio.sh bucket ENDPOINT NAME      create bucket NAME at ENDPOINT (http://127.0.0.1:PORT)
# Environment:
#   MINIO_ROOT_USER, MINIO_ROOT_PASSWORD   start: the root credentials (default skade-test /
#                                          skade-test-secret; MinIO wants a password of 8+ chars)
#   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY   bucket: the credentials (default: the MINIO_ROOT_* ones)
#   MINIO_LOG        start: the log file (default DATA_DIR/../minio-PORT.log)
#   MINIO_TIMEOUT    start: seconds to wait for /minio/health/live (default 60)
#   MINIO_HOST       start: the address to listen on (default 127.0.0.1; the benchmarks' delayed
#                    link gives MinIO an address of its own in a network namespace)
#   GO               the Go toolchain (default: `go` on PATH, else /usr/local/go/bin/go)
# The server is bound to loopback (or MINIO_HOST) only and never phones home (no update check, no
# console).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

MINIO_MODULE=github.com/minio/minio
# `go install github.com/minio/minio@latest` on 2026-12-02 (commit 7aac2a2c5b7c of 2026-02-12).
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_BIN=$root/.deps/bin/minio
DEFAULT_USER=skade-test
DEFAULT_PASSWORD=skade-test-secret

die() { echo "minio.sh: $*" >&2; exit 1; }

find_go() {
  if [[ -n ${GO:-} ]]; then
    [[ -x $GO ]] || die "GO=$GO is not executable"
  elif command -v go >/dev/null 2>&1; then
    GO=$(command -v go)
  elif [[ -x /usr/local/go/bin/go ]]; then
    GO=/usr/local/go/bin/go
  else
    die "Go is needed to build MinIO ($MINIO_MODULE@$MINIO_VERSION) and was not found (not on PATH," \
      "not /usr/local/go/bin/go); install Go from https://go.dev/dl/ or set GO=/path/to/go"
  fi
}

# The module version the binary was built from, as `go version -m` reads its build info.
built_version() {
  "$GO" version -m "$MINIO_BIN" 2>/dev/null | awk -v m="$MINIO_MODULE" '$1 == "mod" && $2 == m { print $3 }'
}

cmd_install() {
  find_go
  if [[ -x $MINIO_BIN && $(built_version) == "$MINIO_VERSION" ]]; then
    return 0
  fi
  echo "minio.sh: building $MINIO_MODULE@$MINIO_VERSION into $MINIO_BIN (takes minutes)" >&2
  mkdir -p "$(dirname "$MINIO_BIN")"
  local out rc=0
  out=$(mktemp)
  GOBIN=$(dirname "$MINIO_BIN") GOFLAGS=-trimpath "$GO" install "$MINIO_MODULE@$MINIO_VERSION" \
    >"$out" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -n 30 "$out" >&2
    rm -f "$out"
    die "go install $MINIO_MODULE@$MINIO_VERSION failed (exit $rc)"
  fi
  rm -f "$out"
  [[ $(built_version) == "$MINIO_VERSION" ]] || die "$MINIO_BIN does not report $MINIO_VERSION after go install"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_start() {
  [[ $# -eq 2 ]] || die "usage: $0 start DATA_DIR PORT"
  local data=$1 port=$2 host=${MINIO_HOST:-127.0.0.1}
  [[ -x $MINIO_BIN ]] || die "$MINIO_BIN is missing: run scripts/minio.sh install"
  if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    die "$host:$port is already in use"
  fi
  mkdir -p "$data"
  data=$(cd "$data" && pwd)
  local log=${MINIO_LOG:-$(dirname "$data")/minio-$port.log}
  local timeout=${MINIO_TIMEOUT:-60} console
  console=$(free_port)
  mkdir -p "$(dirname "$log")"
  MINIO_ROOT_USER=${MINIO_ROOT_USER:-$DEFAULT_USER} \
    MINIO_ROOT_PASSWORD=${MINIO_ROOT_PASSWORD:-$DEFAULT_PASSWORD} \
    MINIO_UPDATE=off MINIO_BROWSER=off MINIO_CALLHOME_ENABLE=off \
    setsid "$MINIO_BIN" server "$data" --address "$host:$port" \
    --console-address "127.0.0.1:$console" --quiet </dev/null >"$log" 2>&1 &
  local pid=$!
  local deadline=$((SECONDS + timeout))
  until [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
      "http://$host:$port/minio/health/live" 2>/dev/null) == 200 ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "minio.sh: minio exited during start-up; last lines of $log:" >&2
      tail -n 30 "$log" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "minio.sh: no 200 from http://$host:$port/minio/health/live after ${timeout}s;" \
        "killing $pid; last lines of $log:" >&2
      kill "$pid" 2>/dev/null || true
      tail -n 30 "$log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "$pid"
}

cmd_stop() {
  [[ $# -eq 1 ]] || die "usage: $0 stop PID"
  local pid=$1 i
  kill "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

cmd_bucket() {
  [[ $# -eq 2 ]] || die "usage: $0 bucket ENDPOINT NAME"
  local python=$root/.venv/bin/python
  [[ -x $python ]] || die "$python is missing: run scripts/setup.sh"
  AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-${MINIO_ROOT_USER:-$DEFAULT_USER}} \
    AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-${MINIO_ROOT_PASSWORD:-$DEFAULT_PASSWORD}} \
    "$python" - "$1" "$2" <<'PY'
import os, sys
from urllib.parse import urlparse

import pyarrow.fs

endpoint, name = sys.argv[1], sys.argv[2]
url = urlparse(endpoint)
if url.scheme not in ("http", "https") or not url.netloc:
    sys.exit(f"minio.sh: expected http://HOST:PORT, got {endpoint}")
fs = pyarrow.fs.S3FileSystem(
    endpoint_override=url.netloc, scheme=url.scheme, region=os.environ.get("AWS_REGION", "us-east-1"),
    access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
    allow_bucket_creation=True)
fs.create_dir(name)
PY
}

[[ $# -ge 1 ]] || die "usage: $0 install | start DATA_DIR PORT | stop PID | bucket ENDPOINT NAME"
command=$1
shift
case $command in
  install) cmd_install "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  bucket) cmd_bucket "$@" ;;
  *) die "usage: $0 install | start DATA_DIR PORT | stop PID | bucket ENDPOINT NAME" ;;
esac
