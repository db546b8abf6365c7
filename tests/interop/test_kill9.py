"""kill -9 of `skade serve` at random moments under concurrent PyIceberg commits.

Each round starts the server on the same warehouse, lets several real
PyIceberg writers append to one shared table and to their own tables, kills
the server with SIGKILL at a random moment, restarts it and checks: every
acknowledged commit is present, nothing appears that no writer attempted,
every table loads (its pointer names a complete metadata file) and scans (its
manifest lists, manifests and data files exist), and the server serves
again — on a local warehouse, and on one in a MinIO bucket (store local). `make test` runs a few
rounds; `make test-long` (SKADE_LONG_TESTS=1)
runs at least 20 per durability level."""
import os
import random
import signal
import threading
import time

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from conftest import SkadeServer
from s3_fixtures import S3Warehouse

LONG = os.environ.get("SKADE_LONG_TESTS") == "1"
ROUNDS = 20 if LONG else 3
WRITERS = 4
SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "writer", LongType(), required=True))


def batch(writer, first, count):
    return pa.table({"id": pa.array(range(first, first + count), pa.int64()),
                     "writer": pa.array([writer] * count, pa.int64())},
                    schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                      pa.field("writer", pa.int64(), nullable=False)]))


class Writer(threading.Thread):
    """Appends batches of unique ids until the server goes away. `acked` holds
    ids of appends the server acknowledged, `attempted` every id sent."""

    def __init__(self, uri, index, round_number, acked, attempted):
        super().__init__(daemon=True)
        self.uri, self.index = uri, index
        self.next_id = (round_number * 1000 + index) * 1_000_000
        self.acked, self.attempted = acked, attempted

    def append(self, catalog, name, ids):
        table = catalog.load_table(name)
        while True:
            try:
                table.append(batch(self.index, ids.start, len(ids)))
                return
            except CommitFailedException:
                table = catalog.load_table(name)  # lost a race: rebase and retry

    def run(self):
        try:
            catalog = RestCatalog("skade", uri=self.uri)
            while True:
                for name in ("crash.shared", f"crash.own{self.index}"):
                    ids = range(self.next_id, self.next_id + 3)
                    self.next_id += 3
                    self.attempted.setdefault(name, set()).update(ids)
                    self.append(catalog, name, ids)
                    self.acked.setdefault(name, set()).update(ids)
        except Exception:  # the server was killed: this append's outcome is unknown
            return


def scanned_ids(catalog, name):
    ids = catalog.load_table(name).scan().to_arrow().column("id").to_pylist()
    assert len(ids) == len(set(ids)), f"{name}: an append landed twice"
    return set(ids)


@pytest.mark.parametrize("durability,storage",
                         [("immediate", "local"), ("eventual", "local"), ("immediate", "s3")])
def test_kill9_under_concurrent_pyiceberg_commits(bin_dir, tmp_path, request, durability, storage):
    acked, attempted = {}, {}
    rng = random.Random(int.from_bytes(os.urandom(4), "little"))
    if storage == "s3":
        # The warehouse in a MinIO bucket, the store local; writers get the keys vended.
        s3 = S3Warehouse(request.getfixturevalue("minio"), tmp_path, f"kill9-{durability}")

        def start():
            return SkadeServer(bin_dir, s3.uri, ["--durability", durability,
                                                 "--vend-credentials", "static"],
                               global_args=s3.options, env=s3.env,
                               log_path=tmp_path / "server.log")
    else:
        def start():
            return SkadeServer(bin_dir, tmp_path / "warehouse", ["--durability", durability])
    server = start()
    catalog = RestCatalog("skade", uri=server.uri)
    catalog.create_namespace("crash")
    for name in ["shared"] + [f"own{i}" for i in range(WRITERS)]:
        catalog.create_table(f"crash.{name}", SCHEMA)
    for round_number in range(ROUNDS):
        writers = [Writer(server.uri, i, round_number, acked, attempted) for i in range(WRITERS)]
        for writer in writers:
            writer.start()
        time.sleep(rng.uniform(0.3, 2.5))
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        server.stop()
        for writer in writers:
            writer.join(timeout=120)
            assert not writer.is_alive(), "a writer hung after the server died"

        server = start()
        catalog = RestCatalog("skade", uri=server.uri)
        for name in ["crash.shared"] + [f"crash.own{i}" for i in range(WRITERS)]:
            present = scanned_ids(catalog, name)
            missing = acked.get(name, set()) - present
            assert not missing, f"round {round_number}: {len(missing)} acknowledged ids lost in {name}"
            unknown = present - attempted.get(name, set())
            assert not unknown, f"round {round_number}: {name} has ids no writer sent"
            # What landed without an acknowledgement (the append in flight at the
            # kill) counts from now on as acknowledged: it must stay.
            acked.setdefault(name, set()).update(present)
    total = sum(len(ids) for ids in acked.values()) // 3
    print(f"{durability} on {storage}: {ROUNDS} kills, {total} appends acknowledged or recovered")
    assert total > 0, "no append was acknowledged in any round"
    assert server.stop() == 0
