"""Shared fixtures for the interop tests: real PyIceberg, DuckDB, fastavro
(and later Spark) against skade binaries built by `make build`."""
import os
import pathlib
import subprocess

import pytest

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

    def run(name, *args, check=True, input=None):
        proc = subprocess.run(
            [str(bin_dir / name), *map(str, args)],
            capture_output=True,
            text=True,
            input=input,
            timeout=300,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"{name} {' '.join(map(str, args))} exited {proc.returncode}\n"
                f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            )
        return proc

    return run
