"""PyIceberg's RestCatalog against a real `skade serve`: the whole life of a
table — create, append, overwrite, delete, schema evolution, time travel,
rename, drop and purge — read back with PyIceberg's own scans."""
import datetime as dt
import pathlib

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    ForbiddenError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform
from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType


def catalog_for(server, **props):
    return RestCatalog("skade", uri=server.uri, **props)


SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "city", StringType(), required=False),
    NestedField(3, "ts", TimestamptzType(), required=False),
)
SPEC = PartitionSpec(
    PartitionField(source_id=3, field_id=1000, transform=DayTransform(), name="ts_day"),
    PartitionField(source_id=1, field_id=1001, transform=BucketTransform(4), name="id_bucket"),
)
ARROW_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("city", pa.string()),
    pa.field("ts", pa.timestamp("us", tz="UTC")),
])


def rows(start, count, city="oslo"):
    base = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
    return pa.table({
        "id": pa.array(range(start, start + count), pa.int64()),
        "city": [f"{city}-{i % 3}" for i in range(count)],
        "ts": [base + dt.timedelta(hours=7 * i) for i in range(count)],
    }, schema=ARROW_SCHEMA)


def sorted_ids(table):
    return sorted(table.column("id").to_pylist())


def test_namespaces(module_server):
    catalog = catalog_for(module_server)
    catalog.create_namespace("ns_a", {"owner": "team"})
    catalog.create_namespace(("ns_a", "child"))
    with pytest.raises(NamespaceAlreadyExistsError):
        catalog.create_namespace("ns_a")
    assert ("ns_a",) in catalog.list_namespaces()
    assert catalog.list_namespaces("ns_a") == [("ns_a", "child")]
    assert catalog.load_namespace_properties("ns_a")["owner"] == "team"
    summary = catalog.update_namespace_properties("ns_a", removals={"owner", "nope"}, updates={"k": "v"})
    assert summary.removed == ["owner"] and summary.updated == ["k"] and summary.missing == ["nope"]
    assert catalog.namespace_exists("ns_a") and not catalog.namespace_exists("ns_zzz")
    with pytest.raises(NamespaceNotEmptyError):
        catalog.drop_namespace("ns_a")
    catalog.drop_namespace(("ns_a", "child"))
    catalog.drop_namespace("ns_a")
    with pytest.raises(NoSuchNamespaceError):
        catalog.load_namespace_properties("ns_a")


def test_table_lifecycle(module_server):
    catalog = catalog_for(module_server)
    catalog.create_namespace("life")
    with pytest.raises(NoSuchNamespaceError):
        catalog.create_table("missing.t", SCHEMA)
    table = catalog.create_table("life.events", SCHEMA, partition_spec=SPEC,
                                 properties={"write.metadata.previous-versions-max": "50"})
    with pytest.raises(TableAlreadyExistsError):
        catalog.create_table("life.events", SCHEMA)
    assert catalog.table_exists("life.events")
    assert ("life", "events") in catalog.list_tables("life")

    # Several appends, each a snapshot.
    table.append(rows(0, 20))
    first_snapshot = table.current_snapshot().snapshot_id
    table.append(rows(100, 20, city="bergen"))
    table.append(rows(200, 10, city="tromso"))
    table = catalog.load_table("life.events")
    assert len(table.history()) == 3
    assert sorted_ids(table.scan().to_arrow()) == list(range(20)) + list(range(100, 120)) + list(range(200, 210))

    # Time travel by snapshot id.
    assert sorted_ids(table.scan(snapshot_id=first_snapshot).to_arrow()) == list(range(20))

    # Delete with a filter, then overwrite everything.
    table.delete(GreaterThanOrEqual("id", 200))
    table = catalog.load_table("life.events")
    assert sorted_ids(table.scan().to_arrow()) == list(range(20)) + list(range(100, 120))
    table.overwrite(rows(500, 5))
    table = catalog.load_table("life.events")
    back = table.scan().to_arrow()
    assert sorted_ids(back) == list(range(500, 505))
    assert back.sort_by("id").column("city").to_pylist() == rows(500, 5).column("city").to_pylist()

    # Schema evolution: add, rename, drop.
    with table.update_schema() as update:
        update.add_column("score", LongType())
    with table.update_schema() as update:
        update.rename_column("city", "place")
    with table.update_schema() as update:
        update.delete_column("score")
    table = catalog.load_table("life.events")
    assert [f.name for f in table.schema().fields] == ["id", "place", "ts"]
    assert len(table.schemas()) == 4
    assert table.scan().to_arrow().column("place").to_pylist() != []
    # Rows written before the rename read back under the new name.
    assert sorted(table.scan(row_filter=EqualTo("id", 500)).to_arrow().column("place").to_pylist()) == ["oslo-0"]

    # Rename across namespaces, then drop and purge.
    catalog.create_namespace("archive")
    catalog.rename_table("life.events", "archive.events")
    assert not catalog.table_exists("life.events")
    moved = catalog.load_table("archive.events")
    assert sorted_ids(moved.scan().to_arrow()) == list(range(500, 505))
    location = pathlib.Path(moved.location().removeprefix("file://"))
    data_files = list(location.rglob("*.parquet"))
    assert data_files
    catalog.purge_table("archive.events")
    with pytest.raises(NoSuchTableError):
        catalog.load_table("archive.events")
    assert not any(f.exists() for f in data_files)
    assert not (location / "metadata").exists()


