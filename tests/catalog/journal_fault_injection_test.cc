// Power loss at durability=immediate with the metadata-file journal: a
// commit's metadata file is written without sync and its bytes ride in the
// store's transaction with the pointer swap; the flusher syncs and releases
// them later, and opening the catalog restores what a power loss took
// (catalog/journal_recovery.h). Proved with the FileIO of
// testing/fault_injection_file_io.h, which deletes every file whose data or
// directory entry was not synced, at arbitrary moments: while many threads
// commit to several tables and to one table, in the middle of a flush
// round, and with files torn on disk. The store at immediate syncs every
// commit, so it is kept as it is (as in fault_injection_test.cc).
//
// Every check reopens the warehouse on a fresh FileIO ("boots") and requires
// that each acknowledged commit is there and that every pointer names a
// complete, parseable metadata file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/catalog/metadata_files.h"
#include "skade/io/location.h"
#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"
#include "testing/fast_append.h"
#include "testing/fault_injection_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

namespace fs = std::filesystem;
using testing::FaultInjectionFileIO;
using testing::IsOk;

class JournalFaultInjectionTest : public ::testing::Test {
 protected:
  // Opens the catalog on a fresh FaultInjectionFileIO ("boots the machine").
  void Boot() {
    io_ = std::make_shared<FaultInjectionFileIO>();
    auto opened = EmbeddedCatalog::Open(Options());
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  EmbeddedCatalogOptions Options() {
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub(warehouse_);
    options.durability = store::Durability::kImmediate;
    options.flush_interval_ms = 3600 * 1000;  // rounds only when the test says
    options.store_map_size = 1ull << 30;
    options.file_io = io_;
    return options;
  }

  // Loses what was not durable, then the catalog goes away (its last
  // attempts to sync fail: the FileIO is dead). Returns the lost paths.
  std::vector<std::string> PowerLoss() {
    auto lost = io_->SimulatePowerLoss();
    catalog_.reset();
    return lost;
  }

  void CreateTable(const TableIdentifier& id, const Properties& properties = {}) {
    auto ns = catalog_->NamespaceExists(id.ns);
    ASSERT_THAT(ns, IsOk());
    if (!*ns) {
      ASSERT_THAT(catalog_->CreateNamespace(id.ns, {}), IsOk());
    }
    CreateTableRequest request;
    request.name = id.name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    request.properties = properties;
    auto created = catalog_->CreateTable(id.ns, request);
    ASSERT_TRUE(created) << created.error().ToString();
  }

  int64_t Append(const TableIdentifier& id) {
    auto snapshot_id = testing::FastAppend(*catalog_, id);
    EXPECT_TRUE(snapshot_id) << snapshot_id.error().ToString();
    return snapshot_id.value_or(-1);
  }

  // The table's snapshot ids; fails the test unless its pointer names a
  // complete metadata file (read from disk, not from a cache) whose history
  // is one chain.
  std::set<int64_t> CheckTable(const TableIdentifier& id) {
    std::set<int64_t> ids;
    auto record = catalog_->store().GetTable(id);
    EXPECT_TRUE(record && *record) << id.ToString();
    if (!record || !*record) return ids;
    auto file = ReadMetadataFile(*io_, (*record)->metadata_location);
    EXPECT_TRUE(file) << file.error().ToString();
    if (!file) return ids;
    const auto& metadata = *file->metadata;
    for (const auto& snapshot : metadata.snapshots) ids.insert(snapshot->snapshot_id);
    size_t chain = 0;
    for (auto s = metadata.CurrentSnapshot(); s;
         s = s->parent_snapshot_id ? metadata.SnapshotById(*s->parent_snapshot_id) : nullptr) {
      ++chain;
    }
    EXPECT_EQ(chain, metadata.snapshots.size()) << id.ToString();
    return ids;
  }

  // Every acknowledged snapshot is in the table.
  void ExpectAll(const TableIdentifier& id, const std::set<int64_t>& acknowledged) {
    auto ids = CheckTable(id);
    for (int64_t ack : acknowledged) {
      EXPECT_EQ(ids.count(ack), 1u) << id.ToString() << " lost acknowledged snapshot " << ack;
    }
  }

  std::vector<store::JournaledFile> Journal() {
    auto files = catalog_->store().ReadJournaledFiles();
    EXPECT_THAT(files, IsOk());
    return files.value_or(std::vector<store::JournaledFile>{});
  }

  static bool IsMetadataFile(const std::string& path) { return path.ends_with(".metadata.json"); }

  testing::TempDir dir_;
  std::string warehouse_ = "warehouse";  // in dir_
  std::shared_ptr<FaultInjectionFileIO> io_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
};

const TableIdentifier kTable{{"db"}, "events"};

TEST_F(JournalFaultInjectionTest, PowerLossTakesUnflushedMetadataFilesAndOpenRestoresThem) {
  Boot();
  CreateTable(kTable);
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 5; ++i) acknowledged.insert(Append(kTable));
  auto journal = Journal();
  EXPECT_EQ(journal.size(), 6u);  // the create and five appends
  // Each append's file is kept as its difference from the one before.
  EXPECT_EQ(std::count_if(journal.begin(), journal.end(),
                          [](const store::JournaledFile& file) { return file.delta.has_value(); }),
            5);
  auto lost = PowerLoss();
  // The model bites: the metadata files (and the table's new directories)
  // were never synced; nothing else was left unsynced.
  ASSERT_FALSE(lost.empty());
  size_t metadata_files = 0;
  for (const auto& path : lost) {
    if (IsMetadataFile(path)) ++metadata_files;
  }
  EXPECT_GE(metadata_files, 1u);

