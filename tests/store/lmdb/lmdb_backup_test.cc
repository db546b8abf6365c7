// LmdbCatalogStore::Backup: a copy of one read snapshot while writers go on,
// and CatalogStore::InUse, which a restore asks before it replaces a store.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "skade/store/table_key.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store::lmdb {
namespace {

using testing::IsError;
using testing::IsOk;

CatalogStoreOptions Options() {
  CatalogStoreOptions options;
  options.map_size = 1ull << 30;
  options.durability = Durability::kNone;
  return options;
}

spec::TableIdentifier Table(int i) { return {{"ns"}, StrCat("t", i)}; }

PointerSwap Swap(const spec::TableIdentifier& table, std::optional<std::string> expected,
                 std::string location) {
  PointerSwap swap;
  swap.identifier = table;
  swap.expected_location = std::move(expected);
  swap.new_location = std::move(location);
  return swap;
}

std::vector<std::pair<uint64_t, CommitLogRecord>> WholeLog(CatalogStore& store) {
  auto log = store.ReadCommitLog(0, 1'000'000);
  EXPECT_THAT(log, IsOk());
  return log.value_or(std::vector<std::pair<uint64_t, CommitLogRecord>>{});
}

// The copy at `location` is a state the store had: its log is the first
// commit_seq entries of `final_log`, and every pointer is where the last of
// those entries for its table left it.
void ExpectStateOfTheStore(const std::string& location,
                           const std::vector<std::pair<uint64_t, CommitLogRecord>>& final_log,
                           const std::map<uint64_t, std::string>& table_keys) {
  auto copy = CatalogStore::Open(location, Options());
  ASSERT_THAT(copy, IsOk());
  auto seq = (*copy)->CommitSeq();
  ASSERT_THAT(seq, IsOk());
  auto log = WholeLog(**copy);
  ASSERT_EQ(log.size(), *seq);
  ASSERT_LE(*seq, final_log.size());
  std::map<uint64_t, std::string> expected;  // table id → location
  for (size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i], final_log[i]) << "entry " << i;
    expected[log[i].second.table_id] = log[i].second.metadata_location;
  }
  auto pointers = (*copy)->ReadTablePointers();
  ASSERT_THAT(pointers, IsOk());
  std::map<uint64_t, std::string> actual;
  for (const auto& table : pointers->tables) {
    ASSERT_TRUE(table.record);
    EXPECT_EQ(table_keys.at(table.record->table_id), table.table_key);
    actual[table.record->table_id] = table.record->metadata_location;
  }
  EXPECT_EQ(actual, expected);
}

TEST(LmdbBackupTest, CopiesOneSnapshotWhileWritersCommit) {
  testing::TempDir dir;
  auto opened = CatalogStore::Open(dir.Sub("store"), Options());
  ASSERT_THAT(opened, IsOk());
  CatalogStore& store = **opened;
  ASSERT_THAT(store.CreateNamespace({"ns"}, {}), IsOk());
  constexpr int kWriters = 4;
  for (int i = 0; i < kWriters; ++i) {
    ASSERT_THAT(store.SwapPointers({Swap(Table(i), std::nullopt, StrCat("file:/w/t", i, "/0"))}),
                IsOk());
  }

  std::atomic<bool> stop = false;
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      std::string at = StrCat("file:/w/t", i, "/0");
      for (int n = 1; !stop.load(); ++n) {
        std::string next = StrCat("file:/w/t", i, "/", n);
        auto swapped = store.SwapPointers({Swap(Table(i), at, next)});
        ASSERT_THAT(swapped, IsOk());
        at = next;
      }
    });
  }
  std::vector<std::string> copies;
  std::vector<uint64_t> seqs_seen;
  for (int b = 0; b < 6; ++b) {
    std::string copy = dir.Sub(StrCat("copy", b));
    std::filesystem::create_directory(copy);
    auto backed_up = store.Backup(copy);
    ASSERT_THAT(backed_up, IsOk());
    copies.push_back(*backed_up);
    auto seq = store.CommitSeq();
    ASSERT_THAT(seq, IsOk());
    seqs_seen.push_back(*seq);
    // Let the writers commit before the next copy, however the threads are
    // scheduled: the copies are taken while the store moves.
    for (auto now = seq; *now == *seq; now = store.CommitSeq()) {
      ASSERT_THAT(now, IsOk());
      std::this_thread::yield();
    }
  }
  stop = true;
  for (auto& writer : writers) writer.join();

  std::map<uint64_t, std::string> table_keys;
  auto pointers = store.ReadTablePointers();
  ASSERT_THAT(pointers, IsOk());
  for (const auto& table : pointers->tables) table_keys[table.record->table_id] = table.table_key;
  auto final_log = WholeLog(store);
  for (const auto& copy : copies) ExpectStateOfTheStore(copy, final_log, table_keys);
  // The writers went on while the copies were taken: they are not all one state.
  EXPECT_LT(seqs_seen.front(), seqs_seen.back());
}

