// WorkerPool: a fixed set of worker threads for fork-join work — the ingest
// encode runs on one worker per core (Default()); the S3 FileIO writes
// several small files at once on a pool of its own, whose threads keep their
// connections between calls.
//
// ParallelFor(n, body) runs body(0) … body(n-1) on the workers and returns
// when all have finished; each index runs exactly once, on some worker, in
// no particular order, so a body that writes results[i] yields them in
// input order. Concurrent ParallelFor calls share the workers (first come,
// first served). Thread-safe. The destructor waits for running work; the
// pool must not be destroyed while ParallelFor is running.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace skade {

class WorkerPool {
 public:
  /// `threads` workers (at least 1).
  explicit WorkerPool(size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// The process-wide pool: one worker per hardware thread, started on
  /// first use and never stopped.
  static WorkerPool& Default();

  size_t size() const { return workers_.size(); }

  void ParallelFor(size_t n, const std::function<void(size_t)>& body);

 private:
  struct Job;

  void Run();

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<Job*> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace skade