  Boot();
  EXPECT_EQ(CheckTable(kTable), acknowledged);
  EXPECT_TRUE(Journal().empty()) << "recovery releases what it restored";
  // Restored durably: a second power loss right away loses nothing.
  EXPECT_TRUE(PowerLoss().empty());
  Boot();
  EXPECT_EQ(CheckTable(kTable), acknowledged);
  // And the table goes on from there.
  acknowledged.insert(Append(kTable));
  EXPECT_EQ(CheckTable(kTable), acknowledged);
}

TEST_F(JournalFaultInjectionTest, FlushMakesJournaledFilesDurableAndReleasesThem) {
  Boot();
  CreateTable(kTable);
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 3; ++i) acknowledged.insert(Append(kTable));
  ASSERT_THAT(catalog_->Flush(), IsOk());
  EXPECT_TRUE(Journal().empty());
  EXPECT_TRUE(PowerLoss().empty());

  Boot();
  EXPECT_EQ(CheckTable(kTable), acknowledged);
}

// A file kept as its difference from a base whose entry was released is
// restored from the base file on disk (durable since that release); a base
// that is gone by then (deleted by hand) fails the open and says which file
// it could not restore, rather than serving a table without its commit.
TEST_F(JournalFaultInjectionTest, DifferencesAreRestoredFromDurableBases) {
  Boot();
  CreateTable(kTable);
  std::set<int64_t> acknowledged;
  acknowledged.insert(Append(kTable));
  ASSERT_THAT(catalog_->Flush(), IsOk());
  auto base = catalog_->store().GetTable(kTable);
  ASSERT_TRUE(base && *base);
  const std::string base_location = (*base)->metadata_location;
  acknowledged.insert(Append(kTable));
  acknowledged.insert(Append(kTable));
  auto journal = Journal();
  ASSERT_EQ(journal.size(), 2u);
  ASSERT_TRUE(journal[0].delta);
  EXPECT_EQ(journal[0].base->location, base_location);
  auto lost = PowerLoss();
  EXPECT_EQ(std::count_if(lost.begin(), lost.end(), IsMetadataFile), 2);

  // Once with the base deleted behind the catalog's back, then with it.
  const std::string base_path = *io::LocalPath(base_location);
  const std::string saved = base_path + ".saved";
  fs::rename(base_path, saved);
  io_ = std::make_shared<FaultInjectionFileIO>();
  auto refused = EmbeddedCatalog::Open(Options());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kCorruption);
  EXPECT_NE(refused.error().message.find(base_location), std::string::npos)
      << refused.error().message;
  fs::rename(saved, base_path);

  Boot();
  EXPECT_EQ(CheckTable(kTable), acknowledged);
  EXPECT_TRUE(Journal().empty());
  EXPECT_TRUE(PowerLoss().empty());
}

// A failed round releases nothing: the files it could not sync stay
// journaled, and are retried.
TEST_F(JournalFaultInjectionTest, FailedFlushKeepsTheJournalAndRetries) {
  Boot();
  CreateTable(kTable);
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 2; ++i) acknowledged.insert(Append(kTable));
  io_->FailSyncs(true);
  EXPECT_FALSE(catalog_->Flush());
  EXPECT_EQ(Journal().size(), 3u);
  io_->FailSyncs(false);
  ASSERT_THAT(catalog_->Flush(), IsOk());
  EXPECT_TRUE(Journal().empty());
  EXPECT_TRUE(PowerLoss().empty());

  Boot();
  EXPECT_EQ(CheckTable(kTable), acknowledged);
}

