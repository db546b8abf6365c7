#!/usr/bin/env bash
# Downloads, with Maven from Maven Central, the Java artifacts skade's conformance tests and JVM
# peers use, into .deps/jars/ (pins in scripts/jars.env):
#   rest-fixture/iceberg-open-api-<v>.jar     the Iceberg REST fixture (runnable, shaded)
#   spark/iceberg-spark-runtime-*.jar         the Iceberg runtime for pyspark (spark.jars)
#   spark/iceberg-aws-bundle-<v>.jar          Iceberg's S3FileIO and AWS SDK, for Spark on S3
#   rck-<v>/*.jar                             the RCK and its whole test classpath (tests/rck/pom.xml)
#   nessie/nessie-quarkus-<v>-runner.jar      Project Nessie's server (a benchmark peer only)
# Idempotent: prints nothing and touches nothing when everything is present.
# Usage: scripts/fetch-jars.sh [fixture|spark|rck|nessie]...
#   (default: fixture spark rck, what `make test` needs; scripts/bench.sh fetches nessie itself)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/jars.env

log() { echo "fetch-jars: $*" >&2; }

need_tools() {
  local missing=()
  command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  if ((${#missing[@]})); then
    log "installing Debian packages: ${missing[*]}"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# Quiet Maven: its output (which carries colour codes even with -q -B) is shown only on failure.
mvn_q() {
  local out rc=0
  out=$(mktemp)
  mvn -q -B -ntp -Dstyle.color=never "$@" >"$out" 2>&1 || rc=$?
  ((rc == 0)) || sed 's/\x1b\[[0-9;]*m//g' "$out" >&2
  rm -f "$out"
  return $rc
}

# copy_artifact G:A:V[:TYPE[:CLASSIFIER]] DEST_FILE
copy_artifact() {
  local coords=$1 dest=$2
  [[ -s $dest ]] && return 0
  need_tools
  log "downloading $coords"
  local dir tmp
  dir=$(dirname "$dest")
  mkdir -p "$dir"
  tmp=$(mktemp -d "$dir/.tmp.XXXXXX")
  if ! mvn_q "$MAVEN_DEPENDENCY_PLUGIN:copy" -Dartifact="$coords" -DoutputDirectory="$PWD/$tmp" \
        -Dmdep.stripVersion=false; then
    rm -rf "$tmp"; log "FAILED: $coords"; return 1
  fi
  mv "$tmp"/*.jar "$dest"
  rm -rf "$tmp"
}

fetch_fixture() {
  copy_artifact "org.apache.iceberg:iceberg-open-api:$ICEBERG_VERSION:jar" "$REST_FIXTURE_JAR"
}

fetch_spark() {
  copy_artifact "org.apache.iceberg:$SPARK_ICEBERG_ARTIFACT:$ICEBERG_VERSION:jar" "$SPARK_ICEBERG_JAR"
  copy_artifact "org.apache.iceberg:$SPARK_AWS_BUNDLE_ARTIFACT:$ICEBERG_VERSION:jar" "$SPARK_AWS_BUNDLE_JAR"
}

fetch_nessie() {
  copy_artifact "org.projectnessie.nessie:nessie-quarkus:$NESSIE_VERSION:jar:runner" "$NESSIE_JAR"
}

fetch_rck() {
  local stamp="$RCK_JARS_DIR/.stamp" want
  want="$(sha256sum tests/rck/pom.xml | cut -d' ' -f1) $RCK_ICEBERG_VERSION"
  [[ -f $stamp && $(cat "$stamp") == "$want" ]] && return 0
  need_tools
  log "resolving the RCK classpath (Iceberg $RCK_ICEBERG_VERSION) into $RCK_JARS_DIR"
  rm -rf "$RCK_JARS_DIR"
  mkdir -p "$RCK_JARS_DIR"
  if ! mvn_q -f tests/rck/pom.xml "$MAVEN_DEPENDENCY_PLUGIN:copy-dependencies" \
        -Diceberg.version="$RCK_ICEBERG_VERSION" -DoutputDirectory="$PWD/$RCK_JARS_DIR"; then
    rm -rf "$RCK_JARS_DIR"; log "FAILED: RCK classpath"; return 1
  fi
  echo "$want" > "$stamp"
}

targets=("$@")
((${#targets[@]})) || targets=(fixture spark rck)
for t in "${targets[@]}"; do
  case $t in
    fixture) fetch_fixture ;;
    spark) fetch_spark ;;
    rck) fetch_rck ;;
    nessie) fetch_nessie ;;
    *) echo "usage: $0 [fixture|spark|rck|nessie]..." >&2; exit 2 ;;
  esac
done
