#!/usr/bin/env bash
# `make bench`: every benchmark target of bench/README.md in one run with one run id, on this machine.
# Installs and starts the peers itself, writes JSON lines to bench/results/<run_id>.jsonl (plus
# <run_id>.meta.json) and regenerates BENCHMARKS.md from them. A target that cannot be obtained or
# fails is recorded as such (scenario "unavailable" or "harness_error"), never silently dropped.
#
# Usage: scripts/bench.sh [BUILD_DIR]      (default: build; expects bin/skade and the bench tools)
# Environment:
#   BENCH_QUICK=1        a small catalog and short scenarios (a few minutes in all)
#   BENCH_SMOKE=1        a tiny catalog and a few hundred ops (for tests/interop/test_bench_smoke.py)
#   BENCH_TARGETS        comma-separated subset of: skade-embedded, skade-rest, pyiceberg-sql,
#                        iceberg-rest-fixture, nessie, skade-rest-s3, iceberg-rust, history,
#                        time-travel, static-tree, ingest, coalesce, s3-ingest, scan (default: all)
#   BENCH_THREADS        N of the multi-threaded scenarios (default: cores, at least 2)
#   BENCH_TABLES, BENCH_OPS, BENCH_COMMIT_OPS, BENCH_SECONDS, BENCH_WARMUP   override the mode's sizes
#   BENCH_RUN_ID         default: UTC time + git commit
#   BENCH_RESULTS_DIR    default: bench/results
#   BENCH_REPORT         default: BENCHMARKS.md (where the report is written)
#   BENCH_PYTHON         Python with PyIceberg (default: .venv/bin/python)
#   BENCH_COALESCE_WRITERS  the coalesce scenario's many-writer count (full 1,000, quick 200)
#   BENCH_HISTORY_COMMITS   commits in the time-travel catalog's log (full 1,000,000, quick 20,000)
#   BENCH_HISTORY_TABLES    tables they are spread over (full 1,000, quick 100)
#   BENCH_PYICEBERG_HISTORY_SECONDS  PyIceberg's time budget to populate its history (full 240, quick 30)
#   BENCH_S3_LATENCY_MS  the latency added in front of MinIO for the second s3-ingest pass (default 5;
#                        0 skips that pass)
#   BENCH_KEEP=1         keep the warehouses and logs under .deps/bench/<run_id>/
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$(cd "${1:-build}" && pwd)
bin=$build/bin

# history_*: the history-length benchmark (bench_history): table sizes in snapshots, timed commits and
# loads per table and round. tt_*: the time-travel benchmark (bench_time_travel): commits in the log,
# tables, PyIceberg's population budget in seconds, timed ops and the time bound of one scenario.
if [[ ${BENCH_SMOKE:-0} == 1 ]]; then
  mode=smoke tables=20 per_ns=10 ops=300 commit_ops=20 seconds=0.5 warmup=5 target_timeout=300
  history_snapshots=10,300 history_commit_ops=5 history_ops=20
  tt_commits=2000 tt_tables=20 tt_py_seconds=5 tt_ops=300 tt_seconds=2
elif [[ ${BENCH_QUICK:-0} == 1 ]]; then
  mode=quick tables=500 per_ns=100 ops=100000 commit_ops=200 seconds=1.5 warmup=100 target_timeout=900
  history_snapshots=10,10000 history_commit_ops=30 history_ops=200
  tt_commits=20000 tt_tables=100 tt_py_seconds=30 tt_ops=20000 tt_seconds=5
else
  mode=full tables=10000 per_ns=100 ops=2000000 commit_ops=2000 seconds=5 warmup=100 target_timeout=3600
  history_snapshots=10,10000 history_commit_ops=100 history_ops=1000
  tt_commits=1000000 tt_tables=1000 tt_py_seconds=240 tt_ops=200000 tt_seconds=20
fi
tt_commits=${BENCH_HISTORY_COMMITS:-$tt_commits} tt_tables=${BENCH_HISTORY_TABLES:-$tt_tables}
tt_py_seconds=${BENCH_PYICEBERG_HISTORY_SECONDS:-$tt_py_seconds}
tables=${BENCH_TABLES:-$tables} ops=${BENCH_OPS:-$ops} commit_ops=${BENCH_COMMIT_OPS:-$commit_ops}
seconds=${BENCH_SECONDS:-$seconds} warmup=${BENCH_WARMUP:-$warmup}
cores=$(nproc)
threads=${BENCH_THREADS:-$((cores > 2 ? cores : 2))}
run_id=${BENCH_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$(git rev-parse --short HEAD 2>/dev/null || echo nogit)}
results_dir=${BENCH_RESULTS_DIR:-bench/results}
report=${BENCH_REPORT:-BENCHMARKS.md}
python=${BENCH_PYTHON:-.venv/bin/python}
targets=${BENCH_TARGETS:-skade-embedded,skade-rest,pyiceberg-sql,iceberg-rest-fixture,nessie,skade-rest-s3,iceberg-rust,history,time-travel,static-tree,ingest,coalesce,s3-ingest,scan}

mkdir -p "$results_dir"
results=$(cd "$results_dir" && pwd)/$run_id.jsonl
work=$root/.deps/bench/$run_id
logs=$work/logs
mkdir -p "$logs"
: >"$results"

log() { echo "bench: $*" >&2; }
wants() { [[ ",$targets," == *",$1,"* ]]; }