// Power fails at the k-th sync of a flush round (so after some files synced
// and before their directories, or after the directories and before the
// release), while a commit lands in the middle of the round.
TEST_F(JournalFaultInjectionTest, PowerLossInTheMiddleOfAFlushRound) {
  for (int k = 1; k <= 4; ++k) {
    SCOPED_TRACE(StrCat("power loss at sync ", k));
    warehouse_ = StrCat("warehouse-", k);
    Boot();
    CreateTable(kTable);
    std::set<int64_t> acknowledged;
    for (int i = 0; i < 3; ++i) acknowledged.insert(Append(kTable));
    std::function<void(int)> arm = [&](int remaining) {
      io_->RunAtNextSync([&, remaining] {
        if (remaining > 1) {
          arm(remaining - 1);
          return;
        }
        // A commit acknowledged during the round, then the power goes.
        acknowledged.insert(Append(kTable));
        io_->SimulatePowerLoss();
      });
    };
    arm(k);
    EXPECT_FALSE(catalog_->Flush());  // the power went
    catalog_.reset();

    Boot();
    EXPECT_EQ(CheckTable(kTable), acknowledged);
    catalog_.reset();
  }
}

// Many committers — each on its own table, and several on one table — and
// the power goes at an arbitrary moment, sometimes while a flush round runs.
TEST_F(JournalFaultInjectionTest, ConcurrentCommittersLoseNothingAcknowledgedAtAnyPowerLoss) {
  const std::vector<TableIdentifier> tables = {{{"db"}, "own_0"},
                                               {{"db"}, "own_1"},
                                               {{"db"}, "own_2"},
                                               {{"db"}, "own_3"},
                                               {{"db"}, "shared"}};
  constexpr int kOwnCommitters = 4;
  constexpr int kSharedCommitters = 3;
  constexpr int kTrials = 8;
  std::mt19937 random(20261201);
  for (int trial = 0; trial < kTrials; ++trial) {
    SCOPED_TRACE(StrCat("trial ", trial));
    warehouse_ = StrCat("warehouse-", trial);
    Boot();
    for (const auto& id : tables) CreateTable(id);
    std::mutex mutex;
    std::map<std::string, std::set<int64_t>> acknowledged;
    std::atomic<bool> stop{false};
    auto committer = [&](const TableIdentifier& id) {
      while (!stop) {
        auto snapshot_id = testing::FastAppend(*catalog_, id);
        if (!snapshot_id) break;  // the power went
        std::lock_guard<std::mutex> lock(mutex);
        acknowledged[id.ToString()].insert(*snapshot_id);
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kOwnCommitters; ++t) threads.emplace_back(committer, tables[t]);
    for (int t = 0; t < kSharedCommitters; ++t) threads.emplace_back(committer, tables.back());
    bool during_flush = trial % 2 == 1;
    // A round now and then, as the flusher's thread runs them.
    std::thread flusher([&, seed = random()] {
      std::mt19937 pause(seed);
      while (!stop) {
        (void)catalog_->Flush();
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + pause() % 10));
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + random() % 120));
    // However slowly a loaded machine starts the threads, the power goes
    // after some commit was acknowledged (bounded, should none ever be).
    for (int waited_ms = 0; waited_ms < 30'000; ++waited_ms) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (!acknowledged.empty()) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (during_flush) {
      std::atomic<bool> lost{false};
      io_->RunAtNextSync([&] {
        io_->SimulatePowerLoss();
        lost = true;
      });
      while (!lost) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else {
      io_->SimulatePowerLoss();
    }
    stop = true;
    for (auto& thread : threads) thread.join();
    flusher.join();
    catalog_.reset();

    Boot();
    size_t total = 0;
    for (const auto& id : tables) {
      ExpectAll(id, acknowledged[id.ToString()]);
      total += acknowledged[id.ToString()].size();
    }
    EXPECT_GT(total, 0u);
    EXPECT_TRUE(Journal().empty());
    catalog_.reset();
  }
}

// Files found torn on disk — truncated, garbled, emptied — or missing are
// rewritten from the journal with exactly the journaled bytes.
TEST_F(JournalFaultInjectionTest, TornFilesAreRewrittenFromTheJournal) {
  Boot();
  CreateTable(kTable);
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 4; ++i) acknowledged.insert(Append(kTable));
  auto journal = Journal();
  ASSERT_EQ(journal.size(), 5u);
  // The catalog goes away without a successful round: the entries stay.
  io_->FailSyncs(true);
  catalog_.reset();

  auto path = [](const store::JournaledFile& file) { return *io::LocalPath(file.location); };
  fs::resize_file(path(journal[4]), journal[4].size() / 2);
  {
    std::ofstream garble(path(journal[3]), std::ios::binary | std::ios::trunc);
    garble << std::string(journal[3].size(), 'x');
  }
  fs::resize_file(path(journal[2]), 0);
  fs::remove(path(journal[1]));

  Boot();
  for (const auto& file : journal) {
    auto bytes = io_->ReadFile(file.location);
    ASSERT_THAT(bytes, IsOk());
    EXPECT_TRUE(store::Holds(file, *bytes)) << file.location;
  }
  EXPECT_EQ(CheckTable(kTable), acknowledged);
  EXPECT_TRUE(Journal().empty());
  // Rewritten durably.
  EXPECT_TRUE(PowerLoss().empty());
}

