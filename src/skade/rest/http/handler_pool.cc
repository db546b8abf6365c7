#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <system_error>
#include <utility>

#include "skade/rest/http/handler_pool_internal.h"
#include "skade/util/error.h"

namespace skade::rest::http_internal {

HandlerPool::HandlerPool(int threads, int max_queued)
    : thread_count_(static_cast<size_t>(threads)),
      max_pending_(static_cast<size_t>(threads) + static_cast<size_t>(max_queued)) {}

HandlerPool::~HandlerPool() { Stop(); }

Status HandlerPool::Start() {
  std::unique_lock stop_lock(stop_mutex_);
  try {
    threads_.reserve(thread_count_);
    while (threads_.size() < thread_count_) threads_.emplace_back([this] { RunThread(); });
  } catch (const std::system_error& e) {
    stop_lock.unlock();
    Stop();
    return IoError("cannot start HTTP handler threads: ", e.what());
  }
  return OkStatus();
}

bool HandlerPool::TrySubmit(std::function<void()> work, std::function<void()> then) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || pending_ >= max_pending_) return false;
    queue_.push_back({std::move(work), std::move(then)});
    ++pending_;
  }
  work_.notify_one();
  return true;
}

size_t HandlerPool::pending() const {
  std::lock_guard lock(mutex_);
  return pending_;
}

void HandlerPool::RunThread() {
  // Linux nice values are per thread. Best effort: at worst the pool runs at
  // the I/O threads' priority.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kThreadNice);
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing accepted is left
    Task task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task.work();
    lock.lock();
    --pending_;
    lock.unlock();
    task.then();
    // Before Stop() can return: what the task holds (a session, outstanding
    // work on the I/O context) is released on this thread.
    task = {};
    lock.lock();
  }
}

void HandlerPool::Stop() {
  std::lock_guard stop_lock(stop_mutex_);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

}  // namespace skade::rest::http_internal