# Every process started here is killed on exit, whatever happens; then the network namespaces made
# here are deleted.
pids=() namespaces=()
cleanup() {
  local pid ns
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  for ns in "${namespaces[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
  done
  if [[ ${BENCH_KEEP:-0} != 1 ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stop PID: SIGTERM, then SIGKILL after 30 s; returns once the process is gone (it may not be our
# child: the REST fixture's JVM runs under setsid).
stop() {
  local i
  kill "$1" 2>/dev/null || return 0
  for ((i = 0; i < 300; i++)); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# record_failure TARGET KIND REASON: a line saying why TARGET has no (or not all) numbers.
record_failure() {
  python3 -c 'import json, sys; print(json.dumps({"run_id": sys.argv[1], "target": sys.argv[2],
    "scenario": sys.argv[3], "threads": 0, "ops": 0, "error": sys.argv[4]}))' \
    "$run_id" "$1" "$2" "$3" >>"$results"
  log "$1: $2: $3"
}

# last_lines FILE: the tail of a log, on one line, for a failure record.
last_lines() { tail -n "${2:-5}" "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-600; }

common=(--run-id "$run_id" --tables "$tables" --tables-per-namespace "$per_ns" --threads "$threads"
  --ops "$ops" --commit-ops "$commit_ops" --seconds "$seconds" --warmup "$warmup")

# settle: writes out what a populate phase left dirty in the page cache (metadata files, MinIO's
# objects) before the measured phase, so that the kernel's writeback of it does not take a core from
# the first scenarios. Every in-process driver does the same after populating (bench/README.md).
settle() { sync; }

# run_peer TARGET LOG COMMAND...: runs a driver that prints JSON lines, bounded in time; records a
# failure when it produced nothing or exited non-zero.
run_peer() {
  local target=$1 logfile=$2
  shift 2
  local before after rc=0
  before=$(wc -l <"$results")
  timeout --kill-after=10 "$target_timeout" "$@" >>"$results" 2>"$logfile" || rc=$?
  after=$(wc -l <"$results")
  if ((after == before)); then
    record_failure "$target" unavailable "exited $rc before measuring: $(last_lines "$logfile")"
  elif ((rc != 0)); then
    record_failure "$target" harness_error "exited $rc after $((after - before)) records: $(last_lines "$logfile")"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_skade WAREHOUSE DURABILITY [GLOBAL OPTION...]: starts `skade serve` on a free loopback port
# (the options go before `serve`: --store, --s3-endpoint, …); sets server_pid and server_uri.
start_skade() {
  local warehouse=$1 durability=$2
  shift 2
  local out=$logs/skade-serve-$durability.out word=""
  server_uri=""
  : >"$out"
  "$bin/skade" --warehouse "$warehouse" --durability "$durability" "$@" serve --host 127.0.0.1 \
    --port 0 --quiet >"$out" 2>>"$logs/skade-serve.log" &
  server_pid=$!
  pids+=("$server_pid")
  local i
  for ((i = 0; i < 100; i++)); do
    if read -r word server_uri <"$out" && [[ $word == listening ]]; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}

bench_skade_embedded() {
  run_peer skade-embedded "$logs/skade-embedded.log" \
    "$bin/skade_catalog_bench" "${common[@]}" --warehouse "$work/skade-embedded" --durability immediate
}

# Populates over REST with --durability none (not measured), then restarts the server at
# immediate durability: the measured phase starts with cold caches.
bench_skade_rest() {
  local warehouse=$work/skade-rest
  if ! start_skade "$warehouse" none; then
    record_failure skade-rest unavailable "skade serve did not start: $(last_lines "$logs/skade-serve.log")"
    return
  fi
  if ! "$bin/skade_rest_bench" "${common[@]}" --uri "$server_uri" --target skade-rest \
    --durability none --phase populate \
    2>"$logs/skade-rest-populate.log"; then
    stop "$server_pid"
    record_failure skade-rest unavailable "populate failed: $(last_lines "$logs/skade-rest-populate.log")"
    return
  fi
  stop "$server_pid"
  settle
  if ! start_skade "$warehouse" immediate; then
    record_failure skade-rest unavailable "skade serve did not restart: $(last_lines "$logs/skade-serve.log")"
    return
  fi
  # --rebase-peer: the commit scenarios also on tables with the server-side rebase of appends off.
  run_peer skade-rest "$logs/skade-rest.log" "$bin/skade_rest_bench" "${common[@]}" \
    --uri "$server_uri" --target skade-rest --durability immediate --phase measure --rebase-peer \
    --server-pid "$server_pid"
  stop "$server_pid"
}

# Cost against history length (issue 11 §3): `skade serve` at immediate durability on a fresh
# warehouse, one table per history length; `set-properties` commits and `loadTable?snapshots=refs`
# on each in 3 interleaved rounds, plus the floors (the full load; writing and syncing a file of each
# table's metadata size in the same file system).
bench_history() {
  if ! start_skade "$work/skade-history" immediate; then
    record_failure skade-rest-history unavailable "skade serve did not start: $(last_lines "$logs/skade-serve.log")"
    return
  fi
  mkdir -p "$work/history-scratch"
  run_peer skade-rest-history "$logs/skade-history.log" "$bin/skade_history_bench" \
    --run-id "$run_id" --uri "$server_uri" --durability immediate --snapshots "$history_snapshots" \
    --commit-ops "$history_commit_ops" --ops "$history_ops" --warmup 5 --rounds 3 \
    --scratch "$work/history-scratch"
  stop "$server_pid"
}

# Time travel (issue 13): LoadTableAt of random historical snapshots and ResolveMany of 1,000 keys
# per call over a commit log of tt_commits commits, skade with its commit-log index and from the live
# store only (bench/catalog/time_travel_bench.cc), against PyIceberg's and iceberg-rust's way (load,
# then walk the metadata log; bench/peers/pyiceberg_time_travel.py, bench/peers/iceberg-rust
# --scenario time-travel) on what each can populate in tt_py_seconds. A driver that fails gets a
# record of scenario "time_travel" with the reason.
run_time_travel() {
  local target=$1 logfile=$2
  shift 2
  local before rc=0
  before=$(wc -l <"$results")
  timeout --kill-after=10 "$target_timeout" "$@" >>"$results" 2>"$logfile" || rc=$?
  if ((rc != 0)); then
    record_failure "$target" time_travel "exited $rc after $(($(wc -l <"$results") - before)) records: $(last_lines "$logfile")"
  fi
}

bench_time_travel() {
  log "time-travel: populating $tt_commits commits over $tt_tables tables (progress in $logs/time-travel-skade.log)"
  run_time_travel skade-embedded "$logs/time-travel-skade.log" "$bin/skade_time_travel_bench" \
    --run-id "$run_id" --warehouse "$work/time-travel-skade" --commits "$tt_commits" \
    --tables "$tt_tables" --ops "$tt_ops" --seconds "$tt_seconds" --warmup "$warmup"
  # The warehouse is a few GB at full size: the peers do not need it.
  [[ ${BENCH_KEEP:-0} == 1 ]] || rm -rf "$work/time-travel-skade"
  # The peers need PyIceberg and a cargo build: not in the CI smoke run.
  [[ $mode == smoke ]] && return 0
  if ! "$python" -c 'import pyiceberg.catalog.sql' 2>"$logs/pyiceberg-import.log"; then
    record_failure pyiceberg-sql time_travel "PyIceberg SqlCatalog not importable with $python: $(last_lines "$logs/pyiceberg-import.log")"
  else
    run_time_travel pyiceberg-sql "$logs/time-travel-pyiceberg.log" \
      "$python" bench/peers/pyiceberg_time_travel.py --run-id "$run_id" \
      --warehouse "$work/time-travel-pyiceberg" --commits "$tt_commits" --tables 10 \
      --populate-seconds "$tt_py_seconds" --seconds "$tt_seconds" --warmup 3
  fi
  build_iceberg_rust
  if [[ -n $iceberg_rust_reason ]]; then
    record_failure iceberg-rust-memory time_travel "$iceberg_rust_reason"
  else
    mkdir -p "$work/time-travel-iceberg-rust"
    run_time_travel iceberg-rust-memory "$logs/time-travel-iceberg-rust.log" \
      "$iceberg_rust_exe" --scenario time-travel --catalog memory --run-id "$run_id" \
      --warehouse "$work/time-travel-iceberg-rust" --commits "$tt_commits" --history-tables 10 \
      --populate-seconds "$tt_py_seconds" --ops "$tt_ops" --seconds "$tt_seconds" --warmup 3
  fi
}

# The Iceberg REST fixture (JdbcCatalog on a SQLite file) through the same load generator; it is
# restarted after populating so its measured phase also starts cold (JVM included). With its default
# pool of 2 JDBC connections, concurrent commits fail with SQLITE_BUSY_SNAPSHOT (HTTP 500) and a
# table just created can read as missing (HTTP 404); one connection makes it correct.
bench_rest_fixture() {
  local warehouse=$work/rest-fixture port pid
  port=$(free_port)
  export REST_FIXTURE_LOG=$logs/rest-fixture.log CATALOG_CLIENTS=${CATALOG_CLIENTS:-1}
  if ! pid=$(bench/peers/start-rest-fixture.sh "$port" "$warehouse" 2>"$logs/rest-fixture-start.log"); then
    record_failure iceberg-rest-fixture unavailable "$(last_lines "$logs/rest-fixture-start.log")"
    return
  fi
  pids+=("$pid")
  local rest=(--uri "http://127.0.0.1:$port" --target iceberg-rest-fixture --durability peer-default
    --write-notes "JdbcCatalog on SQLite (WAL, sqlite-jdbc defaults, CATALOG_CLIENTS=$CATALOG_CLIENTS: the default pool of 2 fails concurrent commits with SQLITE_BUSY_SNAPSHOT); metadata files not fsynced")
  if ! "$bin/skade_rest_bench" "${common[@]}" "${rest[@]}" --phase populate \
    2>"$logs/rest-fixture-populate.log"; then
    stop "$pid"
    record_failure iceberg-rest-fixture unavailable "populate failed: $(last_lines "$logs/rest-fixture-populate.log")"
    return
  fi
  stop "$pid"
  settle
  if ! pid=$(bench/peers/start-rest-fixture.sh "$port" "$warehouse" 2>>"$logs/rest-fixture-start.log"); then
    record_failure iceberg-rest-fixture unavailable "restart failed: $(last_lines "$logs/rest-fixture-start.log")"
    return
  fi
  pids+=("$pid")
  run_peer iceberg-rest-fixture "$logs/rest-fixture.bench.log" "$bin/skade_rest_bench" \
    "${common[@]}" "${rest[@]}" --phase measure --server-pid "$pid"
  stop "$pid"
}

# The object store's root credentials, which its clients use too (as AWS_ACCESS_KEY_ID /
# AWS_SECRET_ACCESS_KEY, set here so that AWS credentials in the caller's environment are not used).
s3_access_key=${MINIO_ROOT_USER:-skade-test} s3_secret_key=${MINIO_ROOT_PASSWORD:-skade-test-secret}
# A command prefix (so it also works after `timeout` and run_peer), and the same as a function.
s3_credentials=(env AWS_ACCESS_KEY_ID="$s3_access_key" AWS_SECRET_ACCESS_KEY="$s3_secret_key"
  AWS_REGION=us-east-1)
s3_env() { "${s3_credentials[@]}" "$@"; }

# start_object_store NAME: MinIO (scripts/minio.sh, built by `make setup`) on a free loopback port with
# its data under the run's work directory, and one bucket NAME; sets s3_endpoint, s3_bucket and
# s3_pid, or s3_reason when it cannot be had.
start_object_store() {
  local name=$1 port
  s3_endpoint="" s3_bucket="" s3_pid="" s3_reason=""
  if ! scripts/minio.sh install 2>"$logs/minio-install.log"; then
    s3_reason="MinIO could not be installed: $(last_lines "$logs/minio-install.log")"
    return 0
  fi
  port=$(free_port)
  if ! s3_pid=$(MINIO_ROOT_USER=$s3_access_key MINIO_ROOT_PASSWORD=$s3_secret_key \
      MINIO_LOG=$logs/minio-$name.log scripts/minio.sh start "$work/minio-$name/data" "$port" \
      2>"$logs/minio-$name-start.log"); then
    s3_reason="MinIO did not start: $(last_lines "$logs/minio-$name-start.log")"
    s3_pid=""
    return 0
  fi
  pids+=("$s3_pid")
  s3_endpoint=http://127.0.0.1:$port
  if ! s3_env scripts/minio.sh bucket "$s3_endpoint" "$name" 2>>"$logs/minio-$name-start.log"; then
    s3_reason="creating bucket $name failed: $(last_lines "$logs/minio-$name-start.log")"
    stop "$s3_pid"
    return 0
  fi
  s3_bucket=$name
}

# Project Nessie (bench/peers/start-nessie.sh: the Quarkus server from Maven Central, IN_MEMORY
# version store, warehouse in a MinIO bucket) through the same load generator, at its Iceberg REST
# mount /iceberg. Unlike the other REST peers it is NOT restarted after populating: the in-memory
# store would lose the catalog, so load_table_cold runs on a warm JVM and warm Nessie caches.
# Appends (commit, mixed_90_10) write their manifests to the s3:// table locations Nessie hands out,
# through the load generator's S3 FileIO (--s3-endpoint, s3_env's credentials).
bench_nessie() {
  local port pid version
  version=$(source scripts/jars.env && echo "$NESSIE_VERSION")
  start_object_store nessie
  if [[ -n $s3_reason ]]; then
    record_failure nessie unavailable "$s3_reason"
    return
  fi
  port=$(free_port)
  if ! pid=$(NESSIE_LOG=$logs/nessie.log s3_env bench/peers/start-nessie.sh "$port" "$s3_endpoint" \
      "$s3_bucket" 2>"$logs/nessie-start.log"); then
    record_failure nessie unavailable "$(last_lines "$logs/nessie-start.log")"
    stop "$s3_pid"
    return
  fi
  pids+=("$pid")
  local rest=(--uri "http://127.0.0.1:$port/iceberg" --target nessie --durability peer-default
    --write-notes "Nessie $version, IN_MEMORY version store (its default: the catalog is not durable and is lost on restart); table metadata files written by Nessie to MinIO on this machine (one drive, MinIO's defaults); not restarted after populating")
  if ! "$bin/skade_rest_bench" "${common[@]}" "${rest[@]}" --phase populate \
    2>"$logs/nessie-populate.log"; then
    stop "$pid"
    stop "$s3_pid"
    record_failure nessie unavailable "populate failed: $(last_lines "$logs/nessie-populate.log")"
    return
  fi
  settle
  run_peer nessie "$logs/nessie.bench.log" "${s3_credentials[@]}" "$bin/skade_rest_bench" "${common[@]}" \
    "${rest[@]}" --phase measure --s3-endpoint "$s3_endpoint" --server-pid "$pid"
  stop "$pid"
  stop "$s3_pid"
}

# skade-rest on S3 (issue 14): `skade serve` with an s3:// warehouse in a MinIO bucket of its own (the
# catalog store in a local directory, as --store requires), the MinIO and credentials Nessie uses,
# so that the two are compared on the same storage. As bench_skade_rest: populate at durability
# none, restart at immediate (cold caches), measure; the load generator's appends write their
# manifests to s3:// through its S3 FileIO. No --rebase-peer: Nessie has nothing to compare it to.
bench_skade_rest_s3() {
  # The server and the load generator both need the credentials (start_skade is a function).
  local -x AWS_ACCESS_KEY_ID=$s3_access_key AWS_SECRET_ACCESS_KEY=$s3_secret_key AWS_REGION=us-east-1
  start_object_store skade-rest-s3
  if [[ -n $s3_reason ]]; then
    record_failure skade-rest-s3 unavailable "$s3_reason"
    return
  fi
  local warehouse=s3://$s3_bucket/warehouse
  local storage=(--store "$work/skade-rest-s3-store" --s3-endpoint "$s3_endpoint")
  local rest=(--target skade-rest-s3 --s3-endpoint "$s3_endpoint"
    --write-notes "skade serve on an s3:// warehouse in MinIO on this machine (one drive, MinIO's defaults; metadata and manifests are S3 PUTs, conditional for metadata), catalog store (LMDB) in a local directory")
  if ! start_skade "$warehouse" none "${storage[@]}"; then
    record_failure skade-rest-s3 unavailable "skade serve did not start: $(last_lines "$logs/skade-serve.log")"
    stop "$s3_pid"
    return
  fi
  if ! "$bin/skade_rest_bench" "${common[@]}" --uri "$server_uri" "${rest[@]}" \
    --durability none --phase populate 2>"$logs/skade-rest-s3-populate.log"; then
    stop "$server_pid"
    stop "$s3_pid"
    record_failure skade-rest-s3 unavailable "populate failed: $(last_lines "$logs/skade-rest-s3-populate.log")"
    return
  fi
  stop "$server_pid"
  settle
  if ! start_skade "$warehouse" immediate "${storage[@]}"; then
    record_failure skade-rest-s3 unavailable "skade serve did not restart: $(last_lines "$logs/skade-serve.log")"
    stop "$s3_pid"
    return
  fi
  run_peer skade-rest-s3 "$logs/skade-rest-s3.log" "$bin/skade_rest_bench" "${common[@]}" \
    --uri "$server_uri" "${rest[@]}" --durability immediate --phase measure --server-pid "$server_pid"
  stop "$server_pid"
  stop "$s3_pid"
}

# start_delayed_object_store NAME DELAY_MS: as start_object_store, but MinIO runs in a network
# namespace of its own, reached through bench/s3/delay_line.cc (skade_delay_line), which delays
# every packet into the namespace by DELAY_MS: what `tc qdisc add dev … root netem delay DELAY_MS`
# on the host's end of a veth pair would do, on kernels without netem (this one's has no
# sch_netem and loads no modules). Clients stay in this namespace. Also sets s3_rtt_ms, the
# median TCP connect time to MinIO (one round trip) measured here.
start_delayed_object_store() {
  local name=$1 delay=$2 port line="" i
  s3_endpoint="" s3_bucket="" s3_pid="" s3_reason="" s3_rtt_ms=""
  if ! scripts/minio.sh install 2>"$logs/minio-install.log"; then
    s3_reason="MinIO could not be installed: $(last_lines "$logs/minio-install.log")"
    return 0
  fi
  if [[ ! -x $bin/skade_delay_line ]]; then
    s3_reason="$bin/skade_delay_line is missing (build target skade_delay_line)"
    return 0
  fi
  # Interface names are at most 15 characters; the addresses are a point-to-point pair.
  local ns=skade-bench-$$-$name dev=skd$$ octet=$(($$ % 250 + 1))
  local here=10.250.$octet.1 there=10.250.$octet.2
  if ! ip netns add "$ns" 2>"$logs/netns-$name.log"; then
    s3_reason="ip netns add failed (root and iproute2 needed): $(last_lines "$logs/netns-$name.log")"
    return 0
  fi
  namespaces+=("$ns")
  : >"$logs/delay-line-$name.out"
  "$bin/skade_delay_line" --netns "$ns" --local-device "${dev}a" --remote-device "${dev}b" \
    --delay-ms "$delay" >"$logs/delay-line-$name.out" 2>"$logs/delay-line-$name.log" &
  local line_pid=$!
  pids+=("$line_pid")
  for ((i = 0; i < 50; i++)); do
    read -r line <"$logs/delay-line-$name.out" || true
    [[ $line == ready ]] && break
    kill -0 "$line_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ $line != ready ]] || ! {
    ip addr add "$here" peer "$there" dev "${dev}a" && ip link set "${dev}a" mtu 65000 up &&
      ip netns exec "$ns" ip addr add "$there" peer "$here" dev "${dev}b" &&
      ip netns exec "$ns" ip link set "${dev}b" mtu 65000 up &&
      ip netns exec "$ns" ip link set lo up
  } 2>>"$logs/netns-$name.log"; then
    s3_reason="the delayed link did not come up: $(last_lines "$logs/delay-line-$name.log") $(last_lines "$logs/netns-$name.log")"
    stop "$line_pid"
    return 0
  fi
  port=$(free_port)
  if ! s3_pid=$(MINIO_HOST=$there MINIO_ROOT_USER=$s3_access_key MINIO_ROOT_PASSWORD=$s3_secret_key \
      MINIO_LOG=$logs/minio-$name.log ip netns exec "$ns" scripts/minio.sh start \
      "$work/minio-$name/data" "$port" 2>"$logs/minio-$name-start.log"); then
    s3_reason="MinIO did not start in namespace $ns: $(last_lines "$logs/minio-$name-start.log")"
    s3_pid=""
    stop "$line_pid"
    return 0
  fi
  pids+=("$s3_pid")
  s3_endpoint=http://$there:$port
  if ! s3_env scripts/minio.sh bucket "$s3_endpoint" "$name" 2>>"$logs/minio-$name-start.log"; then
    s3_reason="creating bucket $name failed: $(last_lines "$logs/minio-$name-start.log")"
    stop "$s3_pid"
    stop "$line_pid"
    return 0
  fi
  s3_bucket=$name s3_line_pid=$line_pid
  s3_rtt_ms=$(for ((i = 0; i < 7; i++)); do
    curl -s -o /dev/null -w '%{time_connect}\n' "$s3_endpoint/minio/health/live"
  done | sort -n | sed -n 4p | awk '{printf "%.2f", $1 * 1000}')
}

# Ingest into S3 (issue 14; bench/s3/s3_ingest.py, records in <run_id>.s3-ingest.jsonl): `skade
# ingest` (serial and --overlap; --coalesce with 8 writers) against PyIceberg appending the same data
# to the same MinIO, first on loopback (with the multi-GB memory case), then with MinIO behind
# BENCH_S3_LATENCY_MS of added latency (start_delayed_object_store). A pass that yields no record
# gets one of target s3-ingest saying why.
s3_ingest_out="" s3_ingest_driver=()
record_s3_ingest_failure() {
  python3 -c 'import json, sys; print(json.dumps({"run_id": sys.argv[1], "target": "s3-ingest",
    "scenario": "unavailable", "threads": 0, "ops": 0, "error": sys.argv[2]}))' \
    "$run_id" "$1" >>"$s3_ingest_out"
  log "s3-ingest: $1"
}

