#!/usr/bin/env bash
# `make run`: the Iceberg REST catalog on the embedded store, in the foreground.
set -euo pipefail
SKADE=$1 WAREHOUSE=$2 HOST=$3 PORT=$4
mkdir -p "$WAREHOUSE"
URI="http://$HOST:$PORT"
JAR=$(realpath "$(dirname "$0")"/../.deps/jars/spark/iceberg-spark-runtime-*.jar 2>/dev/null | head -1 || true)
cat <<MSG
skade: starting the Iceberg REST catalog on $URI (warehouse $(cd "$WAREHOUSE" && pwd))

  PyIceberg:  from pyiceberg.catalog.rest import RestCatalog
              catalog = RestCatalog("skade", uri="$URI")
              catalog.create_namespace("demo")

  Spark:      pyspark --jars ${JAR:-<iceberg-spark-runtime jar>} \\
                --conf spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions \\
                --conf spark.sql.catalog.skade=org.apache.iceberg.spark.SparkCatalog \\
                --conf spark.sql.catalog.skade.type=rest \\
                --conf spark.sql.catalog.skade.uri=$URI
              spark.sql("CREATE NAMESPACE skade.demo")

  CLI:        $SKADE --warehouse $WAREHOUSE table list demo

  Health:     $URI/health/live  $URI/health/ready
  Metrics:    $URI/metrics  (Prometheus text format)

Ctrl-C stops the server (in-flight requests finish first).
MSG
exec "$SKADE" --warehouse "$WAREHOUSE" serve --host "$HOST" --port "$PORT"
