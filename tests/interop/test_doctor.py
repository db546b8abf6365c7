"""`skade doctor` on a warehouse PyIceberg wrote through `skade serve` and that we
then damage on purpose: every damage is reported with its table and file, nothing
is changed without --repair, --repair alone never drops a table, and
--drop-dangling drops only the pointer to nothing."""
import json
import pathlib
import urllib.parse

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from conftest import SkadeServer

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False))


def local(location):
    return pathlib.Path(urllib.parse.urlparse(location).path)


def doctor(run_tool, warehouse, *args):
    proc = run_tool("skade", "--warehouse", warehouse, "doctor", "--json", *args, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def kinds(report):
    return sorted((p["table"], p["kind"]) for p in report["problems"])


def test_doctor_reports_damage_and_repairs_only_when_asked(bin_dir, tmp_path, run_tool):
    warehouse = tmp_path / "warehouse"
    server = SkadeServer(bin_dir, warehouse)
    try:
        catalog = RestCatalog("skade", uri=server.uri)
        catalog.create_namespace("ops")
        tables = {}
        for name in ("lost_metadata", "lost_list", "lost_manifest", "healthy"):
            table = catalog.create_table(f"ops.{name}", schema=SCHEMA)
            for i in range(2):
                table.append(pa.table({"id": pa.array([i], pa.int64())}))
            tables[name] = catalog.load_table(f"ops.{name}")
    finally:
        assert server.stop() == 0

    code, report = doctor(run_tool, warehouse, "--all-snapshots")
    assert code == 0 and report["problems"] == [] and report["tables"] == 4, report

    metadata_file = local(tables["lost_metadata"].metadata_location)
    metadata_file.unlink()
    manifest_list = local(tables["lost_list"].current_snapshot().manifest_list)
    manifest_list.unlink()
    manifest = local(tables["lost_manifest"].current_snapshot().manifests(
        tables["lost_manifest"].io)[0].manifest_path)
    manifest.unlink()
    expected = [("ops.lost_list", "manifest-list-missing"),
                ("ops.lost_manifest", "manifest-missing"),
                ("ops.lost_metadata", "metadata-missing")]

    before = sorted(p for p in warehouse.rglob("*") if p.is_file() and ".skade" not in p.parts)
    code, report = doctor(run_tool, warehouse)
    assert code == 1 and kinds(report) == expected, report
    by_kind = {p["kind"]: p for p in report["problems"]}
    assert local(by_kind["metadata-missing"]["location"]) == metadata_file
    assert local(by_kind["manifest-list-missing"]["location"]) == manifest_list
    assert local(by_kind["manifest-missing"]["location"]) == manifest
    assert all(p["repair"] is None for p in report["problems"])
    # A report changes nothing.
    after = sorted(p for p in warehouse.rglob("*") if p.is_file() and ".skade" not in p.parts)
    assert after == before

    # The text form names the same damage, and fails the same way.
    text = run_tool("skade", "--warehouse", warehouse, "doctor", check=False)
    assert text.returncode == 1
    for table, kind in expected:
        assert table in text.stdout and kind in text.stdout, text.stdout

    # --repair: these files' bytes are not in the journal (they were synced
    # long ago), so nothing can be rewritten, and no table is dropped.
    code, report = doctor(run_tool, warehouse, "--repair")
    assert code == 1 and kinds(report) == expected
    listed = run_tool("skade", "--warehouse", warehouse, "table", "list", "ops").stdout
    assert "lost_metadata" in listed

    # --drop-dangling drops the pointer to nothing, and only it; the table's
    # other files stay, and the other damage is still reported.
    code, report = doctor(run_tool, warehouse, "--repair", "--drop-dangling")
    assert code == 1, report
    dropped = [p for p in report["problems"] if p["repair"] == "dropped"]
    assert [(p["table"], p["kind"]) for p in dropped] == [("ops.lost_metadata", "metadata-missing")]
    listed = run_tool("skade", "--warehouse", warehouse, "table", "list", "ops").stdout
    assert "lost_metadata" not in listed and "healthy" in listed
    assert local(tables["lost_metadata"].current_snapshot().manifest_list).exists()

    code, report = doctor(run_tool, warehouse)
    assert code == 1 and kinds(report) == expected[:2]

    # The healthy table still reads.
    server = SkadeServer(bin_dir, warehouse)
    try:
        rows = RestCatalog("skade", uri=server.uri).load_table("ops.healthy").scan().to_arrow()
        assert sorted(rows["id"].to_pylist()) == [0, 1]
    finally:
        assert server.stop() == 0


def test_drop_dangling_keeps_the_tables_of_an_allowed_root_not_mounted(tmp_path, run_tool):
    """Review finding F4: with the warehouse's tables there, --drop-dangling dropped every table
    of an --allow-location root that was not mounted (an empty mount point here). Each root is
    judged on its own: its table is kept, one really gone from the warehouse is dropped."""
    warehouse = tmp_path / "warehouse"
    ext = tmp_path / "ext"
    ext.mkdir()
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"}]}))
    skade = ("skade", "--warehouse", warehouse, "--allow-location", ext)
    run_tool(*skade, "ns", "create", "db")
    run_tool(*skade, "ns", "create", "ext")
    for name in ("local", "gone"):
        run_tool(*skade, "table", "create", f"db.{name}", "--schema", schema)
    run_tool(*skade, "table", "create", "ext.big", "--schema", schema,
             "--location", f"file://{ext}/big")
    for metadata_file in (warehouse / "db" / "gone" / "metadata").glob("*.metadata.json"):
        metadata_file.unlink()
    ext.rename(tmp_path / "ext-unmounted")
    ext.mkdir()

    proc = run_tool(*skade, "doctor", "--json", "--repair", "--drop-dangling", check=False)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    by_table = {p["table"]: p for p in report["problems"]}
    assert sorted(by_table) == ["db.gone", "ext.big"], report
    assert by_table["db.gone"]["repair"] == "dropped"
    kept = by_table["ext.big"]
    assert kept["kind"] == "metadata-missing" and kept["repair"] is None, report
    assert f"root {ext} looks unmounted" in kept["detail"], kept

    ext.rmdir()
    (tmp_path / "ext-unmounted").rename(ext)
    assert "big" in run_tool(*skade, "table", "list", "ext").stdout
    proc = run_tool(*skade, "doctor", "--json", check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["problems"] == [], proc.stdout