# s3_ingest_pass LABEL DRIVER_OPTION...: one run of the driver against s3_endpoint/s3_bucket.
s3_ingest_pass() {
  local label=$1 rc=0 before
  shift
  before=$(wc -l <"$s3_ingest_out")
  timeout --kill-after=10 "$target_timeout" "${s3_credentials[@]}" "$python" \
    "${s3_ingest_driver[@]}" --endpoint "$s3_endpoint" --bucket "$s3_bucket" \
    --work "$work/s3-ingest-$label" "$@" 2>"$logs/s3-ingest-$label.log" || rc=$?
  if (($(wc -l <"$s3_ingest_out") == before)); then
    record_s3_ingest_failure "$label: exited $rc before its records: $(last_lines "$logs/s3-ingest-$label.log")"
  elif ((rc != 0)); then
    log "s3-ingest: $label exited $rc (see $logs/s3-ingest-$label.log)"
  fi
  rm -rf "$work/s3-ingest-$label"
}

bench_s3_ingest() {
  local sizes reps scenarios latency=${BENCH_S3_LATENCY_MS:-5}
  case $mode in
    smoke) sizes=(--bulk-rows 100000 --small-files 8 --concurrent-files 8) reps=1
      scenarios=bulk,commit_bound,concurrent ;;
    quick) sizes=(--bulk-rows 2000000 --small-files 40 --concurrent-files 32
      --memory-rows $((64 << 20)) --memory-baseline-rows $((16 << 20)) --stream-bytes $((1 << 30))) reps=3
      scenarios=bulk,commit_bound,concurrent,memory ;;
    *) sizes=(--bulk-rows 4000000 --small-files 40 --concurrent-files 64
      --memory-rows $((160 << 20)) --memory-baseline-rows $((16 << 20)) --stream-bytes $((4 << 30))) reps=3
      scenarios=bulk,commit_bound,concurrent,memory ;;
  esac
  s3_ingest_out=${results%.jsonl}.s3-ingest.jsonl
  : >"$s3_ingest_out"
  # Inputs are generated once and shared by both passes.
  s3_ingest_driver=(bench/s3/s3_ingest.py --skade "$bin/skade" --python "$python"
    --run-id "$run_id" --out "$s3_ingest_out" --reps "$reps" --data "$work/s3-ingest-data"
    --files-per-commit 4 --writers 8 --small-rows 2000 "${sizes[@]}")
  start_object_store s3-ingest
  if [[ -n $s3_reason ]]; then
    record_s3_ingest_failure "loopback: $s3_reason"
  else
    log "s3-ingest: loopback MinIO ($scenarios; progress in $logs/s3-ingest-loopback.log)"
    s3_ingest_pass loopback --scenarios "$scenarios" --added-latency-ms 0 \
      --storage "MinIO on 127.0.0.1 (one drive)"
    stop "$s3_pid"
  fi
  if ((latency > 0)); then
    start_delayed_object_store s3-ingest-delayed "$latency"
    if [[ -n $s3_reason ]]; then
      record_s3_ingest_failure "delayed: $s3_reason"
    else
      # The memory case runs once, on loopback: latency changes its time, not its bound.
      log "s3-ingest: MinIO behind +$latency ms (connect $s3_rtt_ms ms; progress in $logs/s3-ingest-delayed.log)"
      s3_ingest_pass delayed --scenarios "${scenarios/,memory/}" --added-latency-ms "$latency" \
        --storage "MinIO in a network namespace behind skade_delay_line: +$latency ms on every packet into it (TCP connect measured $s3_rtt_ms ms)"
      stop "$s3_pid"
      stop "$s3_line_pid"
    fi
  fi
  rm -rf "$work/s3-ingest-data"
}

