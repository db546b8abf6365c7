#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test skade.
# Idempotent: each step checks first and does nothing when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git curl
  liblmdb-dev lmdb-utils libsimdjson-dev libboost-dev libexpected-dev libcli11-dev
  libdeflate-dev libsnappy-dev libroaring-dev libxxhash-dev libabsl-dev liburcu-dev zlib1g-dev libzstd-dev libcurl4-openssl-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev clang-format clang-14 libclang-rt-14-dev
  python3 python3-venv python3-pip
  openjdk-17-jdk-headless maven
  prometheus
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The project venv. Rebuilt when requirements-dev.txt or constraints-dev.txt changes.
if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements-dev.txt constraints-dev.txt | sha256sum | cut -d' ' -f1)
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  echo "setup: installing Python packages into .venv"
  # `python -m pip`, not .venv/bin/pip: the pip script's #! names the path the venv was created at,
  # so in a venv that was moved or copied it installs into the original instead.
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements-dev.txt -c constraints-dev.txt
  echo "$want" > "$stamp"
fi

# DuckDB 1.5.5 with its iceberg, httpfs and avro extensions, apart from .venv's DuckDB 2.0.0
# (requirements-duckdb-iceberg.txt says why). Reinstalled when that file changes.
duckdb_dir=.deps/duckdb-iceberg
want=$(sha256sum requirements-duckdb-iceberg.txt | cut -d' ' -f1)
if [[ ! -f $duckdb_dir/.requirements.sha256 || $(cat "$duckdb_dir/.requirements.sha256") != "$want" ]]; then
  echo "setup: installing DuckDB and its iceberg extension into $duckdb_dir"
  rm -rf "$duckdb_dir"
  .venv/bin/python -m pip install -q --target "$duckdb_dir" -r requirements-duckdb-iceberg.txt
  echo "$want" > "$duckdb_dir/.requirements.sha256"
fi

# MinIO (S3-compatible object store for the S3 tests and benchmarks), built with Go at a pinned
# version into .deps/bin/minio (scripts/minio.sh).
scripts/minio.sh install

# Jars from Maven Central: the Iceberg Spark runtime, the REST Compatibility
# Kit and the Iceberg REST fixture (pins in scripts/jars.env).
scripts/fetch-jars.sh
