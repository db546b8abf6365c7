// What each durability level keeps across a power loss, proved with a
// FileIO that drops every file whose data or directory entry was not synced
// (testing/fault_injection_file_io.h) and real appends: data files, a
// manifest and a manifest list per commit, written through the catalog's
// FileIO as table::Table and ingest do.
//
// The store's side of a power loss is modelled by snapshots: at eventual and
// none LMDB runs with MDB_NOSYNC, so after a power loss the store is taken
// to be exactly what it was at its last sync — the test copies the data file
// right after each successful Flush() (eventual) or clean close (none), with
// no commit running, and puts that copy back at the simulated power loss (no
// copy yet: the store is lost). At immediate every commit syncs the store,
// so it is kept as is. What this does not model: the OS writing back store
// pages before a flush (a pointer could then name a lost file; durability.h
// documents that eventual may need recovery), and torn LMDB pages.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/spec/table_locations.h"
#include "skade/table/fast_append.h"
#include "skade/table/snapshot_scan.h"
#include "skade/table/table.h"
#include "skade/util/strings.h"
#include "testing/fault_injection_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

namespace fs = std::filesystem;
using testing::FaultInjectionFileIO;
using testing::IsError;
using testing::IsOk;

const TableIdentifier kTable{{"db"}, "events"};

class FaultInjectionTest : public ::testing::Test {
 protected:
  // Opens the catalog on a fresh FaultInjectionFileIO ("boots the machine").
  void Boot(store::Durability durability) {
    durability_ = durability;
    io_ = std::make_shared<FaultInjectionFileIO>();
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.durability = durability;
    options.flush_interval_ms = 3600 * 1000;  // rounds only when the test says
    options.store_map_size = 1ull << 30;
    options.file_io = io_;
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  std::string StoreFile() const { return dir_.Sub("warehouse/.skade/catalog/data.mdb"); }
  std::string StoreSnapshot() const { return dir_.Sub("store-as-synced.mdb"); }

  // Call only right after the store was synced, with no commit running.
  void SnapshotStore() {
    std::error_code ec;
    fs::copy_file(StoreFile(), StoreSnapshot(), fs::copy_options::overwrite_existing, ec);
    ASSERT_FALSE(ec) << ec.message();
  }

  // A flush round, then the store as it synced.
  void FlushAndSnapshot() {
    ASSERT_THAT(catalog_->Flush(), IsOk());
    SnapshotStore();
  }

  // The catalog's clean close (destructor), then the store as it synced.
  void CloseAndSnapshot() {
    catalog_.reset();
    SnapshotStore();
  }

  // Loses what was not durable, then the catalog goes away (its last
  // attempts to sync fail: the FileIO is dead). Returns the lost paths.
  std::vector<std::string> PowerLoss() {
    auto lost = io_->SimulatePowerLoss();
    catalog_.reset();
    if (durability_ != store::Durability::kImmediate) {
      std::error_code ec;
      fs::remove(dir_.Sub("warehouse/.skade/catalog/lock.mdb"), ec);
      if (fs::exists(StoreSnapshot())) {
        fs::copy_file(StoreSnapshot(), StoreFile(), fs::copy_options::overwrite_existing, ec);
        EXPECT_FALSE(ec) << ec.message();
      } else {
        fs::remove(StoreFile(), ec);
      }
    }
    return lost;
  }

  bool durable_files() const { return durability_ == store::Durability::kImmediate; }

  void CreateTable() {
    ASSERT_THAT(catalog_->CreateNamespace(kTable.ns, {}), IsOk());
    CreateTableRequest request;
    request.name = kTable.name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    ASSERT_TRUE(catalog_->CreateTable(kTable.ns, request));
  }

  // One append of two real data files; returns the snapshot id.
  int64_t Append() {
    auto table = table::Table::Load(catalog_, catalog_->file_io_ptr(), kTable, durable_files());
    EXPECT_TRUE(table) << table.error().ToString();
    if (!table) return -1;
    table::FastAppend append(*table);
    for (int i = 0; i < 2; ++i) {
      spec::DataFile file;
      file.file_path = spec::DataFileLocation(table->metadata(), "",
                                              StrCat("part-", ++files_written_, ".parquet"));
      std::string bytes = StrCat("rows of ", file.file_path);
      // As ingest writes them: through the table's FileIO, durable as the
      // table says.
      EXPECT_THAT(table->io().WriteFile(file.file_path, bytes, table->durable_files()), IsOk());
      file.record_count = 1;
      file.file_size_in_bytes = static_cast<int64_t>(bytes.size());
      file.spec_id = table->metadata().default_spec_id;
      append.AppendFile(std::move(file));
    }
    auto committed = append.Commit();
    EXPECT_TRUE(committed) << committed.error().ToString();
    if (!committed) return -1;
    return committed->metadata().current_snapshot_id.value_or(-1);
  }

  // The snapshot ids of the table now, or empty when it does not exist;
  // fails the test unless the pointer names a complete metadata file whose
  // every snapshot's manifest list, manifests and data files exist.
  std::set<int64_t> CheckTable() {
    std::set<int64_t> ids;
    auto exists = catalog_->TableExists(kTable);
    EXPECT_TRUE(exists) << exists.error().ToString();
    if (!exists || !*exists) return ids;
    auto table = table::Table::Load(catalog_, catalog_->file_io_ptr(), kTable);
    EXPECT_TRUE(table) << table.error().ToString();
    if (!table) return ids;
    for (const auto& snapshot : table->metadata().snapshots) {
      ids.insert(snapshot->snapshot_id);
      auto entries = table::LiveEntries(*table, *snapshot);
      EXPECT_TRUE(entries) << "snapshot " << snapshot->snapshot_id << ": "
                           << entries.error().ToString();
      if (!entries) continue;
      for (const auto& entry : *entries) {
        auto size = catalog_->file_io().FileSize(entry.data_file.file_path);
        EXPECT_TRUE(size) << size.error().ToString();
        if (size) {
          EXPECT_EQ(*size, entry.data_file.file_size_in_bytes);
        }
      }
    }
    return ids;
  }

  testing::TempDir dir_;
  store::Durability durability_ = store::Durability::kImmediate;
  std::shared_ptr<FaultInjectionFileIO> io_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
  int files_written_ = 0;
};

TEST_F(FaultInjectionTest, ImmediateKeepsEveryAcknowledgedCommit) {
  Boot(store::Durability::kImmediate);
  CreateTable();
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 5; ++i) acknowledged.insert(Append());
  // Nothing was left unsynced but what the store journals with each commit
  // (journal_fault_injection_test.cc): the metadata files, and the manifests
  // and manifest lists the table handed over unsynced. The data files (the
  // caller's, written durably), their directories and the store were synced;
  // the metadata directory, which only journaled files were written to, is
  // lost with them.
  auto lost = PowerLoss();
  EXPECT_FALSE(lost.empty());
  for (const auto& path : lost) {
    EXPECT_TRUE(path.ends_with(".metadata.json") || path.ends_with(".avro") ||
                path.ends_with("/metadata"))
        << path;
  }

