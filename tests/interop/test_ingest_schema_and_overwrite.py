"""`skade ingest` through the real CLI, read back by PyIceberg and DuckDB:

- `--create` refuses an input nested deeper than every reader can read (before
  anything is created), and a table nested exactly as deep as allowed is read
  by skade, PyIceberg (over REST and from its metadata file) and DuckDB;
- `--overwrite-where NAME=null` is the null partition and `NAME='null'` the
  string "null": one never removes the other's rows.
"""
import datetime as dt
import glob
import json
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.table import StaticTable

# How many structs, lists and maps skade lets enclose a value
# (kMaxNestingDepth in src/skade/data/arrow_schema.cc).
MAX_NESTING = 32


@pytest.fixture(scope="module")
def catalog(module_server):
    return RestCatalog("skade", uri=module_server.uri)


@pytest.fixture(scope="module")
def skade(bin_dir, module_server):
    """`skade --warehouse <server's warehouse> ARGS…`; check=True fails the test on an error."""

    def run(*args, check=True):
        proc = subprocess.run(
            [str(bin_dir / "skade"), "--warehouse", str(module_server.warehouse),
             *map(str, args)],
            capture_output=True, text=True, timeout=300)
        if check and proc.returncode != 0:
            pytest.fail(f"skade {' '.join(map(str, args))} exited {proc.returncode}\n"
                        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    return run


def local(path):
    return path[len("file://"):] if path.startswith("file://") else path


def nested(kind, levels):
    """An Arrow type of `levels` nested types around a long, and a value of it: structs,
    lists, maps, or all three in turn ("mixed")."""
    makers = {
        "struct": (lambda t: pa.struct([("a", t)]), lambda v: {"a": v}),
        "list": (pa.list_, lambda v: [v]),
        "map": (lambda t: pa.map_(pa.string(), t), lambda v: [("k", v)]),
    }
    order = ["struct", "list", "map"] if kind == "mixed" else [kind]
    type_, value = pa.int64(), 7
    for level in range(levels):
        make_type, make_value = makers[order[level % len(order)]]
        type_, value = make_type(type_), make_value(value)
    return type_, value


@pytest.mark.parametrize("kind", ["struct", "list", "map", "mixed"])
def test_a_table_nested_as_deep_as_allowed_is_readable(catalog, skade, tmp_path, kind):
    type_, value = nested(kind, MAX_NESTING)
    source = pa.table({"id": pa.array([1, 2], pa.int64()), "c": pa.array([value, None], type_)})
    pq.write_table(source, tmp_path / "deep.parquet")
    name = f"deep.at_limit_{kind}"
    skade("ingest", "--create", name, tmp_path / "deep.parquet")

    scanned = skade("scan", "--format", "jsonl", name).stdout.splitlines()
    assert sorted(json.loads(line)["id"] for line in scanned) == [1, 2]

    table = catalog.load_table(name)
    got = table.scan().to_arrow().sort_by("id")
    assert got.column("id").to_pylist() == [1, 2]
    # Row 1 only: PyIceberg 0.12 reads a null list of structs as [] at any depth.
    assert got.column("c")[0].as_py() == source.column("c")[0].as_py()
    static = StaticTable.from_metadata(table.metadata_location)
    assert static.scan().to_arrow().num_rows == 2

    files = [local(task.file.file_path) for task in table.scan().plan_files()]
    [(rows, ids)] = duckdb.sql(f"SELECT count(*), sum(id) FROM read_parquet({files!r})").fetchall()
    assert (rows, ids) == (2, 3)


@pytest.mark.parametrize("kind", ["struct", "list", "map", "mixed"])
def test_create_refuses_a_parquet_input_nested_one_level_deeper(catalog, skade, tmp_path, kind):
    type_, value = nested(kind, MAX_NESTING + 1)
    pq.write_table(pa.table({"c": pa.array([value], type_)}), tmp_path / "deeper.parquet")
    proc = skade("ingest", "--create", f"deep_refused_{kind}.t", tmp_path / "deeper.parquet",
                 check=False)
    assert proc.returncode == 1, proc.stdout
    assert "Column 'c." in proc.stderr, proc.stderr
    assert f"nested more than {MAX_NESTING} levels deep" in proc.stderr, proc.stderr
    # Refused before anything was made: not even the namespace.
    assert (f"deep_refused_{kind}",) not in catalog.list_namespaces()


@pytest.mark.parametrize("levels", [40, 100, 500])
def test_create_refuses_a_small_json_input_nested_too_deep(catalog, skade, tmp_path, levels):
    """Regression: 600 bytes of JSON made --create commit a table that neither skade nor
    PyIceberg could read (`scan` failed, `doctor` found the metadata unreadable)."""
    path = tmp_path / "deep.jsonl"
    path.write_text('{"a":' * (levels + 1) + "1" + "}" * (levels + 1) + "\n")
    proc = skade("ingest", "--create", f"deep_json_{levels}.t", path, check=False)
    assert proc.returncode == 1, proc.stdout
    # The JSON reader may refuse the deepest inputs first; the schema check refuses the rest.
    assert "nested" in proc.stderr, proc.stderr
    if levels == 40:
        column = ".".join(["a"] * (MAX_NESTING + 1))
        assert f"Column '{column}' is nested more than {MAX_NESTING} levels deep" in proc.stderr, \
            proc.stderr
    assert (f"deep_json_{levels}",) not in catalog.list_namespaces()
    assert skade("doctor", check=False).returncode == 0


def ids_of(catalog, name):
    return sorted(catalog.load_table(name).scan().to_arrow().column("id").to_pylist())


def create_partitioned_by_s(skade, tmp_path, name, lines):
    """Table `name` made by `ingest --create --partition-by s` from JSON `lines`."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text(lines)
    skade("ingest", "--create", "--partition-by", "s", name, path)


def test_overwrite_where_tells_the_null_partition_from_the_string_null(catalog, skade, tmp_path):
    """Regression: `--overwrite-where s=null` also deleted the rows whose s is "null"."""
    name = "overwrite_null.pn"
    create_partitioned_by_s(skade, tmp_path, name,
                            '{"id":1,"s":null}\n{"id":2,"s":"null"}\n{"id":3,"s":"x"}\n'
                            '{"id":4,"s":"\'null\'"}\n')

    proc = skade("ingest", "--overwrite-where", "s=null", name)
    assert "deleted 1 rows in 1 files" in proc.stdout, proc.stdout
    assert ids_of(catalog, name) == [2, 3, 4]

    proc = skade("ingest", "--overwrite-where", "s='null'", name)
    assert "deleted 1 rows in 1 files" in proc.stdout, proc.stdout
    assert ids_of(catalog, name) == [3, 4]

    # Quotes inside the outer ones are text: the string 'null', quotes and all.
    proc = skade("ingest", "--overwrite-where", "s=''null''", name)
    assert "deleted 1 rows in 1 files" in proc.stdout, proc.stdout
    assert ids_of(catalog, name) == [3]

    # Unquoted and quoted text name the same partition.
    skade("ingest", "--overwrite-where", "s='x'", name)
    assert ids_of(catalog, name) == []


def test_overwrite_where_replaces_only_the_null_partition(catalog, skade, tmp_path):
    name = "overwrite_null.replace"
    create_partitioned_by_s(skade, tmp_path, name, '{"id":1,"s":null}\n{"id":2,"s":"null"}\n')

    patch = tmp_path / "patch.jsonl"
    patch.write_text('{"id":10,"s":null}\n')
    skade("ingest", "--overwrite-where", "s=null", name, patch)
    assert ids_of(catalog, name) == [2, 10]

    # A "null" string row is outside the null partition: refused, nothing committed.
    patch.write_text('{"id":11,"s":"null"}\n')
    proc = skade("ingest", "--overwrite-where", "s=null", name, patch, check=False)
    assert proc.returncode == 1, proc.stdout
    assert "cannot overwrite s=null (the null partition): the input has rows in partition s=null" \
        in proc.stderr, proc.stderr
    assert ids_of(catalog, name) == [2, 10]

    skade("ingest", "--overwrite-where", "s='null'", name, patch)
    assert ids_of(catalog, name) == [10, 11]


def test_overwrite_where_matches_numbers_dates_booleans_and_transforms(catalog, skade, tmp_path):
    """Values other than strings still match as their partition paths show them."""
    source = pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "n": pa.array([5, 6, None, 5], pa.int32()),
        "d": pa.array([dt.date(2026, 11, 1), dt.date(2026, 11, 2), None, dt.date(2026, 11, 1)]),
        "b": pa.array([True, False, None, True]),
        "ts": pa.array([dt.datetime(2026, 11, 1, 10), dt.datetime(2026, 11, 2, 10), None,
                        dt.datetime(2026, 11, 1, 11)], pa.timestamp("us")),
    })
    pq.write_table(source, tmp_path / "typed.parquet")
    name = "overwrite_null.typed"
    skade("ingest", "--create", "--partition-by", "n", "--partition-by", "d", "--partition-by",
          "b", "--partition-by", "day(ts)", name, tmp_path / "typed.parquet")
    table = catalog.load_table(name)
    assert [field.name for field in table.spec().fields] == ["n", "d", "b", "ts_day"]

    proc = skade("ingest", "--overwrite-where", "n=6", "--overwrite-where", "d=2026-11-02",
                 "--overwrite-where", "b=false", "--overwrite-where", "ts_day=2026-11-02", name)
    assert "deleted 1 rows" in proc.stdout, proc.stdout
    assert ids_of(catalog, name) == [1, 3, 4]

    proc = skade("ingest", "--overwrite-where", "n=null", "--overwrite-where", "ts_day=null", name)
    assert "deleted 1 rows" in proc.stdout, proc.stdout
    assert ids_of(catalog, name) == [1, 4]

    proc = skade("ingest", "--overwrite-where", "n='5'", "--overwrite-where", "b=true", name)
    assert "deleted 2 rows" in proc.stdout, proc.stdout
    assert ids_of(catalog, name) == []


def test_overwrite_where_refuses_a_field_named_twice(catalog, skade, tmp_path):
    name = "overwrite_null.twice"
    create_partitioned_by_s(skade, tmp_path, name, '{"id":1,"s":"a"}\n{"id":2,"s":"b"}\n')
    proc = skade("ingest", "--overwrite-where", "s=a", "--overwrite-where", "s=b", name,
                 check=False)
    assert proc.returncode == 1 and "names 's' twice" in proc.stderr, proc.stderr
    assert ids_of(catalog, name) == [1, 2]
