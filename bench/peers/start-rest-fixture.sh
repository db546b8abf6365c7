#!/usr/bin/env bash
# Starts the Apache Iceberg REST fixture (JdbcCatalog on SQLite, from Maven Central's
# org.apache.iceberg:iceberg-open-api:<v> runnable jar) in the background, bound to loopback only,
# waits until GET /v1/config answers, and prints its PID on stdout.
#
# Usage: bench/peers/start-rest-fixture.sh PORT WAREHOUSE
#   PORT       TCP port on 127.0.0.1 (0 is not supported: pick a free one)
#   WAREHOUSE  directory (created) or a file: URI; table data and metadata go there
# Environment:
#   REST_FIXTURE_HOST       bind address (default 127.0.0.1)
#   REST_FIXTURE_LOG        log file (default .deps/logs/rest-fixture-PORT.log)
#   REST_FIXTURE_JAVA_OPTS  JVM options (default "-Xms256m -Xmx1g")
#   REST_FIXTURE_TIMEOUT    seconds to wait for /v1/config (default 90)
#   CATALOG_URI             backend JDBC URI. Default: a file-backed SQLite in WAL mode inside the
#                           warehouse, jdbc:sqlite:WAREHOUSE/rest-fixture-catalog.db?journal_mode=WAL
#                           (a fresh warehouse = an empty catalog; restarting on the same warehouse
#                           keeps the tables). NOT the fixture's own default jdbc:sqlite::memory:,
#                           which gives every new pooled JDBC connection its own empty database and
#                           fails requests with "no such table: iceberg_tables" (HTTP 500) as soon as
#                           two requests run at once (apache/iceberg#13366).
#   CATALOG_CLIENTS         JDBC connection pool size (fixture default 2). Other CATALOG_* variables
#                           pass through to the fixture.
# Stop it with: kill PID   (the JVM stops Jetty on SIGTERM)
set -euo pipefail
source "$(dirname "$0")/wait-until-serving.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
source scripts/jars.env

if [[ $# -ne 2 ]]; then
  echo "usage: $0 PORT WAREHOUSE" >&2
  exit 2
fi
port=$1 warehouse=$2
host=${REST_FIXTURE_HOST:-127.0.0.1}
timeout=${REST_FIXTURE_TIMEOUT:-90}
java_opts=${REST_FIXTURE_JAVA_OPTS:--Xms256m -Xmx1g}

scripts/fetch-jars.sh fixture

# Warehouse: keep URIs as given, turn plain paths into absolute file: URIs (the RCK and Spark write
# data files at the locations the server hands out, so both sides must be able to open them).
case $warehouse in
  *://* | file:*) ;;
  *) mkdir -p "$warehouse"; warehouse="file:$(cd "$warehouse" && pwd)" ;;
esac

if [[ -z ${CATALOG_URI:-} ]]; then
  case $warehouse in
    file:*)
      wh_dir=${warehouse#file:}
      wh_dir=$(echo "$wh_dir" | sed 's#^/*#/#')
      mkdir -p "$wh_dir"
      CATALOG_URI="jdbc:sqlite:$wh_dir/rest-fixture-catalog.db?journal_mode=WAL" ;;
    *) CATALOG_URI="jdbc:sqlite:$root/.deps/rest-fixture-$port.db?journal_mode=WAL"; rm -f "$root/.deps/rest-fixture-$port.db"* ;;
  esac
fi
export CATALOG_URI

if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  echo "start-rest-fixture: $host:$port is already in use" >&2
  exit 1
fi

# Compile the loopback launcher once (cached next to the jars; rebuilt when its source changes).
classes=$JARS_DIR/rest-fixture/launcher-$ICEBERG_VERSION
src=$here/RestFixtureLoopback.java
if [[ ! -f $classes/RestFixtureLoopback.class || $src -nt $classes/RestFixtureLoopback.class ]]; then
  mkdir -p "$classes"
  javac -nowarn -d "$classes" -cp "$REST_FIXTURE_JAR" "$src"
fi

log=${REST_FIXTURE_LOG:-.deps/logs/rest-fixture-$port.log}
mkdir -p "$(dirname "$log")"

export CATALOG_REST_PORT=$port CATALOG_WAREHOUSE=$warehouse REST_FIXTURE_HOST=$host
# shellcheck disable=SC2086
setsid java $java_opts -cp "$REST_FIXTURE_JAR:$classes" RestFixtureLoopback </dev/null >"$log" 2>&1 &
pid=$!

wait_until_serving start-rest-fixture "$pid" "http://$host:$port/v1/config" "$timeout" "$log"
echo "$pid"