bench_pyiceberg() {
  if ! "$python" -c 'import pyiceberg.catalog.sql' 2>"$logs/pyiceberg-import.log"; then
    record_failure pyiceberg-sql unavailable "PyIceberg SqlCatalog not importable with $python: $(last_lines "$logs/pyiceberg-import.log")"
    return
  fi
  run_peer pyiceberg-sql "$logs/pyiceberg-sql.log" \
    "$python" bench/peers/pyiceberg_bench.py "${common[@]}" --warehouse "$work/pyiceberg"
}

# iceberg-rust from crates.io (versions pinned by bench/peers/iceberg-rust/Cargo.lock), built here
# once per run; sets iceberg_rust_exe, or iceberg_rust_reason when it cannot be had.
iceberg_rust_exe="" iceberg_rust_reason=""
build_iceberg_rust() {
  [[ -n $iceberg_rust_exe || -n $iceberg_rust_reason ]] && return 0
  if ! command -v cargo >/dev/null 2>&1; then
    iceberg_rust_reason="cargo is not installed (https://rustup.rs)"
    return 0
  fi
  log "building bench/peers/iceberg-rust (cargo, first build takes a while)"
  if ! CARGO_TARGET_DIR=$root/.deps/cargo-target cargo build --release --locked -j 2 \
    --manifest-path bench/peers/iceberg-rust/Cargo.toml >"$logs/iceberg-rust-build.log" 2>&1; then
    iceberg_rust_reason="cargo build failed: $(last_lines "$logs/iceberg-rust-build.log" 8)"
    return 0
  fi
  iceberg_rust_exe=$root/.deps/cargo-target/release/skade-bench-iceberg-rust
}

