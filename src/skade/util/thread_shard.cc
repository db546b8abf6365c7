#include "skade/util/thread_shard.h"

#include <atomic>

namespace skade {

size_t ThreadShard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t index = next.fetch_add(1, std::memory_order_relaxed) % kThreadShards;
  return index;
}

}  // namespace skade
