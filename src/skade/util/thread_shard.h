// Which shard of a per-thread-sharded count the calling thread updates:
// metrics (Counter, Histogram) and the LMDB transaction gate keep a count
// per shard, a cache line each, so that threads on different cores do not
// write one line.
#pragma once

#include <cstddef>

namespace skade {

/// Shards of such a count. Threads are spread over them round-robin as they
/// first ask, so up to this many threads update without sharing a line.
inline constexpr size_t kThreadShards = 16;

/// The calling thread's shard, in [0, kThreadShards): fixed for the thread's
/// life.
size_t ThreadShard();

}  // namespace skade
