#include "skade/catalog/table_commit_queue.h"

#include <absl/hash/hash.h>

#include <exception>
#include <optional>
#include <string_view>

#include "skade/store/table_key.h"

namespace skade::catalog {

struct TableCommitQueue::Waiter {
  const CommitTableRequest* request;
  std::condition_variable wake;
  bool done = false;
  std::optional<Result<LoadTableResult>> result;
};

namespace {

// The answer to every request of a batch whose commit threw: it may or may
// not have reached the store. The lead still passes on, or the callers
// queued behind would wait forever.
std::vector<Result<LoadTableResult>> Unknown(size_t count, std::string_view what) {
  return std::vector<Result<LoadTableResult>>(
      count, MakeError(ErrorKind::kCommitStateUnknown,
                       "Commit state unknown: the commit path failed (", what, ")"));
}

}  // namespace

Result<LoadTableResult> TableCommitQueue::Commit(const CommitTableRequest& request,
                                                 const BatchCommit& commit) {
  std::string key = store::TableKey(request.identifier);
  Stripe& stripe = stripes_[absl::Hash<std::string>{}(key) % stripes_.size()];
  Waiter self{&request};
  std::unique_lock<std::mutex> lock(stripe.mutex);
  std::deque<Waiter*>& queue = stripe.queues[key];
  queue.push_back(&self);
  waiting_.fetch_add(1, std::memory_order_relaxed);
  self.wake.wait(lock, [&] { return self.done || queue.front() == &self; });
  waiting_.fetch_sub(1, std::memory_order_relaxed);
  if (self.done) return std::move(*self.result);

  // Leading: the queue's head is this call, followed by the next batch.
  std::vector<Waiter*> batch;
  for (Waiter* waiter : queue) {
    if (batch.size() == kMaxBatch) break;
    if (CreatesTable(*waiter->request) && !batch.empty()) break;
    batch.push_back(waiter);
    if (CreatesTable(*waiter->request)) break;
  }
  std::vector<const CommitTableRequest*> requests;
  for (Waiter* waiter : batch) requests.push_back(waiter->request);
  lock.unlock();
  std::vector<Result<LoadTableResult>> results;
  try {
    results = commit(requests);
  } catch (const std::exception& e) {
    results = Unknown(batch.size(), e.what());
  } catch (...) {
    results = Unknown(batch.size(), "unknown exception");
  }
  lock.lock();
  // `queue` stays valid: the map entry is erased only by the leader, below.
  for (size_t i = 0; i < batch.size(); ++i) {
    Waiter* waiter = batch[i];
    waiter->result.emplace(std::move(results[i]));
    waiter->done = true;
    queue.pop_front();
    if (waiter != &self) waiter->wake.notify_one();
  }
  if (queue.empty()) {
    stripe.queues.erase(key);
  } else {
    queue.front()->wake.notify_one();
  }
  return std::move(*self.result);
}

}  // namespace skade::catalog
