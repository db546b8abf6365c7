// Group commit end to end: many threads committing to many tables through
// the catalog lose nothing, keep every table's history linear, and share
// store transactions when group commit is on.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "skade/util/strings.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsOk;

class GroupCommitCatalogTest : public ::testing::TestWithParam<bool> {};

// 16 threads x 100 fast appends, spread so that every table gets commits from
// many threads (same-table commits conflict and retry; different tables
// coalesce).
TEST_P(GroupCommitCatalogTest, SixteenThreadsTimesHundredCommitsOverSixteenTablesLoseNothing) {
  testing::TempDir dir;
  EmbeddedCatalogOptions options;
  options.warehouse = dir.path();
  options.store_map_size = 1ull << 30;
  options.group_commit = GetParam();
  // Immediate durability makes each store commit slow enough to coalesce.
  options.durability = store::Durability::kImmediate;
  // No flush round during the run: the store's transactions are the commits'.
  options.flush_interval_ms = 3600 * 1000;
  auto catalog = *EmbeddedCatalog::Open(options);
  ASSERT_THAT(catalog->CreateNamespace({"n"}, {}), IsOk());
  constexpr int kTables = 16;
  constexpr int kThreads = 16;
  constexpr int kCommits = 100;
  std::vector<TableIdentifier> ids;
  for (int i = 0; i < kTables; ++i) {
    ids.push_back({{"n"}, StrCat("t", i)});
    CreateTableRequest request;
    request.name = ids.back().name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    ASSERT_TRUE(catalog->CreateTable(ids.back().ns, request));
  }
  // The default store is LMDB: count its transactions.
  auto& lmdb_store = dynamic_cast<store::lmdb::LmdbCatalogStore&>(catalog->store());
  uint64_t txn_before = lmdb_store.env().LastTxnId();
  std::mutex mutex;
  std::vector<std::set<int64_t>> acknowledged(kTables);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommits; ++i) {
        int table = (t + i) % kTables;
        auto snapshot_id = testing::FastAppend(*catalog, ids[table]);
        ASSERT_TRUE(snapshot_id) << snapshot_id.error().ToString();
        std::lock_guard<std::mutex> lock(mutex);
        acknowledged[table].insert(*snapshot_id);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  uint64_t txns = lmdb_store.env().LastTxnId() - txn_before;

  size_t total = 0;
  for (int table = 0; table < kTables; ++table) {
    total += acknowledged[table].size();
    // Read back through a fresh catalog: what is durable, not what is cached.
    auto m = catalog->store().GetTable(ids[table]);
    ASSERT_TRUE(m && *m);
    auto loaded = catalog->LoadTable(ids[table]);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->metadata_location, (*m)->metadata_location);
    std::set<int64_t> chain;
    const auto& metadata = *loaded->metadata;
    for (auto s = metadata.CurrentSnapshot(); s;
         s = s->parent_snapshot_id ? metadata.SnapshotById(*s->parent_snapshot_id) : nullptr) {
      chain.insert(s->snapshot_id);
    }
    EXPECT_EQ(chain, acknowledged[table]) << ids[table].ToString();
  }
  EXPECT_EQ(total, static_cast<size_t>(kThreads * kCommits));
  RecordProperty("store_transactions", std::to_string(txns));
  if (GetParam()) {
    EXPECT_LT(txns, static_cast<uint64_t>(kThreads * kCommits)) << "no commit was coalesced";
  } else {
    EXPECT_EQ(txns, static_cast<uint64_t>(kThreads * kCommits));
  }
}

INSTANTIATE_TEST_SUITE_P(GroupCommitOnAndOff, GroupCommitCatalogTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "grouped" : "ungrouped"; });

}  // namespace
}  // namespace skade::catalog
