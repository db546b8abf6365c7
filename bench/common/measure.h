// The timed loop under every scenario: `threads` threads each run untimed
// warm-up ops, meet at a barrier, then run timed ops until the op or time
// bound is reached. Every op's latency is kept, so percentiles are exact.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "skade/util/result.h"

namespace skade::bench {

struct MeasureLimits {
  int threads = 1;
  /// Timed ops over all threads (each thread runs its share).
  uint64_t ops = 0;
  /// Untimed ops per thread before the barrier.
  uint64_t warmup = 0;
  double seconds = 1;
  /// A process on this machine whose CPU time over the timed phase is
  /// measured too (the catalog server); 0 for none.
  int server_pid = 0;
};

struct Measurement {
  uint64_t ops = 0;
  /// From the barrier's release to the last thread's last op.
  double wall_seconds = 0;
  std::vector<int64_t> latencies_ns;  // sorted ascending
  /// With an OpKind: the latencies of each kind's ops, each sorted ascending.
  std::vector<std::vector<int64_t>> kind_latencies_ns;
  /// CPU seconds over the timed phase of this process (the load generator,
  /// every thread) and of MeasureLimits::server_pid; unset when unreadable.
  std::optional<double> client_cpu_seconds;
  std::optional<double> server_cpu_seconds;
  /// Bytes each of them sent to storage over the timed phase
  /// (ProcessWriteBytes); unset when unreadable.
  std::optional<uint64_t> client_write_bytes;
  std::optional<uint64_t> server_write_bytes;

  double ops_per_sec() const { return wall_seconds > 0 ? ops / wall_seconds : 0; }
  /// The nearest-rank percentile (0 < p ≤ 1) in microseconds; 0 when empty.
  double PercentileMicros(double p) const { return PercentileMicros(latencies_ns, p); }
  /// The same over `sorted_ns` (e.g. one of kind_latencies_ns).
  static double PercentileMicros(const std::vector<int64_t>& sorted_ns, double p);
};

/// One op of thread `thread` (0 ≤ thread < threads); `iteration` counts that
/// thread's ops from 0, warm-up included. Called concurrently from different
/// threads, never concurrently for one thread.
using Operation = std::function<Status(int thread, uint64_t iteration)>;

/// For a scenario that mixes ops (mixed_90_10's reads and commits): which of
/// `kinds` kinds (0 ≤ kind < kinds) op (`thread`, `iteration`) is, decided
/// from the two alone, so the latencies of each kind are kept apart too.
struct OpKinds {
  int kinds = 0;
  std::function<int(int thread, uint64_t iteration)> kind_of;
};

/// Runs the loop. The first failing op stops its thread; the measurement then
/// fails with that error once every thread has stopped.
Result<Measurement> Measure(const MeasureLimits& limits, const Operation& op,
                            const OpKinds& kinds = {});

/// A uniformly spread index below `bound` for (thread, iteration): the same
/// choice of tables in every driver, without per-thread generator state.
int PickIndex(int thread, uint64_t iteration, int bound);

}  // namespace skade::bench