bench_iceberg_rust() {
  build_iceberg_rust
  local catalog
  for catalog in memory sql; do
    if [[ -n $iceberg_rust_reason ]]; then
      record_failure "iceberg-rust-$catalog" unavailable "$iceberg_rust_reason"
      continue
    fi
    run_peer "iceberg-rust-$catalog" "$logs/iceberg-rust-$catalog.log" \
      "$iceberg_rust_exe" "${common[@]}" --catalog "$catalog" --warehouse "$work/iceberg-rust"
  done
}

# The coalesce scenario (bench/README.md): many concurrent small appends, each acknowledged when
# durable, through skade's CoalescingCommitter and without it (a commit per write) with the same
# driver, and the peers' own append of one data file per write. One process and one fresh warehouse
# per case; a case that prints no record gets a failure record of its own.
coalesce_case() {
  local target=$1 variant=$2 writers=$3 committer=$4 logfile=$5
  shift 5
  local before rc=0
  before=$(wc -l <"$results")
  timeout --kill-after=10 "$target_timeout" "$@" >>"$results" 2>>"$logfile" || rc=$?
  if (($(wc -l <"$results") == before)); then
    python3 -c 'import json, sys; print(json.dumps({"run_id": sys.argv[1], "target": sys.argv[2],
      "scenario": "coalesce", "variant": sys.argv[3], "threads": int(sys.argv[4]), "ops": 0,
      "error": sys.argv[6], **({"committer": sys.argv[5]} if sys.argv[5] else {})}))' \
      "$run_id" "$target" "$variant" "$writers" "$committer" \
      "exited $rc before its record: $(last_lines "$logfile")" >>"$results"
  fi
  ((rc == 0)) || log "coalesce: $target $variant $writers writers exited $rc (see $logfile)"
}

