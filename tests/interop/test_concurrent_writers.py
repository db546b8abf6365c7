"""Many writers on one table through `skade serve`, with the real clients and
their own commit retries turned off: stale appends are rebased on the server
(every append succeeds, one linear history, all rows there), conflicting
non-appends still get 409, and the clients' cleanup after a rebased commit
keeps every file the table references and leaves nothing behind."""
import pathlib
import subprocess
import sys
import textwrap
import threading
import urllib.parse

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import BadRequestError, CommitFailedException
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType


NO_RETRIES = {"commit.retry.num-retries": "0"}
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "writer", StringType(), required=False))


def catalog_for(server):
    return RestCatalog("skade", uri=server.uri)


def local_path(location):
    return pathlib.Path(urllib.parse.urlparse(location).path)


def lineage(table):
    """The snapshot ids from main's head back to the first."""
    by_id = {s.snapshot_id: s for s in table.metadata.snapshots}
    chain, at = [], table.metadata.current_snapshot_id
    while at is not None:
        chain.append(at)
        at = by_id[at].parent_snapshot_id
    return chain


def assert_files_exact(table):
    """Every file a snapshot references exists, and the metadata directory
    holds no manifest or manifest list that no snapshot references."""
    io = table.io
    lists, manifests = set(), set()
    for snapshot in table.metadata.snapshots:
        lists.add(local_path(snapshot.manifest_list))
        for manifest in snapshot.manifests(io):
            manifests.add(local_path(manifest.manifest_path))
    for path in lists | manifests:
        assert path.exists(), f"referenced file deleted: {path}"
    metadata_dir = local_path(table.metadata.location) / "metadata"
    avro = {p for p in metadata_dir.iterdir() if p.suffix == ".avro"}
    assert avro - lists - manifests == set(), "files left behind"


WRITER = textwrap.dedent("""
    import sys
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog
    uri, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    catalog = RestCatalog("skade", uri=uri)
    failures = 0
    for i in range(count):
        table = catalog.load_table("w.events")
        try:
            table.append(pa.table({"id": pa.array([i], pa.int64()), "writer": [name]}))
        except Exception as error:  # a client-visible failure: counted, reported
            failures += 1
            print(f"{name} append {i}: {type(error).__name__}: {error}", file=sys.stderr)
    print(failures)
""")


def run_writers(server, processes, appends):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, server.uri, f"p{p}", str(appends)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in range(processes)]
    failures, errors = 0, []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        failures += int(out.strip().splitlines()[-1])
        errors.append(err)
    return failures, "".join(errors)


def create_events(server, properties):
    catalog = catalog_for(server)
    catalog.create_namespace_if_not_exists("w")
    return catalog.create_table("w.events", SCHEMA, properties=properties)


def test_eight_pyiceberg_processes_append_to_one_table_without_a_failure(skade_server):
    create_events(skade_server, NO_RETRIES)
    failures, errors = run_writers(skade_server, processes=8, appends=25)
    assert failures == 0, errors

    table = catalog_for(skade_server).load_table("w.events")
    chain = lineage(table)
    assert len(chain) == 200 and len(table.metadata.snapshots) == 200
    assert [table.metadata.snapshot_by_id(s).sequence_number for s in chain] == \
        list(range(200, 0, -1))
    data = table.scan().to_arrow()
    assert data.num_rows == 200
    assert sorted(zip(data["writer"].to_pylist(), data["id"].to_pylist())) == \
        sorted((f"p{p}", i) for p in range(8) for i in range(25))
    summary = table.current_snapshot().summary
    assert summary["total-records"] == "200" and summary["total-data-files"] == "200"
    rebased = sum("skade.rebased-from" in s.summary.additional_properties
                  for s in table.metadata.snapshots)
    assert rebased > 0, "no append was stale: the writers did not overlap"
    assert_files_exact(table)


