#include "skade/catalog/commit_log_retention.h"

#include <chrono>

#include "skade/util/clock.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

CommitLogRetention::CommitLogRetention(store::CatalogStore* store, int64_t retention_ms,
                                       int64_t interval_ms)
    : store_(store), retention_ms_(retention_ms), interval_ms_(interval_ms) {
  thread_ = std::thread([this] { Run(); });
}

CommitLogRetention::~CommitLogRetention() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Result<size_t> CommitLogRetention::PruneOnce(store::CatalogStore& store, int64_t retention_ms,
                                             int64_t now_ms) {
  const int64_t before_ms = now_ms - retention_ms;
  size_t examined = 0;
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(size_t batch, store.PruneCommitLog(before_ms, kBatch));
    examined += batch;
    if (batch < kBatch) return examined;
  }
}

void CommitLogRetention::Run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    auto pruned = PruneOnce(*store_, retention_ms_, NowMillis());
    if (!pruned) {
      LogWarning(StrCat("commit-log retention: ", pruned.error().message, " (retrying in ",
                        interval_ms_, " ms)"));
    }
    lock.lock();
    wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stopping_; });
  }
}

}  // namespace skade::catalog
