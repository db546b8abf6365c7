// Histogram: counts of observations in fixed buckets, with their sum, as
// Prometheus histograms are (cumulative `le` buckets, `_sum`, `_count`).
//
// Buckets are fixed when it is made: finite upper bounds in increasing
// order; a last bucket, +Inf, takes everything above them. An observation
// goes into the first bucket whose bound is >= it (Prometheus' `le`). NaN is
// ignored.
//
// Threading: thread-safe and lock-free. Observe() finds the bucket by binary
// search and does two relaxed atomic adds (the bucket and the sum) on the
// calling thread's shard (kThreadShards). Snapshot() sums the shards; the
// count is the sum of the buckets, so `_count` always equals the +Inf
// bucket, while `_sum` may include an observation whose bucket it missed.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "skade/util/thread_shard.h"

namespace skade::metrics {

struct HistogramSnapshot {
  /// The finite upper bounds; the +Inf bucket is implicit.
  std::vector<double> upper_bounds;
  /// Observations per bucket (not cumulative): upper_bounds.size() + 1
  /// entries, the last one the +Inf bucket.
  std::vector<uint64_t> bucket_counts;
  double sum = 0;
  uint64_t count = 0;
};

class Histogram {
 public:
  /// `upper_bounds` must be finite and strictly increasing (ValidBounds);
  /// the caller checks (Registry does), a bad list is a programming error
  /// and is repaired by sorting and dropping non-finite and repeated bounds.
  explicit Histogram(std::vector<double> upper_bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void Observe(double value);
  HistogramSnapshot Snapshot() const;
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }

  /// Whether `upper_bounds` is a valid bucket list: finite, strictly
  /// increasing (empty is valid: only +Inf).
  static bool ValidBounds(const std::vector<double>& upper_bounds);
  /// `count` bounds start, start*factor, start*factor^2, … (start > 0,
  /// factor > 1).
  static std::vector<double> ExponentialBounds(double start, double factor, int count);

 private:
  struct alignas(64) Shard {
    std::unique_ptr<std::atomic<uint64_t>[]> counts;
    std::atomic<double> sum{0};
  };

  std::vector<double> upper_bounds_;
  std::array<Shard, kThreadShards> shards_;
};

}  // namespace skade::metrics
