#!/usr/bin/env bash
# `make run-s3`: the Iceberg REST catalog with its warehouse on S3 — a local MinIO (scripts/minio.sh)
# on 127.0.0.1:$S3_PORT with the bucket `warehouse` — and its store on local disk, vending
# credentials to clients, in the foreground. Ctrl-C stops skade, then MinIO.
set -euo pipefail
SKADE=$1 DIR=$2 HOST=$3 PORT=$4 S3_PORT=$5
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
export MINIO_ROOT_USER=${MINIO_ROOT_USER:-skade} MINIO_ROOT_PASSWORD=${MINIO_ROOT_PASSWORD:-skade-secret}
export AWS_ACCESS_KEY_ID=$MINIO_ROOT_USER AWS_SECRET_ACCESS_KEY=$MINIO_ROOT_PASSWORD
export AWS_EC2_METADATA_DISABLED=true
S3=http://127.0.0.1:$S3_PORT
"$root/scripts/minio.sh" install
minio_pid=$(MINIO_LOG=$DIR/minio.log "$root/scripts/minio.sh" start "$DIR/minio-data" "$S3_PORT")
trap '"$root/scripts/minio.sh" stop "$minio_pid"' EXIT
"$root/scripts/minio.sh" bucket "$S3" warehouse 2>/dev/null || true  # exists on a restart

URI="http://$HOST:$PORT"
JARS=$root/.deps/jars/spark
cat <<MSG
skade: starting the Iceberg REST catalog on $URI
  warehouse s3://warehouse/lake on MinIO at $S3 (data in $DIR/minio-data), store $DIR/store

  PyIceberg:  from pyiceberg.catalog.rest import RestCatalog
              catalog = RestCatalog("skade", uri="$URI")      # S3 settings and keys come from skade

  Spark:      pyspark --jars $JARS/iceberg-spark-runtime-4.0_2.13-1.10.1.jar,$JARS/iceberg-aws-bundle-1.10.1.jar \\
                --conf spark.sql.catalog.skade=org.apache.iceberg.spark.SparkCatalog \\
                --conf spark.sql.catalog.skade.type=rest \\
                --conf spark.sql.catalog.skade.uri=$URI \\
                --conf spark.sql.catalog.skade.header.X-Iceberg-Access-Delegation=vended-credentials

  DuckDB:     ATTACH '' AS skade (TYPE iceberg, ENDPOINT '$URI', AUTHORIZATION_TYPE 'none');

  CLI:        AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=… \\
              $SKADE --warehouse s3://warehouse/lake --store $DIR/store --s3-endpoint $S3 table list demo

Ctrl-C stops the server (in-flight requests finish first), then MinIO.
MSG
"$SKADE" --warehouse s3://warehouse/lake --store "$DIR/store" --s3-endpoint "$S3" \
  serve --host "$HOST" --port "$PORT" --vend-credentials static &
skade_pid=$!
# SIGINT/SIGTERM stop skade gracefully; the EXIT trap then stops MinIO.
trap 'kill -TERM "$skade_pid" 2>/dev/null || true' INT TERM
wait "$skade_pid" || wait "$skade_pid" || true
