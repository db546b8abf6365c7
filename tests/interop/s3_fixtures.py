"""An S3-compatible object store for the interop tests: MinIO, built by `scripts/minio.sh install`
(part of `make setup`) and started by `scripts/minio.sh start` on a free loopback port.

The `minio` fixture is session-scoped: one server for the whole run, a bucket per test that asks
for one (`minio.make_bucket(name)`; names must be unique in the session). A missing MinIO binary
fails the tests that use it; it never skips them."""
import os
import pathlib
import socket
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MINIO_SCRIPT = ROOT / "scripts" / "minio.sh"
MINIO_BIN = ROOT / ".deps" / "bin" / "minio"
# The environment variables through which a client could find S3 credentials of its own.
AMBIENT_CREDENTIALS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                       "AWS_PROFILE", "AWS_DEFAULT_PROFILE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MinioServer:
    """A running MinIO: its endpoint, root credentials and region, as S3 clients take them."""

    region = "us-east-1"

    def __init__(self, directory: pathlib.Path, access_key="skade-test",
                 secret_key="skade-test-secret"):
        self.access_key = access_key
        self.secret_key = secret_key
        self.port = free_port()
        self.log_path = directory / f"minio-{self.port}.log"
        self.endpoint = f"http://127.0.0.1:{self.port}"
        proc = subprocess.run(
            [str(MINIO_SCRIPT), "start", str(directory / "data"), str(self.port)],
            env=dict(os.environ, MINIO_ROOT_USER=access_key, MINIO_ROOT_PASSWORD=secret_key,
                     MINIO_LOG=str(self.log_path)),
            capture_output=True, text=True, timeout=120,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"scripts/minio.sh start failed:\n{proc.stderr}")
        self.pid = int(proc.stdout.strip())

    def env(self) -> dict:
        """Environment variables for an S3 client in a subprocess (AWS SDKs, pyarrow, PyIceberg)."""
        return {
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_REGION": self.region,
            "AWS_EC2_METADATA_DISABLED": "true",
        }

    def make_bucket(self, name: str) -> str:
        """Creates bucket `name` and returns it."""
        proc = subprocess.run(
            [str(MINIO_SCRIPT), "bucket", self.endpoint, name],
            env=dict(os.environ, **self.env()), capture_output=True, text=True, timeout=60,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"creating bucket {name} failed:\n{proc.stderr}")
        return name

    def stop(self):
        subprocess.run([str(MINIO_SCRIPT), "stop", str(self.pid)], check=True, timeout=60)


@pytest.fixture(scope="session")
def minio(tmp_path_factory):
    if not os.access(MINIO_BIN, os.X_OK):
        pytest.fail(f"MinIO is not installed at {MINIO_BIN}: run `scripts/minio.sh install` "
                    "(or `make setup`)")
    server = MinioServer(tmp_path_factory.mktemp("minio"))
    yield server
    server.stop()


class S3Warehouse:
    """A fresh bucket of the session's MinIO with the warehouse at s3://BUCKET/wh, a local catalog
    store, and the global options and environment (MinIO's root keys) `skade` runs with."""

    def __init__(self, minio, directory, bucket):
        self.bucket = minio.make_bucket(bucket)
        self.uri = f"s3://{bucket}/wh"
        self.store = directory / f"{bucket}-store"
        self.options = ["--store", str(self.store), "--s3-endpoint", minio.endpoint]
        self.env = dict(os.environ, **minio.env())