def test_with_rebase_off_the_same_writers_conflict(skade_server):
    # The control: the writers above fail without the rebase.
    create_events(skade_server, {**NO_RETRIES, "skade.commit.rebase-appends": "false"})
    failures, errors = run_writers(skade_server, processes=4, appends=10)
    assert failures > 0
    assert "CommitFailedException" in errors and "not rebased" in errors


def test_stale_overwrite_and_append_after_schema_change_still_conflict(skade_server):
    table = create_events(skade_server, NO_RETRIES)
    table.append(pa.table({"id": pa.array([1], pa.int64()), "writer": ["a"]}))
    catalog = catalog_for(skade_server)
    stale_overwrite = catalog.load_table("w.events")
    stale_append = catalog.load_table("w.events")
    catalog.load_table("w.events").append(pa.table({"id": pa.array([2], pa.int64()),
                                                    "writer": ["b"]}))
    with pytest.raises(CommitFailedException, match="not rebased"):
        stale_overwrite.overwrite(pa.table({"id": pa.array([3], pa.int64()), "writer": ["c"]}))

    with catalog.load_table("w.events").update_schema() as update:
        update.add_column("note", StringType())
    with pytest.raises(CommitFailedException, match="schema"):
        stale_append.append(pa.table({"id": pa.array([4], pa.int64()), "writer": ["d"]}))

    table = catalog.load_table("w.events")
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == [1, 2]
    assert len(lineage(table)) == 2


def test_four_concurrent_spark_inserts_from_separate_sessions(skade_server):
    from conftest import spark_session
    root = spark_session(skade_server.uri, "skade-concurrent-writers", master="local[2]")
    try:
        root.sql("CREATE NAMESPACE IF NOT EXISTS w")
        root.sql("""CREATE TABLE w.sparked (id BIGINT, writer STRING) USING iceberg
                    TBLPROPERTIES ('commit.retry.num-retries'='0')""")
        sessions = [root.newSession() for _ in range(4)]
        # Each session loads (and caches) the table before any of them writes,
        # so all four build on the same version.
        for session in sessions:
            assert session.sql("SELECT count(*) FROM w.sparked").collect()[0][0] == 0
        barrier = threading.Barrier(len(sessions))
        errors = []

        def insert(n, session):
            barrier.wait()
            try:
                session.sql(f"INSERT INTO w.sparked VALUES ({n}, 's{n}'), ({n + 10}, 's{n}')")
            except Exception as error:  # reported below
                errors.append(f"session {n}: {error}")

        threads = [threading.Thread(target=insert, args=(n, s)) for n, s in enumerate(sessions)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        reader = root.newSession()  # root's catalog still caches the empty table
        assert sorted(r[0] for r in reader.sql("SELECT id FROM w.sparked").collect()) == \
            [0, 1, 2, 3, 10, 11, 12, 13]
    finally:
        root.stop()

    table = catalog_for(skade_server).load_table("w.sparked")
    assert len(lineage(table)) == 4 and len(table.metadata.snapshots) == 4
    # All four built on the empty table; the three that came second were rebased.
    assert sum("skade.rebased-from" in s.summary.additional_properties
               for s in table.metadata.snapshots) >= 1
    assert_files_exact(table)


def test_a_misspelt_rebase_property_is_refused(skade_server):
    # Stored, "flase" would read as false and quietly turn the rebase off.
    table = create_events(skade_server, NO_RETRIES)
    with pytest.raises(BadRequestError, match="skade.commit.rebase-appends 'flase'"):
        table.transaction().set_properties({"skade.commit.rebase-appends": "flase"}) \
            .commit_transaction()
    with pytest.raises(BadRequestError, match="Unknown table property skade.commit.rebase"):
        table.transaction().set_properties({"skade.commit.rebase": "true"}).commit_transaction()
    table.transaction().set_properties({"skade.commit.rebase-appends": "False"}) \
        .commit_transaction()
    assert table.properties["skade.commit.rebase-appends"] == "False"