TEST(LmdbBackupTest, TheCopyStartsItsChangeVersionsAfresh) {
  testing::TempDir dir;
  auto store = CatalogStore::Open(dir.Sub("store"), Options());
  ASSERT_THAT(store, IsOk());
  ASSERT_THAT((*store)->CreateNamespace({"ns"}, {}), IsOk());
  for (int i = 0; i < 20; ++i) {
    ASSERT_THAT((*store)->SwapPointers({Swap(Table(i), std::nullopt, StrCat("file:/w/", i))}),
                IsOk());
  }
  std::filesystem::create_directory(dir.Sub("copy"));
  auto location = (*store)->Backup(dir.Sub("copy"));
  ASSERT_THAT(location, IsOk());
  auto copy = CatalogStore::Open(*location, Options());
  ASSERT_THAT(copy, IsOk());
  auto all = (*copy)->ReadTablePointers();
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->tables.size(), 20u);
  // One write to the copy: only its table is listed as changed since the
  // copy's version, never the tables the original's old versions named.
  ASSERT_THAT((*copy)->SwapPointers({Swap(Table(0), "file:/w/0", "file:/w/0b")}), IsOk());
  auto changed = (*copy)->ReadTablePointersChangedAfter(all->version);
  ASSERT_THAT(changed, IsOk());
  ASSERT_EQ(changed->tables.size(), 1u);
  EXPECT_EQ(changed->tables[0].table_key, TableKey(Table(0)));
  EXPECT_EQ(changed->tables[0].record->metadata_location, "file:/w/0b");
}

TEST(LmdbBackupTest, NeverWritesOverAStore) {
  testing::TempDir dir;
  auto store = CatalogStore::Open(dir.Sub("store"), Options());
  ASSERT_THAT(store, IsOk());
  auto other = CatalogStore::Open(dir.Sub("other"), Options());
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT((*store)->Backup(dir.Sub("other")), IsError(ErrorKind::kIo));
}

bool InUse(const std::string& location) {
  auto in_use = CatalogStore::InUse(location);
  EXPECT_THAT(in_use, IsOk());
  return in_use.value_or(false);
}

TEST(LmdbBackupTest, InUseWhileAnyInstanceIsOpen) {
  testing::TempDir dir;
  EXPECT_FALSE(InUse(dir.Sub("none")));
  {
    auto store = CatalogStore::Open(dir.Sub("store"), Options());
    ASSERT_THAT(store, IsOk());
    EXPECT_TRUE(InUse(dir.Sub("store")));
    EXPECT_TRUE(InUse("lmdb:" + dir.Sub("store")));
  }
  EXPECT_FALSE(InUse(dir.Sub("store")));
  EXPECT_THAT(CatalogStore::InUse("other:" + dir.Sub("store")), IsError(ErrorKind::kUnsupported));
}

}  // namespace
}  // namespace skade::store::lmdb
