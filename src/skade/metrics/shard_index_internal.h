// Which shard of a sharded metric the calling thread updates.
#pragma once

#include <cstddef>

namespace skade::metrics::internal {

/// Shards per Counter or Histogram. Threads are spread over them round-robin
/// as they first update a metric, so up to this many threads increment
/// without sharing a cache line.
inline constexpr size_t kShards = 16;

/// The calling thread's shard, in [0, kShards): fixed for the thread's life.
size_t ShardIndex();

}  // namespace skade::metrics::internal
