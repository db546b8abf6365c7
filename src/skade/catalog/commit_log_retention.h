// CommitLogRetention: keeps a store's commit log within its retention by
// pruning it in the background (CatalogStore::PruneCommitLog).
//
// Every interval it prunes the commits older than `retention_ms` in bounded
// batches (one short write transaction each, so commits are never held up
// for long) until none is left, then sleeps. Each table's last commit
// before the cutoff stays, and snapshot ids keep resolving; the history and
// the change feed lose the rest. A failed round is logged and retried at
// the next interval. The destructor stops the thread (waiting for a batch
// in progress). Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

class CommitLogRetention {
 public:
  /// Entries one prune transaction examines at most.
  static constexpr size_t kBatch = 1000;

  /// Starts the thread; `store` must outlive this object.
  CommitLogRetention(store::CatalogStore* store, int64_t retention_ms, int64_t interval_ms);
  ~CommitLogRetention();
  CommitLogRetention(const CommitLogRetention&) = delete;
  CommitLogRetention& operator=(const CommitLogRetention&) = delete;

  /// One round now, on the caller's thread: prunes every commit older than
  /// the retention at `now_ms`; returns how many entries it examined.
  static Result<size_t> PruneOnce(store::CatalogStore& store, int64_t retention_ms, int64_t now_ms);

 private:
  void Run();

  store::CatalogStore* store_;
  const int64_t retention_ms_;
  const int64_t interval_ms_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace skade::catalog
