// A table's commit queue (catalog/table_commit_queue.h) when the batch
// function throws: every caller is answered and the queue keeps serving.
#include "skade/catalog/table_commit_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <thread>

#include "testing/gate.h"

namespace skade::catalog {
namespace {

CommitTableRequest RequestFor(const std::string& table) {
  CommitTableRequest request;
  request.identifier = TableIdentifier{{"ns"}, table};
  return request;
}

// A leader whose commit throws answers its batch "state unknown" and passes
// the lead on: the caller queued behind it commits. (The exception used to
// leave Commit with the follower still queued: here it ends the test
// binary.)
TEST(TableCommitQueueTest, ALeaderWhoseCommitThrowsPassesTheLeadOn) {
  TableCommitQueue queue;
  testing::Gate second_queued;
  std::atomic<int> calls{0};
  auto commit = [&](std::span<const CommitTableRequest* const> requests)
      -> std::vector<Result<LoadTableResult>> {
    if (calls.fetch_add(1) == 0) {
      second_queued.Wait();
      throw std::bad_alloc();
    }
    return std::vector<Result<LoadTableResult>>(requests.size(), LoadTableResult{"m.json"});
  };
  const CommitTableRequest first = RequestFor("t");
  const CommitTableRequest second = RequestFor("t");
  Result<LoadTableResult> first_result = LoadTableResult{};
  std::thread leader([&] { first_result = queue.Commit(first, commit); });
  testing::WaitUntil([&] { return calls.load() == 1; });
  std::thread follower([&] {
    auto result = queue.Commit(second, commit);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->metadata_location, "m.json");
  });
  testing::WaitUntil([&] { return queue.waiting() == 1; });
  second_queued.Open();
  leader.join();
  follower.join();
  ASSERT_FALSE(first_result);
  EXPECT_EQ(first_result.error().kind, ErrorKind::kCommitStateUnknown);
  EXPECT_EQ(calls.load(), 2);
  // And the table's queue still serves a caller on its own.
  EXPECT_TRUE(queue.Commit(RequestFor("t"), commit));
}

}  // namespace
}  // namespace skade::catalog
