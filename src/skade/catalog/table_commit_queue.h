// Concurrent commits to one table share one physical commit.
//
// Every CommitTable call joins its table's queue (LevelDB's writer queue, per
// table): the call at the front leads — it takes the requests queued behind
// it, up to kMaxBatch, hands them to the batch function as one commit, wakes
// their callers with their results and leaves the lead to the next call in
// the queue. Calls that arrive while a batch is in flight therefore wait for
// it and go into the next one, so N concurrent commits to a table cost about
// one metadata file and one sync per batch instead of N in a row. A request
// that creates the table is always a batch of its own. Queues of different
// tables are independent (their batches still meet in the store's group
// commit). Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "skade/catalog/catalog.h"

namespace skade::catalog {

class TableCommitQueue {
 public:
  /// Most requests one batch takes.
  static constexpr size_t kMaxBatch = 256;

  /// Commits `requests` (all for one table, in queue order) and returns one
  /// result per request, in the same order.
  using BatchCommit = std::function<std::vector<Result<LoadTableResult>>(
      std::span<const CommitTableRequest* const> requests)>;

  /// Blocks until `request` was committed in some batch; returns its result.
  Result<LoadTableResult> Commit(const CommitTableRequest& request, const BatchCommit& commit);

  /// Calls waiting in a queue (not counting the leaders' batches).
  size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  struct Waiter;
  struct Stripe {
    std::mutex mutex;
    // Node-based: a queue stays where it is while other tables come and go.
    std::unordered_map<std::string, std::deque<Waiter*>> queues;
  };

  std::array<Stripe, 64> stripes_;
  std::atomic<size_t> waiting_{0};
};

}  // namespace skade::catalog
