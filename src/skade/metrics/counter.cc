#include "skade/metrics/counter.h"

namespace skade::metrics {

namespace internal {

size_t ShardIndex() {
  static std::atomic<size_t> next{0};
  thread_local const size_t index = next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return index;
}

}  // namespace internal

uint64_t Counter::value() const {
  uint64_t sum = 0;
  for (const Shard& shard : shards_) sum += shard.value.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace skade::metrics