# coalesce_variant ROWS TABLES: the record's variant, as the drivers name it ("1_row/10_tables").
coalesce_variant() {
  local rows=$1 tables=$2
  echo "${rows}_row$( ((rows == 1)) || echo s)/${tables}_table$( ((tables == 1)) || echo s)"
}

bench_coalesce() {
  # many: the many-writer count; each makes `small` 1-row writes or one of `large` rows; the
  # 16-writer case makes `sixteen` writes per writer; the peers' loops `loop` writes, their
  # 16-writer case `loop` / 8 per writer.
  local many small large sixteen loop limit
  case $mode in
    smoke) many=8 small=2 large=100 sixteen=2 loop=3 limit=60 ;;
    quick) many=200 small=3 large=10000 sixteen=30 loop=30 limit=60 ;;
    *) many=1000 small=3 large=10000 sixteen=100 loop=200 limit=300 ;;
  esac
  many=${BENCH_COALESCE_WRITERS:-$many}
  local dir=$work/coalesce n=0 committer shape writers per rows tables variant
  # writers writes-per-writer rows tables
  local skade_cases=("$many $small 1 1" "$many $small 1 10" "$many 1 $large 1" "$many 1 $large 10"
    "16 $sixteen 1 1")
  local peer_cases=("1 $loop 1 1" "1 $loop 1 10" "1 $loop $large 1" "1 $loop $large 10"
    "16 $(((loop + 7) / 8)) 1 1")
  for shape in "${skade_cases[@]}"; do
    read -r writers per rows tables <<<"$shape"
    variant=$(coalesce_variant "$rows" "$tables")
    for committer in on off; do
      n=$((n + 1))
      coalesce_case skade-embedded "$variant" "$writers" "$committer" "$logs/coalesce-skade.log" \
        "$bin/skade_coalesce_bench" --run-id "$run_id" \
        --warehouse "$dir/skade-$n" --durability immediate --committer "$committer" \
        --writers "$writers" --writes-per-writer "$per" --rows "$rows" --tables "$tables" \
        --seconds "$limit"
    done
  done
  # The peers need PyIceberg and a cargo build: not in the CI smoke run.
  [[ $mode == smoke ]] && return 0
  local python_ok=1
  "$python" -c 'import pyiceberg.catalog.sql' 2>/dev/null || python_ok=0
  build_iceberg_rust
  [[ -n $iceberg_rust_reason ]] && echo "$iceberg_rust_reason" >"$logs/coalesce-iceberg-rust.log"
  ((python_ok)) || echo "PyIceberg SqlCatalog not importable with $python" >"$logs/coalesce-pyiceberg.log"
  for shape in "${peer_cases[@]}"; do
    read -r writers per rows tables <<<"$shape"
    variant=$(coalesce_variant "$rows" "$tables")
    n=$((n + 1))
    if ((python_ok)); then
      coalesce_case pyiceberg-sql "$variant" "$writers" "" "$logs/coalesce-pyiceberg.log" \
        "$python" bench/peers/pyiceberg_coalesce.py --run-id "$run_id" --warehouse "$dir/py-$n" \
        --threads "$writers" --writes-per-writer "$per" --rows "$rows" --tables "$tables" \
        --seconds "$limit"
    else
      coalesce_case pyiceberg-sql "$variant" "$writers" "" "$logs/coalesce-pyiceberg.log" false
    fi
    if [[ -z $iceberg_rust_reason ]]; then
      coalesce_case iceberg-rust-sql "$variant" "$writers" "" "$logs/coalesce-iceberg-rust.log" \
        "$iceberg_rust_exe" --scenario coalesce --catalog sql \
        --run-id "$run_id" --warehouse "$dir/rust-$n" --writers "$writers" \
        --writes-per-writer "$per" --rows "$rows" --coalesce-tables "$tables" --seconds "$limit"
    else
      coalesce_case iceberg-rust-sql "$variant" "$writers" "" "$logs/coalesce-iceberg-rust.log" false
    fi
  done
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

