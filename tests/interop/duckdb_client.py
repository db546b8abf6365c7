"""DuckDB 1.5.5 as an Iceberg REST client of `skade serve`, for the interop tests.

DuckDB is 1.5.5 from .deps/duckdb-iceberg (requirements-duckdb-iceberg.txt), in a
subprocess: .venv's DuckDB 2.0.0 cannot load its iceberg extension on a machine that
reaches only the package registries (DuckDB downloads extensions from its own site). The
extensions are LOADed from the wheels' files with auto-install off, so nothing is
downloaded.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest
from s3_fixtures import AMBIENT_CREDENTIALS

ROOT = pathlib.Path(__file__).resolve().parents[2]
DUCKDB_DIR = ROOT / ".deps" / "duckdb-iceberg"

# Runs in DuckDB 1.5.5 (PYTHONPATH=.deps/duckdb-iceberg). argv: extension root, catalog URI;
# stdin: a JSON list of statements. Prints {"version", "results"}: per statement
# {"rows": [...]} or {"error": "<exception type>: <message>"}, in order.
SCRIPT = r"""
import json, pathlib, sys
import duckdb

root, uri = pathlib.Path(sys.argv[1]), sys.argv[2]
statements = json.load(sys.stdin)
con = duckdb.connect(config={"autoinstall_known_extensions": False,
                             "autoload_known_extensions": False})
# iceberg loads avro and httpfs as it starts: they must be loaded first, from the wheels.
for name in ("httpfs", "avro", "iceberg"):
    [path] = root.glob(f"duckdb_extension_{name}/extensions/*/{name}.duckdb_extension")
    con.sql(f"LOAD '{path}'")
con.sql(f"ATTACH 'wh' AS sk (TYPE iceberg, ENDPOINT '{uri}', AUTHORIZATION_TYPE 'none')")
results = []
for statement in statements:
    try:
        relation = con.sql(statement)
        results.append({"rows": [list(row) for row in relation.fetchall()] if relation else []})
    except Exception as e:  # reported to the test, which decides
        results.append({"error": f"{type(e).__name__}: {e}"})
print(json.dumps({"version": duckdb.__version__, "results": results}, default=str))
"""

def run_duckdb(uri, *statements):
    """Runs `statements` in one DuckDB session whose catalog `sk` is the REST catalog at `uri`
    (no S3 credentials in its environment: they come from the catalog). Returns
    (version, results) as SCRIPT prints them."""
    if not (DUCKDB_DIR / "duckdb").is_dir():
        pytest.fail(f"DuckDB with the iceberg extension is not installed in {DUCKDB_DIR}: "
                    "run `make setup` (scripts/setup.sh)")
    env = {k: v for k, v in os.environ.items() if k not in AMBIENT_CREDENTIALS}
    env["PYTHONPATH"] = str(DUCKDB_DIR)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(DUCKDB_DIR), uri],
                          input=json.dumps(list(statements)), capture_output=True, text=True,
                          timeout=180, env=env)
    assert proc.returncode == 0, f"DuckDB failed:\n{proc.stderr}"
    out = json.loads(proc.stdout)
    return out["version"], out["results"]


def duckdb_rows(uri, *statements):
    """The rows of each of `statements`, failing the test on the first that errs."""
    _, results = run_duckdb(uri, *statements)
    for statement, result in zip(statements, results):
        assert "error" not in result, f"DuckDB: {statement}\n{result['error']}"
    return [result["rows"] for result in results]
