"""Hostile input to `skade ingest`, through the real CLI: what a reader could
not read (invalid UTF-8 in a string column) or what crashed the ingest
(deeply nested JSON) is refused, naming the file and line or skipped as a bad
line with --skip-bad, and valid input Arrow's defaults refused (CSV quoted
newlines past one block, lines over 1 MiB) is ingested. DuckDB reads the
data files skade wrote.
"""
import pathlib
import subprocess

import duckdb


def skade(bin_dir, warehouse, *args, input=None):
    return subprocess.run([str(bin_dir / "skade"), "-w", str(warehouse), "ingest", *map(str, args)],
                          input=input, capture_output=True, timeout=300)


def rows(warehouse, table):
    files = sorted(str(p) for p in pathlib.Path(warehouse).glob(f"db/{table}/data/*.parquet"))
    assert files
    return duckdb.sql(f"SELECT * FROM read_parquet({files!r}) ORDER BY id").fetchall()


def deep(levels):
    return b'{"id": 9, "zzz": ' + b"[" * levels + b"]" * levels + b"}\n"


def test_deeply_nested_json_is_refused_not_a_crash(bin_dir, tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b'{"id": 1}\n' + deep(20000))
    proc = skade(bin_dir, tmp_path / "w", "--create", "db.t", path)
    assert proc.returncode == 1, proc
    assert f"{path}: line 2: JSON nested deeper than 64".encode() in proc.stderr

    # An existing table, the deep value in a field it lacks (types inferred).
    skade(bin_dir, tmp_path / "w", "--stream", "--create", "db.e", input=b'{"id": 1}\n')
    proc = skade(bin_dir, tmp_path / "w", "--table", "db.e", path)
    assert proc.returncode == 1 and b"line 2: JSON nested deeper than 64" in proc.stderr, proc

    # --stream: a bad line, skipped with --skip-bad; the others commit.
    stream = b'{"id": 1}\n' + deep(20000) + b'{"id": 2}\n'
    proc = skade(bin_dir, tmp_path / "w", "--stream", "--skip-bad", "--create", "db.s",
                 input=stream)
    assert proc.returncode == 0, proc
    assert b"skipping line 2: JSON nested deeper than 64" in proc.stderr
    assert rows(tmp_path / "w", "s") == [(1,), (2,)]
    proc = skade(bin_dir, tmp_path / "w", "--stream", "--create", "db.s2", input=stream)
    assert proc.returncode == 1 and b"line 2: JSON nested deeper than 64" in proc.stderr, proc


def test_json_lines_that_are_not_objects_are_bad_lines(bin_dir, tmp_path):
    # Arrow read a `null` line as a row of nulls, and the stream committed it.
    stream = b'{"id": 1}\nnull\n7\n{"id": 2}\n'
    proc = skade(bin_dir, tmp_path / "w", "--stream", "--skip-bad", "--create", "db.n",
                 input=stream)
    assert proc.returncode == 0, proc
    assert b"skipping line 2: each line must hold a JSON object ({...}), not null" in proc.stderr
    assert b"skipping line 3: each line must hold a JSON object ({...}), not a number" in proc.stderr
    assert rows(tmp_path / "w", "n") == [(1,), (2,)]
    path = tmp_path / "array.json"
    path.write_bytes(b'[{"id": 1},\n{"id": 2}]\n')
    proc = skade(bin_dir, tmp_path / "w", "--table", "db.n", path)
    assert proc.returncode == 1
    assert f"{path}: line 1: each line must hold a JSON object ({{...}}), not an array".encode() \
        in proc.stderr


def test_strings_that_are_not_utf8_are_refused(bin_dir, tmp_path):
    bad = b'{"id": 2, "s": "a\xff\xfeb"}\n'
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": 1, "s": "ok"}\n' + bad)
    proc = skade(bin_dir, tmp_path / "w", "--create", "db.f", path)
    assert proc.returncode == 1
    assert b"Column 's' holds a value that is not valid UTF-8" in proc.stderr

    proc = skade(bin_dir, tmp_path / "w", "--stream", "--skip-bad", "--create", "db.st",
                 input=b'{"id": 1, "s": "ok"}\n' + bad + b'{"id": 3, "s": "\xc3\xa9"}\n')
    assert proc.returncode == 0, proc
    assert b"skipping line 2: Column 's' holds a value that is not valid UTF-8" in proc.stderr
    assert rows(tmp_path / "w", "st") == [(1, "ok"), (3, "\u00e9")]


def test_csv_quoted_newlines_in_a_file_of_many_blocks(bin_dir, tmp_path):
    path = tmp_path / "quoted.csv"
    with open(path, "w") as out:
        out.write("id,s,t\n")
        for i in range(100000):
            out.write(f'{i},"ab\ncd {i}",x{i}\n')
    proc = skade(bin_dir, tmp_path / "w", "--create", "db.q", path)
    assert proc.returncode == 0, proc
    got = rows(tmp_path / "w", "q")
    assert len(got) == 100000 and got[-1] == (99999, "ab\ncd 99999", "x99999")


def test_records_longer_than_a_block_are_read_up_to_the_stream_limit(bin_dir, tmp_path):
    value = "x" * (3 << 20)
    (tmp_path / "long.jsonl").write_text(f'{{"id": 1, "s": "{value}"}}\n{{"id": 2, "s": "b"}}\n')
    (tmp_path / "long.csv").write_text(f"id,s\n1,{value}\n2,b\n")
    for name, table in [("long.jsonl", "lj"), ("long.csv", "lc")]:
        proc = skade(bin_dir, tmp_path / "w", "--create", f"db.{table}", tmp_path / name)
        assert proc.returncode == 0, proc
        assert rows(tmp_path / "w", table) == [(1, value), (2, "b")]
    (tmp_path / "long.jsonl").write_text(f'{{"id": 1, "s": "{"x" * (17 << 20)}"}}\n')
    proc = skade(bin_dir, tmp_path / "w", "--coalesce", "--create", "db.lc2",
                 tmp_path / "long.jsonl")
    assert proc.returncode == 1
    message = f"{tmp_path / 'long.jsonl'}: line 1: a line is longer than 16777216"
    assert message.encode() in proc.stderr