// Files the catalog deletes on purpose — metadata cleanup after a commit, a
// purging drop — do not come back at the next open.
TEST_F(JournalFaultInjectionTest, DeliberatelyDeletedFilesStayDeleted) {
  Boot();
  TableIdentifier cleaned{{"db"}, "cleaned"};
  TableIdentifier purged{{"db"}, "purged"};
  CreateTable(cleaned,
              {{spec::kDeleteAfterCommitEnabled, "true"}, {spec::kPreviousVersionsMax, "1"}});
  CreateTable(purged);
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 4; ++i) {
    acknowledged.insert(Append(cleaned));
    Append(purged);
  }
  auto purged_location = catalog_->LoadTable(purged)->metadata->location;
  ASSERT_THAT(catalog_->DropTable(purged, /*purge=*/true), IsOk());
  PowerLoss();

  Boot();
  EXPECT_EQ(CheckTable(cleaned), acknowledged);
  auto cleaned_metadata = catalog_->LoadTable(cleaned);
  ASSERT_THAT(cleaned_metadata, IsOk());
  std::string metadata_dir = *io::LocalPath(cleaned_metadata->metadata->location + "/metadata");
  std::set<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(metadata_dir)) {
    if (IsMetadataFile(entry.path().string())) on_disk.insert(entry.path().string());
  }
  // The current file and the one the log keeps (previous-versions-max 1).
  EXPECT_EQ(on_disk.size(), 2u);
  EXPECT_FALSE(fs::exists(*io::LocalPath(purged_location + "/metadata")));
  EXPECT_TRUE(Journal().empty());
}

// A second catalog opening the warehouse while the first commits (as another
// process would) finds the first one's journaled files complete: it syncs
// and releases them and rewrites nothing, and the first goes on.
TEST_F(JournalFaultInjectionTest, RecoveryWhileAnotherCatalogCommitsIsHarmless) {
  Boot();
  CreateTable(kTable);
  std::set<int64_t> acknowledged;
  for (int i = 0; i < 3; ++i) acknowledged.insert(Append(kTable));
  auto journal = Journal();
  ASSERT_EQ(journal.size(), 4u);
  auto inode = [](const std::string& location) {
    struct stat st {};
    EXPECT_EQ(::stat(io::LocalPath(location)->c_str(), &st), 0) << location;
    return st.st_ino;
  };
  std::map<std::string, ino_t> inodes;
  for (const auto& file : journal) inodes[file.location] = inode(file.location);
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::thread committer([&] {
    while (!stop) {
      int64_t id = Append(kTable);
      std::lock_guard<std::mutex> lock(mutex);
      acknowledged.insert(id);
    }
  });
  for (int i = 0; i < 3; ++i) {
    auto second = EmbeddedCatalog::Open(Options());
    ASSERT_THAT(second, IsOk());
    // What was acknowledged before the table is read must be in it.
    std::set<int64_t> so_far;
    {
      std::lock_guard<std::mutex> lock(mutex);
      so_far = acknowledged;
    }
    ExpectAll(kTable, so_far);
  }
  stop = true;
  committer.join();
  // Nothing was rewritten under the first catalog (the files are the same
  // inodes with the same bytes), and the first's own round still works.
  for (const auto& file : journal) {
    EXPECT_TRUE(store::Holds(file, *io_->ReadFile(file.location)));
    EXPECT_EQ(inode(file.location), inodes[file.location]) << file.location << " was rewritten";
  }
  ASSERT_THAT(catalog_->Flush(), IsOk());
  EXPECT_TRUE(Journal().empty());
  EXPECT_TRUE(PowerLoss().empty());

  Boot();
  EXPECT_EQ(CheckTable(kTable), acknowledged);
}

}  // namespace
}  // namespace skade::catalog
