// BoundedQueue: a blocking FIFO of fixed capacity between threads — the
// channel from the ingest writer to its committer, where the capacity is
// the backpressure (a full queue stalls the producer).
//
// Close() ends the stream: Push() fails from then on and Pop() drains what
// is left, then returns nullopt. Abort() also drops what is left, so a
// consumer stops at its next Pop(). Thread-safe; any number of producers
// and consumers.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace skade::ingest {

template <typename T>
class BoundedQueue {
 public:
  /// `capacity` ≥ 1.
  explicit BoundedQueue(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  /// Blocks while the queue is full. False (and `value` dropped) once the
  /// queue is closed or aborted.
  bool Push(T value) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(value));
    not_empty_.notify_one();
    return true;
  }

  /// Blocks until an item is available; nullopt once the queue is closed and
  /// drained, or aborted.
  std::optional<T> Pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return value;
  }

  /// The next item if one is there now; nullopt otherwise (never blocks).
  std::optional<T> TryPop() {
    std::lock_guard lock(mutex_);
    if (items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return value;
  }

  void Close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

  void Abort() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    items_.clear();
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace skade::ingest