def test_concurrent_appends_rebase_and_retry(module_server):
    catalog = catalog_for(module_server)
    catalog.create_namespace("race")
    catalog.create_table("race.t", SCHEMA)
    a = catalog.load_table("race.t")
    b = catalog.load_table("race.t")
    a.append(rows(0, 3))
    # b's view is stale: skade answers 409 (its requirement on main fails) and
    # PyIceberg refreshes, rebuilds its snapshot on the new parent and retries.
    b.append(rows(10, 3))
    table = catalog.load_table("race.t")
    assert sorted_ids(table.scan().to_arrow()) == [0, 1, 2, 10, 11, 12]
    assert len(table.history()) == 2
    # A stale requirement without a client retry surfaces as CommitFailedException.
    stale = catalog.load_table("race.t")
    table.update_schema().add_column("extra", LongType()).commit()
    with pytest.raises(CommitFailedException):
        stale.update_schema().add_column("other", LongType()).commit()


def test_no_table_can_take_another_tables_files(module_server):
    # A table given the directory of another's files (or of its namespace)
    # would delete them when purged: PyIceberg gets a 403 and nothing is made.
    catalog = catalog_for(module_server)
    catalog.create_namespace("owned")
    victim = catalog.create_table("owned.victim", SCHEMA)
    victim.append(rows(0, 10))
    namespace_directory = victim.location().rsplit("/", 1)[0]
    for location in (victim.location(), victim.location() + "/data", namespace_directory):
        with pytest.raises(ForbiddenError, match="overlaps"):
            catalog.create_table("owned.evil", SCHEMA, location=location)
        with pytest.raises(ForbiddenError, match="overlaps"):
            catalog.create_table("owned.evil", SCHEMA, properties={"write.data.path": location})
    assert not catalog.table_exists("owned.evil")
    with pytest.raises(ForbiddenError):
        catalog.register_table("owned.copy", victim.metadata_location)

    # A purge of a table beside it leaves the victim whole.
    beside = catalog.create_table("owned.beside", SCHEMA, location=victim.location() + "-beside")
    beside.append(rows(100, 5))
    catalog.purge_table("owned.beside")
    assert sorted_ids(catalog.load_table("owned.victim").scan().to_arrow()) == list(range(10))


def test_errors_are_typed(module_server):
    catalog = catalog_for(module_server)
    with pytest.raises(NoSuchTableError):
        catalog.load_table("nope.nope")
    with pytest.raises(NoSuchTableError):
        catalog.drop_table("nope.nope")
    with pytest.raises(NoSuchNamespaceError):
        catalog.list_tables("nope")
