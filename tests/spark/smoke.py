#!/usr/bin/env python3
"""Spark + Iceberg REST smoke test (no pytest): proves that the pinned pyspark and the Iceberg Spark
runtime jar (scripts/jars.env, fetched by scripts/fetch-jars.sh) work against a REST catalog.

Usage:
  python tests/spark/smoke.py --uri http://127.0.0.1:8181 --warehouse WAREHOUSE [--jar PATH]

Creates a namespace and a partitioned table, inserts, deletes, reads back and checks the results,
then drops what it created. Prints one JSON line with timings and exits non-zero on any mismatch.
"""

import argparse
import glob
import json
import os
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_jar():
    """$SPARK_ICEBERG_JAR, else the one runtime jar scripts/fetch-jars.sh put in .deps/jars/spark/."""
    if os.environ.get("SPARK_ICEBERG_JAR"):
        return os.path.join(ROOT, os.environ["SPARK_ICEBERG_JAR"])
    jars = sorted(glob.glob(os.path.join(ROOT, ".deps", "jars", "spark", "iceberg-spark-runtime-*.jar")))
    if len(jars) != 1:
        sys.exit(f"spark smoke: expected one runtime jar in .deps/jars/spark, found {jars}; "
                 "run scripts/fetch-jars.sh spark or pass --jar")
    return jars[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uri", required=True, help="REST catalog URI, e.g. http://127.0.0.1:8181")
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--jar", default=None, help="Iceberg Spark runtime jar")
    ap.add_argument("--catalog", default="rest")
    args = ap.parse_args()

    jar = args.jar or default_jar()
    if not os.path.isfile(jar):
        sys.exit(f"spark smoke: missing {jar}; run scripts/fetch-jars.sh spark")

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    t0 = time.monotonic()
    from pyspark.sql import SparkSession  # noqa: E402  (import time is part of start-up)

    cat = args.catalog
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("skade-spark-smoke")
        .config("spark.driver.memory", "1g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.jars", jar)
        .config("spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(f"spark.sql.catalog.{cat}", "org.apache.iceberg.spark.SparkCatalog")
        .config(f"spark.sql.catalog.{cat}.type", "rest")
        .config(f"spark.sql.catalog.{cat}.uri", args.uri)
        .config(f"spark.sql.catalog.{cat}.warehouse", args.warehouse)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("WARN")
    timings = {"session_start_s": round(time.monotonic() - t0, 2)}

    ns = f"smoke_{uuid.uuid4().hex[:8]}"
    table = f"{cat}.{ns}.events"
    steps = [
        ("create_namespace", f"CREATE NAMESPACE {cat}.{ns}"),
        ("create_table",
         f"CREATE TABLE {table} (id BIGINT, name STRING, ts TIMESTAMP) USING iceberg "
         f"PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version'='2')"),
        ("insert",
         f"INSERT INTO {table} VALUES (1, 'a', TIMESTAMP '2024-01-01 10:00:00'), "
         f"(2, 'b', TIMESTAMP '2024-01-02 11:00:00'), (3, 'c', TIMESTAMP '2024-01-02 12:00:00')"),
        ("delete", f"DELETE FROM {table} WHERE id = 2"),
    ]
    for name, sql in steps:
        t = time.monotonic()
        spark.sql(sql).collect()
        timings[f"{name}_s"] = round(time.monotonic() - t, 2)

    t = time.monotonic()
    rows = [tuple(r) for r in spark.sql(f"SELECT id, name FROM {table} ORDER BY id").collect()]
    snapshots = spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]
    namespaces = [r[0] for r in spark.sql(f"SHOW NAMESPACES IN {cat}").collect()]
    timings["select_s"] = round(time.monotonic() - t, 2)

    errors = []
    if rows != [(1, "a"), (3, "c")]:
        errors.append(f"rows: got {rows}")
    if snapshots != 2:
        errors.append(f"snapshots: got {snapshots}, want 2 (insert + delete)")
    if ns not in namespaces:
        errors.append(f"namespace {ns} not listed: {namespaces}")

    t = time.monotonic()
    spark.sql(f"DROP TABLE {table} PURGE").collect()
    spark.sql(f"DROP NAMESPACE {cat}.{ns}").collect()
    timings["drop_s"] = round(time.monotonic() - t, 2)
    spark.stop()
    timings["total_s"] = round(time.monotonic() - t0, 2)

    import pyspark  # noqa: E402

    print(json.dumps({"pyspark": pyspark.__version__, "jar": os.path.basename(jar), **timings}))
    if errors:
        for e in errors:
            print(f"spark smoke: FAILED {e}", file=sys.stderr)
        print("SPARK SMOKE: 0 passed, 1 failed")
        return 1
    print("SPARK SMOKE: 1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