  Boot(store::Durability::kImmediate);
  EXPECT_EQ(CheckTable(), acknowledged);
}

TEST_F(FaultInjectionTest, EventualKeepsCommitsBeforeTheLastFlush) {
  Boot(store::Durability::kEventual);
  CreateTable();
  std::set<int64_t> flushed;
  for (int i = 0; i < 3; ++i) flushed.insert(Append());
  FlushAndSnapshot();
  for (int i = 0; i < 3; ++i) Append();
  // The commits after the flush lose their files: the model bites.
  EXPECT_FALSE(PowerLoss().empty());

  Boot(store::Durability::kEventual);
  EXPECT_EQ(CheckTable(), flushed);
  // And the table goes on from there.
  int64_t next = Append();
  flushed.insert(next);
  EXPECT_EQ(CheckTable(), flushed);
}

TEST_F(FaultInjectionTest, EventualFlushMakesEveryFileAndDirectoryDurable) {
  Boot(store::Durability::kEventual);
  CreateTable();
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 3; ++i) acknowledged.insert(Append());
  FlushAndSnapshot();
  // Metadata files, manifests, manifest lists, data files and every new
  // directory above them.
  EXPECT_TRUE(PowerLoss().empty());

  Boot(store::Durability::kEventual);
  EXPECT_EQ(CheckTable(), acknowledged);
}

// A commit acknowledged while a round syncs files is in the store the
// round syncs; its files must be synced by that round too.
TEST_F(FaultInjectionTest, EventualCommitDuringAFlushRoundIsWhollyDurable) {
  Boot(store::Durability::kEventual);
  CreateTable();
  std::set<int64_t> acknowledged;
  acknowledged.insert(Append());
  io_->RunAtNextSync([&] { acknowledged.insert(Append()); });
  FlushAndSnapshot();
  EXPECT_EQ(acknowledged.size(), 2u);
  EXPECT_TRUE(PowerLoss().empty());

  Boot(store::Durability::kEventual);
  EXPECT_EQ(CheckTable(), acknowledged);
}

TEST_F(FaultInjectionTest, EventualRetriesFailedSyncs) {
  Boot(store::Durability::kEventual);
  CreateTable();
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 2; ++i) acknowledged.insert(Append());
  io_->FailSyncs(true);
  EXPECT_THAT(catalog_->Flush(), IsError(ErrorKind::kIo));
  io_->FailSyncs(false);
  // The files of the failed round were kept for this one.
  FlushAndSnapshot();
  EXPECT_TRUE(PowerLoss().empty());

  Boot(store::Durability::kEventual);
  EXPECT_EQ(CheckTable(), acknowledged);
}

TEST_F(FaultInjectionTest, EventualWithoutAFlushLosesTheStoreButNoPointerDangles) {
  Boot(store::Durability::kEventual);
  CreateTable();
  Append();
  PowerLoss();

  Boot(store::Durability::kEventual);
  EXPECT_TRUE(CheckTable().empty());
}

TEST_F(FaultInjectionTest, NoneKeepsWhatTheLastCleanCloseHad) {
  Boot(store::Durability::kNone);
  CreateTable();
  std::set<int64_t> closed;
  for (int i = 0; i < 3; ++i) closed.insert(Append());
  auto io = io_;
  CloseAndSnapshot();
  // The clean close synced every file written since open and their
  // directories (then the store).
  EXPECT_TRUE(io->SimulatePowerLoss().empty());

  Boot(store::Durability::kNone);
  EXPECT_EQ(CheckTable(), closed);
  for (int i = 0; i < 3; ++i) Append();
  EXPECT_FALSE(PowerLoss().empty());

  Boot(store::Durability::kNone);
  EXPECT_EQ(CheckTable(), closed);
}

}  // namespace
}  // namespace skade::catalog
