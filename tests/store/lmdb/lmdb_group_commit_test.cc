// Group commit in LmdbCatalogStore::SwapPointers: requests queued while another
// writer holds the store share one transaction; a failing request in the
// batch writes nothing and fails alone; every caller gets its own result.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "skade/store/table_key.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store::lmdb {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

class GroupCommitTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    LmdbCatalogStoreOptions options;
    options.lmdb.map_size = 1ull << 30;
    options.lmdb.durability = Durability::kNone;
    options.group_commit = GetParam();
    store_ = std::move(*LmdbCatalogStore::Open(dir_.Sub("store"), options));
    ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
    for (int i = 0; i < 8; ++i) {
      tables_.push_back({{"n"}, "t" + std::to_string(i)});
      ASSERT_TRUE(store_->SwapPointers({{tables_.back(), std::nullopt, "x0", {}}}));
    }
  }

  // Runs each request on its own thread while this thread holds the writer
  // lock, so they all queue up (grouped: until every one is in the queue,
  // however late its thread starts); then lets them go and collects the
  // results.
  std::vector<Result<std::vector<TableRecord>>> RunQueued(
      const std::vector<std::vector<PointerSwap>>& requests) {
    std::vector<Result<std::vector<TableRecord>>> results(requests.size());
    std::vector<std::thread> threads;
    {
      auto blocker = store_->env().BeginWrite();
      EXPECT_TRUE(blocker);
      for (size_t i = 0; i < requests.size(); ++i) {
        threads.emplace_back([&, i] { results[i] = store_->SwapPointers(requests[i]); });
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      while (GetParam() && store_->QueuedSwaps() < requests.size()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    for (auto& thread : threads) thread.join();
    return results;
  }

  std::string Location(const spec::TableIdentifier& id) {
    return (*store_->GetTable(id))->metadata_location;
  }

  testing::TempDir dir_;
  std::unique_ptr<LmdbCatalogStore> store_;
  std::vector<spec::TableIdentifier> tables_;
};

TEST_P(GroupCommitTest, FailingRequestsFailAloneAndTheRestLand) {
  uint64_t txn_before = store_->env().LastTxnId();
  uint64_t seq_before = *store_->CommitSeq();
  auto results = RunQueued({
      {{tables_[0], "x0", "x1", {10}}},
      {{tables_[1], "x0", "x1", {11}}},
      {{tables_[2], "stale", "x1", {}}},                              // lost compare-and-swap
      {{tables_[3], std::nullopt, "x1", {}}},                         // already exists
      {{{{"missing"}, "t"}, std::nullopt, "x1", {}}},                 // no such namespace
      {{tables_[4], "x0", "x1", {}}, {tables_[5], "bad", "x1", {}}},  // all or nothing
      {{tables_[6], "x0", "x1", {16}}, {tables_[7], "x0", "x1", {17}}},
  });
  EXPECT_TRUE(results[0]);
  EXPECT_TRUE(results[1]);
  EXPECT_THAT(results[2], IsError(ErrorKind::kCommitFailed));
  EXPECT_TRUE(results[2].error().retryable);
  EXPECT_THAT(results[3], IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(results[4], IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(results[5], IsError(ErrorKind::kCommitFailed));
  EXPECT_TRUE(results[6]);

  for (int i : {0, 1, 6, 7}) EXPECT_EQ(Location(tables_[i]), "x1") << i;
  for (int i : {2, 3, 4, 5}) EXPECT_EQ(Location(tables_[i]), "x0") << i;
  // Grouped: one transaction for the batch; ungrouped: one per successful request.
  EXPECT_EQ(store_->env().LastTxnId() - txn_before, GetParam() ? 1u : 3u);
  EXPECT_EQ(*store_->CommitSeq(), seq_before + 4);
  auto log = store_->ReadCommitLog(seq_before, 100);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 4u);
  for (const auto& [seq, record] : *log) EXPECT_EQ(record.metadata_location, "x1");
  for (int i : {0, 1, 6, 7}) {
    uint64_t id = (*store_->GetTable(tables_[i]))->table_id;
    EXPECT_EQ(**store_->FindSnapshot(id, 10 + i), "x1") << i;
  }
  auto changed = store_->ReadTablePointersChangedAfter(txn_before);
  ASSERT_TRUE(changed);
  std::set<std::string> keys;
  for (const auto& change : changed->tables) keys.insert(change.table_key);
  EXPECT_EQ(keys, (std::set<std::string>{TableKey(tables_[0]), TableKey(tables_[1]),
                                         TableKey(tables_[6]), TableKey(tables_[7])}));
}

// Two requests moving the same table from the same base: the first in the
// batch wins, the second sees its result and loses the compare-and-swap.
TEST_P(GroupCommitTest, SameTableRequestsInOneBatchApplyInOrder) {
  auto results = RunQueued({{{tables_[0], "x0", "y1", {}}}, {{tables_[0], "x0", "y2", {}}}});
  ASSERT_NE(results[0].has_value(), results[1].has_value());
  const auto& loser = results[0] ? results[1] : results[0];
  EXPECT_THAT(loser, IsError(ErrorKind::kCommitFailed));
  EXPECT_EQ(Location(tables_[0]), results[0] ? "y1" : "y2");
}

// A listener that throws from one of its callbacks while `armed`, standing in
// for any exception (std::bad_alloc, a bug) on the leader's commit path.
class ThrowingListener : public CommitListener {
 public:
  enum class When { kCommitting, kCommitted };
  explicit ThrowingListener(When when) : when_(when) {}
  void OnCommitting(uint64_t, uint64_t) override {
    if (armed && when_ == When::kCommitting) throw std::runtime_error("injected before commit");
  }
  void OnCommitted(uint64_t, uint64_t, const std::vector<TableChange>&) override {
    if (armed && when_ == When::kCommitted) throw std::runtime_error("injected after commit");
  }
  void OnCommitFailed(uint64_t) override {}
  std::atomic<bool> armed{true};

 private:
  When when_;
};

// Regression: an exception in the leader escaped SwapPointers and left the
// followers of its batch waiting forever, and no one led again.
TEST_P(GroupCommitTest, LeaderThatThrowsBeforeCommitFailsEveryoneRetryably) {
  ThrowingListener listener(ThrowingListener::When::kCommitting);
  store_->SetCommitListener(&listener);
  uint64_t seq_before = *store_->CommitSeq();
  auto results = RunQueued({{{tables_[0], "x0", "x1", {}}},
                            {{tables_[1], "x0", "x1", {}}},
                            {{tables_[2], "x0", "x1", {}}}});
  for (const auto& result : results) {
    ASSERT_THAT(result, IsErrorWithMessage(ErrorKind::kCommitFailed, "injected before commit"));
    EXPECT_TRUE(result.error().retryable);
  }
  for (int i : {0, 1, 2}) EXPECT_EQ(Location(tables_[i]), "x0") << i;
  EXPECT_EQ(*store_->CommitSeq(), seq_before);
  // The leader role was released: the next commits go through.
  listener.armed = false;
  EXPECT_TRUE(store_->SwapPointers({{tables_[0], "x0", "x1", {}}}));
  auto again = RunQueued({{{tables_[1], "x0", "x1", {}}}, {{tables_[2], "x0", "x1", {}}}});
  EXPECT_TRUE(again[0]);
  EXPECT_TRUE(again[1]);
  store_->SetCommitListener(nullptr);
}

TEST_P(GroupCommitTest, LeaderThatThrowsAfterCommitReportsUnknownState) {
  ThrowingListener listener(ThrowingListener::When::kCommitted);
  store_->SetCommitListener(&listener);
  auto results = RunQueued({{{tables_[0], "x0", "x1", {}}},
                            {{tables_[1], "x0", "x1", {}}},
                            {{tables_[2], "stale", "x1", {}}}});
  for (int i : {0, 1}) {
    EXPECT_THAT(results[i],
                IsErrorWithMessage(ErrorKind::kCommitStateUnknown, "injected after commit"));
  }
  // A request that failed on its own keeps its own error.
  EXPECT_THAT(results[2], IsError(ErrorKind::kCommitFailed));
  // It did commit.
  EXPECT_EQ(Location(tables_[0]), "x1");
  EXPECT_EQ(Location(tables_[1]), "x1");
  listener.armed = false;
  EXPECT_TRUE(store_->SwapPointers({{tables_[2], "x0", "x1", {}}}));
  store_->SetCommitListener(nullptr);
}

// StoreStats::group_commit_batch_size: one observation per transaction, of
// the SwapPointers calls it carried.
TEST_P(GroupCommitTest, StatsCountSwapCallsPerTransaction) {
  auto before = store_->Stats();
  ASSERT_TRUE(before);
  auto results = RunQueued({
      {{tables_[0], "x0", "x1", {}}},
      {{tables_[1], "x0", "x1", {}}},
      {{tables_[2], "x0", "x1", {}}},
      {{tables_[3], "x0", "x1", {}}},
  });
  for (const auto& result : results) EXPECT_TRUE(result);
  auto after = store_->Stats();
  ASSERT_TRUE(after);
  const auto& old_batches = before->group_commit_batch_size;
  const auto& batches = after->group_commit_batch_size;
  ASSERT_EQ(batches.upper_bounds, GroupCommitBatchBounds());
  if (GetParam()) {
    EXPECT_EQ(batches.count, old_batches.count + 1);
    EXPECT_EQ(batches.sum, old_batches.sum + 4);
    // Bounds 1, 2, 4, …: a batch of 4 is in the third bucket.
    EXPECT_EQ(batches.bucket_counts[2], old_batches.bucket_counts[2] + 1);
  } else {
    EXPECT_EQ(batches.count, old_batches.count + 4);
    EXPECT_EQ(batches.bucket_counts[0], old_batches.bucket_counts[0] + 4);
  }
}

INSTANTIATE_TEST_SUITE_P(GroupCommitOnAndOff, GroupCommitTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "grouped" : "ungrouped"; });

}  // namespace
}  // namespace skade::store::lmdb
