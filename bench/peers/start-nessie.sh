#!/usr/bin/env bash
# Starts Project Nessie (the Quarkus server from Maven Central's
# org.projectnessie.nessie:nessie-quarkus:<v>:jar:runner) in the background with its in-memory version
# store, bound to loopback only, its one warehouse in an S3 bucket; waits until its Iceberg REST
# endpoint answers GET /iceberg/v1/config and prints its PID on stdout. Iceberg REST clients use
# http://127.0.0.1:PORT/iceberg as the catalog URI (/v1/config hands them the path prefix).
#
# Usage: bench/peers/start-nessie.sh PORT S3_ENDPOINT BUCKET
#   PORT         TCP port on 127.0.0.1 for the REST API (0 is not supported: pick a free one)
#   S3_ENDPOINT  the object store, e.g. http://127.0.0.1:9000 (scripts/minio.sh start)
#   BUCKET       an existing bucket (scripts/minio.sh bucket); the warehouse is s3://BUCKET/warehouse
# Environment:
#   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY   the object store's credentials (default: scripts/minio.sh's)
#   AWS_REGION            default us-east-1
#   NESSIE_LOG            log file (default .deps/logs/nessie-PORT.log)
#   NESSIE_JAVA_OPTS      JVM options (default "-Xms256m -Xmx1g")
#   NESSIE_TIMEOUT        seconds to wait for /iceberg/v1/config (default 120)
#   NESSIE_JAVA_HOME      a Java 21+ (default in scripts/jars.env: Temurin 25)
# The version store is IN_MEMORY: stopping the server loses the catalog (the table metadata files stay
# in the bucket, unreferenced). Stop it with: kill PID   (Quarkus shuts down on SIGTERM)
set -euo pipefail
source "$(dirname "$0")/wait-until-serving.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
source scripts/jars.env

if [[ $# -ne 3 ]]; then
  echo "usage: $0 PORT S3_ENDPOINT BUCKET" >&2
  exit 2
fi
port=$1 endpoint=${2%/} bucket=$3
host=127.0.0.1
timeout=${NESSIE_TIMEOUT:-120}
java_opts=${NESSIE_JAVA_OPTS:--Xms256m -Xmx1g}
java=$NESSIE_JAVA_HOME/bin/java

if [[ ! -x $java ]]; then
  echo "start-nessie: no Java at $java (Nessie $NESSIE_VERSION needs Java 21+; set NESSIE_JAVA_HOME)" >&2
  exit 1
fi
scripts/fetch-jars.sh nessie

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  echo "start-nessie: $host:$port is already in use" >&2
  exit 1
fi
# Quarkus' management interface (health, metrics) defaults to port 9000, MinIO's default too.
management_port=$(free_port)

log=${NESSIE_LOG:-.deps/logs/nessie-$port.log}
mkdir -p "$(dirname "$log")"

# The S3 access key goes through Nessie's secrets manager: a urn:nessie-secret:quarkus:<name> reference
# to the properties <name>.name / <name>.secret, which must live outside the nessie.* namespace.
secret=skade-bench-secrets.s3-default
s3=nessie.catalog.service.s3.default-options
properties=(
  -Dquarkus.http.host="$host" -Dquarkus.http.port="$port"
  -Dquarkus.management.host="$host" -Dquarkus.management.port="$management_port"
  # No line per request in the log (as `skade serve --quiet`; the REST fixture writes none either).
  -Dquarkus.http.access-log.enabled=false
  -Dnessie.version.store.type=IN_MEMORY
  -Dnessie.catalog.default-warehouse=warehouse
  -Dnessie.catalog.warehouses.warehouse.location="s3://$bucket/warehouse"
  -D"$s3.endpoint=$endpoint/"
  -D"$s3.path-style-access=true"
  -D"$s3.region=${AWS_REGION:-us-east-1}"
  -D"$s3.access-key=urn:nessie-secret:quarkus:$secret"
  -D"$secret.name=${AWS_ACCESS_KEY_ID:-skade-test}"
  -D"$secret.secret=${AWS_SECRET_ACCESS_KEY:-skade-test-secret}"
)
# shellcheck disable=SC2086
setsid "$java" $java_opts "${properties[@]}" -jar "$NESSIE_JAR" </dev/null >"$log" 2>&1 &
pid=$!

wait_until_serving start-nessie "$pid" "http://$host:$port/iceberg/v1/config" "$timeout" "$log"
echo "$pid"
