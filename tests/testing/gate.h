// Deterministic concurrency for tests: a gate a blocked thread waits on until
// the test opens it, and a wait for a condition the test cannot be told of.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace skade::testing {

/// Closed until Open(); Wait() blocks until then. Open() is idempotent, so a
/// fixture may open it again in TearDown to free what a failed test left
/// waiting. Thread-safe.
class Gate {
 public:
  void Wait() {
    std::unique_lock lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }
  void Open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

/// Polls until `done()`. No deadline: a hang is the test runner's timeout,
/// never a timed assertion.
template <typename Predicate>
void WaitUntil(Predicate done) {
  while (!done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace skade::testing