# Median time to durably create a 4 KiB file (write, fsync, fsync the directory) in the work
# directory, in ms: what a commit at durability=immediate waits for at least once; other processes'
# I/O moves it more than the load average shows.
fsync_ms() {
  python3 -c '
import os, statistics, sys, time
directory = os.path.join(sys.argv[1], "fsync-probe")
os.makedirs(directory, exist_ok=True)
dir_fd = os.open(directory, os.O_RDONLY)
samples = []
for i in range(20):
    began = time.perf_counter()
    fd = os.open(os.path.join(directory, str(i)), os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"x" * 4096)
    os.fsync(fd)
    os.close(fd)
    os.fsync(dir_fd)
    samples.append((time.perf_counter() - began) * 1000)
    os.unlink(os.path.join(directory, str(i)))
os.close(dir_fd)
os.rmdir(directory)
print(f"{statistics.median(samples):.2f}")
' "$work"
}

# Median time to create an empty file (open O_CREAT|O_EXCL, close, no sync) in a new directory of
# the work directory, in µs: the inode allocation every metadata file costs. On ext4 without a
# journal it grows tenfold for minutes after many files were deleted (the allocator steps over each
# recently freed inode), so it says whether the commit rows ran in that state. The files stay until
# the run's cleanup: deleting them would cause what it measures.
create_us() {
  python3 -c '
import os, statistics, sys, tempfile, time
directory = tempfile.mkdtemp(prefix="create-probe-", dir=sys.argv[1])
samples = []
for i in range(500):
    began = time.perf_counter()
    fd = os.open(os.path.join(directory, str(i)), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    samples.append((time.perf_counter() - began) * 1e6)
    os.close(fd)
print(f"{statistics.median(samples):.0f}")
' "$work"
}

# Waits, up to 6 minutes, until a file create costs at most 100 µs (a settled file system; this disk
# takes ~20 µs): a run started just after another run or the test suite deleted their trees would
# otherwise measure that, not the targets.
settle_creates() {
  local i us
  for ((i = 0; i < 12; i++)); do
    us=$(create_us) || return 0
    ((us <= 100)) && return 0
    log "an empty file create takes ${us} us (files were deleted recently): waiting 30 s"
    sleep 30
  done
}

# The work directory's sequential write bandwidth in MB/s: 512 MiB in 1 MiB writes, then
# fdatasync, the best of 3. Every file a commit writes reaches the disk sooner or later, so a
# sustained commit rate is at most this ÷ the bytes each commit writes (report.py's group-commit ceiling).
write_mb_s() {
  python3 -c '
import os, sys, time
path = os.path.join(sys.argv[1], "bandwidth-probe")
chunk = os.urandom(1 << 20)
best = 0.0
for _ in range(3):
    began = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for _ in range(512):
        os.write(fd, chunk)
    os.fdatasync(fd)
    os.close(fd)
    best = max(best, 512 * (1 << 20) / 1e6 / (time.perf_counter() - began))
    os.unlink(path)
print(f"{best:.0f}")
' "$work"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
load_start=$(load)
settle_creates
fsync_start=$(fsync_ms)
create_us_start=$(create_us || true)
write_mb_s_start=$(write_mb_s || true)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
log "run $run_id ($mode: $tables tables, $threads threads, load $load_start, fsync ${fsync_start} ms, create ${create_us_start} us, write ${write_mb_s_start} MB/s) -> $results"

wants skade-embedded && bench_skade_embedded
wants skade-rest && bench_skade_rest
wants pyiceberg-sql && bench_pyiceberg
wants iceberg-rest-fixture && bench_rest_fixture
wants nessie && bench_nessie
wants skade-rest-s3 && bench_skade_rest_s3
wants iceberg-rust && bench_iceberg_rust
wants history && bench_history
wants time-travel && bench_time_travel
wants coalesce && bench_coalesce
# The static search tree against std::lower_bound, hash and B-tree maps and an LMDB cursor (Google
# Benchmark; 10^8 keys in full mode only: ~3 GB and minutes of setup).
if wants static-tree && [[ $mode != smoke ]]; then
  log "static-tree: skade_micro_bench --benchmark_filter='StaticTree|Lookup'"
  large=0
  [[ $mode == full ]] && large=1
  if ! SKADE_BENCH_LARGE=$large "$bin/skade_micro_bench" --benchmark_filter='StaticTree|Lookup' \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_out="${results%.jsonl}.static-tree.json" --benchmark_out_format=json \
      > "$logs/static-tree.log" 2>&1; then
    log "static-tree: failed (see $logs/static-tree.log)"
    rm -f "${results%.jsonl}.static-tree.json"
  fi
  # The targets' ratios at 10^6 keys: the structures they compare, repetitions interleaved in random
  # order so that both sides of a ratio meet the same machine noise.
  log "static-tree: the paired run for the targets (random interleaving)"
  if ! "$bin/skade_micro_bench" \
      --benchmark_filter='(StaticTreeLowerBound|StaticTreeLowerBoundBatch|LookupStdLowerBound|LookupFlatHashMap|LookupOneRandomRead)/keys:1000000/' \
      --benchmark_enable_random_interleaving=true --benchmark_repetitions=9 \
      --benchmark_report_aggregates_only=true \
      --benchmark_out="${results%.jsonl}.static-tree-paired.json" --benchmark_out_format=json \
      > "$logs/static-tree-paired.log" 2>&1; then
    log "static-tree: the paired run failed (see $logs/static-tree-paired.log)"
    rm -f "${results%.jsonl}.static-tree-paired.json"
  fi
fi
# The ingest benchmark (skade vs raw encode vs PyIceberg append), same run id.
if wants ingest && [[ $mode != smoke ]]; then
  log "ingest: bench/ingest/run.sh"
  ingest_sizes=()
  [[ $mode == quick ]] && ingest_sizes=(FILES=16 ROWS=50000 REPS=1 CLI_ROWS=500000)
  if ! env "${ingest_sizes[@]}" RUN_ID="$run_id" OUT="${results%.jsonl}.ingest.jsonl" PYTHON="$python" \
      bench/ingest/run.sh "$build" > "${results%.jsonl}.ingest.log" 2>&1; then
    log "ingest: failed (see ${results%.jsonl}.ingest.log)"
  fi
fi

wants s3-ingest && bench_s3_ingest

# The read path (bench/scan/scan_bench.py): TPC-H lineitem scanned by skade, the raw Arrow read,
# PyIceberg and DuckDB; planning on a table of many data files. Its records go beside the results
# (<run_id>.scan.jsonl); a failure is a record there, never a silent gap.
bench_scan() {
  local sf reps planning_files
  case $mode in
    smoke) sf=0.01 reps=1 planning_files=200 ;;
    quick) sf=0.1 reps=3 planning_files=10000 ;;
    *) sf=1 reps=5 planning_files=10000 ;;
  esac
  scan_out=${results%.jsonl}.scan.jsonl
  : >"$scan_out"
  log "scan: TPC-H SF$sf lineitem and a $planning_files-file planning table (progress in $logs/scan.log)"
  if ! python3 bench/scan/scan_bench.py --bin "$bin" --python "$python" --duckdb "$root/.deps/duckdb-iceberg" \
      --work "$work/scan" --out "$scan_out" --run-id "$run_id" --sf "$sf" --reps "$reps" \
      --planning-files "$planning_files" 2>"$logs/scan.log"; then
    echo "{\"run_id\": \"$run_id\", \"target\": \"scan\", \"scenario\": \"setup\", \"peer\": \"harness\", \"error\": \"scan_bench.py failed: see $logs/scan.log\"}" >>"$scan_out"
  fi
  [[ ${BENCH_KEEP:-0} == 1 ]] || rm -rf "$work/scan"
}
wants scan && bench_scan

