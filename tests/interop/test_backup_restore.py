"""`skade backup` taken while a PyIceberg writer keeps committing through a real
`skade serve`, restored into a new directory, served again, and every table read
back with PyIceberg: each snapshot the backup names scans to exactly the rows
written up to it. Also: restore never replaces a store a server has open, and
`skade doctor` finds the restored warehouse clean; `--force` replaces only an
earlier backup, never the warehouse; a damaged backup is refused, not crashed on."""
import json
import random
import threading

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from conftest import SkadeServer

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "origin", StringType(), required=False))
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("origin", pa.string())])
# Commits the writer makes before the backup starts and after it ended.
AROUND_BACKUP = 4


class Ledger:
    """Per table, every snapshot a writer made and the ids of all rows the table
    held at it."""

    def __init__(self):
        self.rows_at = {}  # table name -> {snapshot id: set of ids}
        self.current = {}  # table name -> set of ids now
        self.next_id = 0
        self.lock = threading.Lock()

    def append(self, table, name, count):
        with self.lock:
            ids = list(range(self.next_id, self.next_id + count))
            self.next_id += count
        table.append(pa.table({"id": ids, "origin": [name] * count}, schema=ARROW_SCHEMA))
        with self.lock:
            rows = self.current.setdefault(name, set()) | set(ids)
            self.current[name] = rows
            self.rows_at.setdefault(name, {})[table.current_snapshot().snapshot_id] = rows


def build_tables(catalog, ledger):
    catalog.create_namespace("sales")
    catalog.create_namespace("sales.eu")
    catalog.create_namespace("ops")
    tables = {}
    for name in ("sales.orders", "sales.eu.customers", "ops.events", "ops.empty"):
        tables[name] = catalog.create_table(name, SCHEMA)
    for name, appends in (("sales.orders", 3), ("sales.eu.customers", 2), ("ops.events", 1)):
        for _ in range(appends):
            ledger.append(tables[name], name, 5)
    return tables


class Writer(threading.Thread):
    """Appends to two tables, alternately, until stopped; counts its commits."""

    def __init__(self, tables, ledger):
        super().__init__(daemon=True)
        self.tables, self.ledger = tables, ledger
        self.commits = 0
        self.error = None
        self.stop = threading.Event()
        self.progress = threading.Condition()

    def run(self):
        try:
            while not self.stop.is_set():
                name = ("ops.events", "sales.orders")[self.commits % 2]
                self.ledger.append(self.tables[name], name, 3)
                with self.progress:
                    self.commits += 1
                    self.progress.notify_all()
        except Exception as error:  # reported by the test
            self.error = error
            with self.progress:
                self.progress.notify_all()

    def wait_for(self, commits):
        with self.progress:
            self.progress.wait_for(lambda: self.commits >= commits or self.error is not None,
                                   timeout=120)
        assert self.error is None, f"the writer failed: {self.error!r}"
        assert self.commits >= commits, "the writer stopped committing"


def all_tables(catalog, parent=()):
    names = []
    for ns in catalog.list_namespaces(parent):
        names += [".".join(identifier) for identifier in catalog.list_tables(ns)]
        names += all_tables(catalog, ns)
    return names


def test_a_backup_taken_while_committing_restores_and_reads_with_pyiceberg(bin_dir, tmp_path,
                                                                           run_tool):
    warehouse = tmp_path / "warehouse"
    server = SkadeServer(bin_dir, warehouse)
    ledger = Ledger()
    try:
        catalog = RestCatalog("skade", uri=server.uri)
        tables = build_tables(catalog, ledger)
        writer = Writer(tables, ledger)
        writer.start()
        writer.wait_for(AROUND_BACKUP)
        backup = tmp_path / "backup"
        done = run_tool("skade", "--warehouse", warehouse, "backup", backup, "--with-metadata")
        after_backup = writer.commits
        writer.wait_for(after_backup + AROUND_BACKUP)
        writer.stop.set()
        writer.join()
        assert writer.error is None, repr(writer.error)
        assert "backed up" in done.stdout

        # A store a server has open is never replaced, not even with --force.
        refused = run_tool("skade", "--warehouse", warehouse, "restore", backup, "--force",
                           check=False)
        assert refused.returncode != 0
        assert "in a running process" in refused.stderr
        final_snapshots = {name: len(catalog.load_table(name).snapshots()) for name in tables}
    finally:
        assert server.stop() == 0, server.log_path.read_text()

    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["format"] == "skade-backup"
    assert len(manifest["commits"]) == manifest["commit-seq"]
    assert sorted(".".join(t["namespace"] + [t["name"]]) for t in manifest["tables"]) == \
        sorted(tables)
    assert sorted(".".join(ns) for ns in manifest["namespaces"]) == ["ops", "sales", "sales.eu"]
    assert all(t.get("metadata-copy") for t in manifest["tables"])

    restored = tmp_path / "restored-store"
    (restored).mkdir()
    (restored / "notes").write_text("not a store")
    refused = run_tool("skade", "--warehouse", warehouse, "--store", restored, "restore", backup,
                       check=False)
    assert refused.returncode != 0 and "not empty" in refused.stderr
    (restored / "notes").unlink()
    result = run_tool("skade", "--warehouse", warehouse, "--store", restored, "restore", backup)
    assert f"at commit {manifest['commit-seq']}" in result.stdout
    assert "0 current missing" in result.stdout

    doctor = run_tool("skade", "--warehouse", warehouse, "--store", restored, "doctor", "--json",
                      "--all-snapshots")
    report = json.loads(doctor.stdout)
    assert report["problems"] == [] and report["tables"] == len(tables)

    server = SkadeServer(bin_dir, warehouse, global_args=["--store", restored],
                         log_path=tmp_path / "restored-server.log")
    try:
        catalog = RestCatalog("skade", uri=server.uri)
        assert sorted(all_tables(catalog)) == sorted(tables)
        for name in tables:
            table = catalog.load_table(name)
            location = {t["name"]: t["metadata-location"] for t in manifest["tables"]
                        if ".".join(t["namespace"] + [t["name"]]) == name}
            assert table.metadata_location in location.values()
            snapshots = table.snapshots()
            written = ledger.rows_at.get(name, {})
            for snapshot in snapshots:
                assert snapshot.snapshot_id in written, f"{name}: unknown snapshot"
                rows = table.scan(snapshot_id=snapshot.snapshot_id).to_arrow()
                assert sorted(rows.column("id").to_pylist()) == sorted(written[snapshot.snapshot_id])
                assert set(rows.column("origin").to_pylist()) <= {name}
            current = table.scan().to_arrow()
            expected = written[table.current_snapshot().snapshot_id] if snapshots else set()
            assert sorted(current.column("id").to_pylist()) == sorted(expected)
        # The writer went on after the backup: the restored tables are at an earlier state.
        restored_total = sum(len(catalog.load_table(name).snapshots()) for name in tables)
        assert restored_total <= sum(final_snapshots.values()) - AROUND_BACKUP
        # The restored catalog takes commits again.
        catalog.load_table("ops.empty").append(
            pa.table({"id": [-1], "origin": ["after"]}, schema=ARROW_SCHEMA))
        assert catalog.load_table("ops.empty").scan().to_arrow().num_rows == 1
    finally:
        assert server.stop() == 0, server.log_path.read_text()


