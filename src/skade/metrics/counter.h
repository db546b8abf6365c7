// Counter: a monotonically increasing count, updated from many threads.
//
// Threading: thread-safe and lock-free. Increment() is one relaxed atomic
// add on a cache line the calling thread shares with few others (one of
// kThreadShards, assigned per thread), so hot paths counted from every
// I/O thread do not contend on one line. value() sums the shards: it sees
// every increment that happened before it, and some of those racing it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "skade/util/thread_shard.h"

namespace skade::metrics {

class Counter {
 public:
  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  void Increment(uint64_t n = 1) {
    shards_[ThreadShard()].value.fetch_add(n, std::memory_order_relaxed);
  }

  uint64_t value() const;

 private:
  struct alignas(64) Shard {
    std::atomic<uint64_t> value{0};
  };
  std::array<Shard, kThreadShards> shards_;
};

}  // namespace skade::metrics
