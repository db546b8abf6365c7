"""Shared fixtures for the interop tests: real PyIceberg, DuckDB, fastavro
and Spark against skade binaries built by `make build`."""
import glob
import os
import pathlib
import subprocess

import pytest
from s3_fixtures import minio  # noqa: F401  (the session's MinIO, tests/interop/s3_fixtures.py)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def skade_bin_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("SKADE_BIN", ROOT / "build" / "bin"))


@pytest.fixture(scope="session")
def bin_dir() -> pathlib.Path:
    path = skade_bin_dir()
    if not path.is_dir():
        pytest.fail(f"skade binaries not found in {path}; run `make build` first")
    return path


@pytest.fixture
def run_tool(bin_dir):
    """Runs a binary from the build's bin/ and returns its CompletedProcess;
    fails the test with its stderr when it exits non-zero (unless check=False)."""

    def run(name, *args, check=True, input=None, cwd=None):
        proc = subprocess.run(
            [str(bin_dir / name), *map(str, args)],
            capture_output=True,
            text=True,
            input=input,
            timeout=300,
            cwd=cwd,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"{name} {' '.join(map(str, args))} exited {proc.returncode}\n"
                f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            )
        return proc

    return run


class SkadeServer:
    """A running `skade serve` on a free loopback port with its own warehouse."""

    def __init__(self, bin_dir, warehouse, extra_args=(), global_args=(), env=None, log_path=None,
                 quiet=True, args=None):
        """`warehouse` is a directory, or an s3:// URI with its --store and S3 options in
        `global_args` (what goes before `serve`); `extra_args` follow `serve`; `env`, when given,
        is the server's whole environment; stderr goes to `log_path` (default: beside a local
        warehouse); `quiet` (the default) passes --quiet, so no line per request is logged.
        `args`, when given, is the whole command line after `skade` instead (for a server
        configured by a file or the environment; `warehouse` then only places the log)."""
        remote = str(warehouse).startswith("s3://")
        self.warehouse = str(warehouse) if remote else pathlib.Path(warehouse)
        if log_path is None:
            if remote:
                raise ValueError("an s3:// warehouse needs a log_path")
            log_path = self.warehouse.parent / f"{self.warehouse.name}-server.log"
        self.log_path = pathlib.Path(log_path)
        self._log = open(self.log_path, "w")
        if args is None:
            args = ["--warehouse", str(warehouse), *global_args, "serve", "--port", "0",
                    *(["--quiet"] if quiet else []), *extra_args]
        self.proc = subprocess.Popen(
            [str(bin_dir / "skade"), *map(str, args)],
            stdout=subprocess.PIPE, stderr=self._log, text=True, env=env,
        )
        line = self.proc.stdout.readline()
        if not line.startswith("listening "):
            self.stop()
            raise RuntimeError(f"skade serve did not start: {line!r}\n{self.log_path.read_text()}")
        self.uri = line.split()[1]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


@pytest.fixture
def skade_server(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse")
    yield server
    assert server.stop() == 0, f"server did not shut down cleanly:\n{server.log_path.read_text()}"


@pytest.fixture(scope="module")
def module_server(bin_dir, tmp_path_factory):
    server = SkadeServer(bin_dir, tmp_path_factory.mktemp("rest") / "warehouse")
    yield server
    assert server.stop() == 0, f"server did not shut down cleanly:\n{server.log_path.read_text()}"


def spark_jars():
    """The Iceberg Spark runtime and Iceberg's AWS bundle (S3FileIO), comma-separated for
    spark.jars. Both always: the first session of a process fixes the driver's class path, and a
    later module's session may be the one that reads S3."""
    jars = []
    for pattern in ("iceberg-spark-runtime-*.jar", "iceberg-aws-bundle-*.jar"):
        found = glob.glob(str(ROOT / ".deps" / "jars" / "spark" / pattern))
        if len(found) != 1:
            pytest.fail(f"expected one {pattern} in .deps/jars/spark (make setup): {found}")
        jars += found
    return ",".join(jars)


def spark_session(uri, app_name, master="local[1]", catalog_options=None):
    """A local Spark session with the Iceberg runtime whose default catalog `skade` is the REST
    catalog at `uri`, with `catalog_options` as further spark.sql.catalog.skade.KEY settings
    (getOrCreate: one per process)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.driver.memory", "1g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.jars", spark_jars())
        .config("spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.skade", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.skade.type", "rest")
        .config("spark.sql.catalog.skade.uri", uri)
        .config("spark.sql.defaultCatalog", "skade")
    )
    for key, value in (catalog_options or {}).items():
        builder = builder.config(f"spark.sql.catalog.skade.{key}", value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


@pytest.fixture(scope="module")
def spark(module_server, request):
    """A local Spark session with the Iceberg runtime, its default catalog `skade` the module's server."""
    session = spark_session(module_server.uri, f"skade-{request.module.__name__}")
    yield session
    session.stop()