def test_backup_force_replaces_only_an_earlier_backup_never_the_warehouse(run_tool, tmp_path):
    """Regression: `skade backup . --force` in a directory holding the warehouse and
    another tool's manifest.json deleted both, store and data included."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "manifest.json").write_text('{"app": "x"}')
    run_tool("skade", "ns", "create", "db", cwd=project)  # the default ./warehouse
    warehouse = project / "warehouse"
    store_data = warehouse / ".skade" / "catalog" / "data.mdb"
    alias = tmp_path / "alias"
    alias.symlink_to(project)
    for destination in (".", "warehouse", "warehouse/.skade/catalog", "warehouse/backups/b1",
                        alias, alias / "warehouse" / "db"):
        refused = run_tool("skade", "backup", destination, "--force", cwd=project, check=False)
        assert refused.returncode == 1, (destination, refused.stderr)
        assert "the warehouse" in refused.stderr or "the catalog store" in refused.stderr, \
            refused.stderr
    assert (project / "manifest.json").read_text() == '{"app": "x"}'
    assert store_data.is_file() and not (warehouse / "backups").exists()
    assert "db" in run_tool("skade", "ns", "list", cwd=project).stdout

    # Elsewhere, a directory whose manifest.json is not a skade backup's is no
    # backup to replace.
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text('{"app": "x"}')
    (other / "data.bin").write_bytes(b"mine")
    refused = run_tool("skade", "--warehouse", warehouse, "backup", other, "--force", check=False)
    assert refused.returncode == 1 and "is not a skade backup's" in refused.stderr
    assert (other / "data.bin").read_bytes() == b"mine"

    # An earlier backup is.
    backup = tmp_path / "backup"
    run_tool("skade", "--warehouse", warehouse, "backup", backup)
    run_tool("skade", "--warehouse", warehouse, "backup", backup, "--force")
    assert json.loads((backup / "manifest.json").read_text())["format"] == "skade-backup"


@pytest.mark.parametrize("offset", [12288, 20480])
def test_a_damaged_backup_store_is_refused_before_lmdb_reads_it(run_tool, tmp_path, offset):
    """Regression: 16 bytes overwritten in a backup's data.mdb crashed the restore
    (SIGBUS, double free) and left a partial store behind. The manifest records the
    store file's size and hash; the restore checks them first."""
    warehouse = tmp_path / "warehouse"
    for name in ("sales", "ops", "hr", "finance"):
        run_tool("skade", "--warehouse", warehouse, "ns", "create", name,
                 "--property", "owner=" + name * 40)
    backup = tmp_path / "backup"
    run_tool("skade", "--warehouse", warehouse, "backup", backup)
    data = backup / "store" / "data.mdb"
    original = data.read_bytes()
    assert len(original) > offset + 16
    manifest = json.loads((backup / "manifest.json").read_text())
    assert [(f["name"], f["size"]) for f in manifest["store-files"]] == \
        [("data.mdb", len(original))]

    damaged = bytearray(original)
    rng = random.Random(offset)
    for i in range(offset, offset + 16):
        damaged[i] ^= rng.randrange(1, 256)
    data.write_bytes(bytes(damaged))
    store = tmp_path / "store"
    refused = run_tool("skade", "--warehouse", warehouse, "--store", store, "restore", backup,
                       check=False)
    assert refused.returncode == 1, refused.stderr  # an error, not a signal
    assert "backup is damaged: store checksum mismatch" in refused.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup", "warehouse"]

    # A backup an earlier skade made has no store-files: it restores unchecked.
    data.write_bytes(original)
    del manifest["store-files"]
    (backup / "manifest.json").write_text(json.dumps(manifest))
    restored = run_tool("skade", "--warehouse", warehouse, "--store", store, "restore", backup)
    assert f"at commit {manifest['commit-seq']}" in restored.stdout
