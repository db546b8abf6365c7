#include "skade/metrics/counter.h"

namespace skade::metrics {

uint64_t Counter::value() const {
  uint64_t sum = 0;
  for (const Shard& shard : shards_) sum += shard.value.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace skade::metrics
