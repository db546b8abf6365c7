#include "skade/util/worker_pool.h"

#include <algorithm>

namespace skade {

// One ParallelFor call: workers claim indices until none are left; the last
// one to finish wakes the caller.
struct WorkerPool::Job {
  const std::function<void(size_t)>* body;
  size_t n;
  size_t next = 0;      // guarded by the pool's mutex
  size_t finished = 0;  // guarded by the pool's mutex
  std::condition_variable done;
};

WorkerPool::WorkerPool(size_t threads) {
  threads = std::max<size_t>(threads, 1);
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

WorkerPool& WorkerPool::Default() {
  // Leaked on purpose: workers must outlive every static that might use them.
  static WorkerPool* pool = new WorkerPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

void WorkerPool::ParallelFor(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  Job job{&body, n, 0, 0, {}};
  std::unique_lock lock(mutex_);
  jobs_.push_back(&job);
  work_ready_.notify_all();
  job.done.wait(lock, [&] { return job.finished == job.n; });
}

void WorkerPool::Run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to do
    Job* job = jobs_.front();
    size_t index = job->next++;
    // The last index is claimed: later workers move on to the next job.
    if (job->next == job->n) jobs_.pop_front();
    lock.unlock();
    (*job->body)(index);
    lock.lock();
    if (++job->finished == job->n) job->done.notify_all();
  }
}

}  // namespace skade