# The Python peers' versions, dependencies included (they move PyIceberg's numbers too).
peer_versions() {
  "$python" -c '
import importlib.metadata as m
names = ["pyiceberg", "SQLAlchemy", "pydantic", "pyarrow", "duckdb"]
versions = []
for name in names:
    try:
        versions.append(f"{name} {m.version(name)}")
    except m.PackageNotFoundError:
        pass
print(", ".join(versions))' 2>/dev/null || true
}

# The run's context, for the report: when, where, on which commit, under which load.
META_PEERS=$(peer_versions) META_RUN_ID=$run_id META_MODE=$mode META_STARTED=$started META_FINISHED=$(date -u +%Y-%m-%dT%H:%M:%SZ) \
  META_GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || true) \
  META_GIT_BRANCH=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || true) META_CPU=$cpu META_CORES=$cores \
  META_LOAD_START=$load_start META_LOAD_END=$(load) META_TARGETS=$targets \
  META_FSYNC_MS_START=$fsync_start META_FSYNC_MS_END=$(fsync_ms) META_WRITE_MB_S_START=$write_mb_s_start \
  META_CREATE_US_START=$create_us_start META_CREATE_US_END=$(create_us || true) \
  META_OPTIONS="{\"tables\": $tables, \"tables_per_namespace\": $per_ns, \"threads\": $threads, \"ops\": $ops, \"commit_ops\": $commit_ops, \"seconds\": $seconds, \"warmup\": $warmup}" \
  python3 -c '
import json, os, sys
env = {k[5:].lower(): v for k, v in os.environ.items() if k.startswith("META_")}
env["cores"] = int(env["cores"])
env["options"] = json.loads(env["options"])
with open(sys.argv[1], "w") as out:
    json.dump(env, out, indent=2, sort_keys=True)
' "${results%.jsonl}.meta.json"

python3 bench/report.py "$results" --output "$report"
log "wrote $results and $report"
