// The threads an HttpServer runs blocking handlers on, and their bounded
// queue.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "skade/util/result.h"

namespace skade::rest::http_internal {

/// A fixed number of threads running tasks in the order they were submitted,
/// with a bounded number of tasks waiting for a thread. Submitting never
/// blocks: a task the pool cannot take is refused, and the caller answers for
/// it (the server with a 503).
///
/// Thread-safe. A task must not throw (as for std::thread, an exception that
/// escapes it terminates the process); the server's tasks catch the
/// handler's exceptions.
class HandlerPool {
 public:
  /// The pool's threads run at this nice value, below the I/O threads: when
  /// commits and reads want the same cores, the scheduler serves the reads
  /// first, so a burst of commit work (encoding metadata, rebasing) does not
  /// reach read latency. Commits wait on syncs and locks far more than on CPU.
  static constexpr int kThreadNice = 10;

  /// `threads` >= 1 run tasks; at most `max_queued` >= 0 more wait.
  HandlerPool(int threads, int max_queued);
  /// Stop().
  ~HandlerPool();

  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  /// Starts the threads; call once. kIo if the system refuses a thread (the
  /// ones already started are stopped again).
  Status Start();

  /// Queues a task to run on a pool thread — `work`, then `then` — unless
  /// every thread is busy and `max_queued` tasks already wait, or Stop() has
  /// begun: then false, and neither runs. The task counts as finished once
  /// `work` returns, before `then` runs: so a submission that `then` leads to
  /// (the server posts the response, the client sends its next request) finds
  /// the task's place free.
  bool TrySubmit(std::function<void()> work, std::function<void()> then);

  /// Tasks accepted whose `work` has not returned: running or waiting.
  size_t pending() const;

  /// Refuses new tasks, lets the threads run every task already accepted —
  /// the queued ones too — and joins them. Idempotent; must not be called
  /// from a task.
  void Stop();

 private:
  struct Task {
    std::function<void()> work;
    std::function<void()> then;
  };

  void RunThread();

  const size_t thread_count_;
  const size_t max_pending_;  // thread_count_ + max_queued

  mutable std::mutex mutex_;
  std::condition_variable work_;      // a task was queued, or stopping_
  std::deque<Task> queue_;            // guarded by mutex_
  size_t pending_ = 0;                // guarded by mutex_; queued, or in `work`
  bool stopping_ = false;             // guarded by mutex_
  std::vector<std::thread> threads_;  // touched by Start() and Stop() only
  std::mutex stop_mutex_;             // serialises Stop() calls
};

}  // namespace skade::rest::http_internal
