#include "skade/metrics/histogram.h"

#include <algorithm>
#include <cmath>

namespace skade::metrics {

namespace {

std::vector<double> Repaired(std::vector<double> bounds) {
  std::erase_if(bounds, [](double bound) { return !std::isfinite(bound); });
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  return bounds;
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(Repaired(std::move(upper_bounds))) {
  for (Shard& shard : shards_) {
    shard.counts = std::make_unique<std::atomic<uint64_t>[]>(upper_bounds_.size() + 1);
  }
}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  size_t bucket = static_cast<size_t>(
      std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value) - upper_bounds_.begin());
  Shard& shard = shards_[ThreadShard()];
  shard.counts[bucket].fetch_add(1, std::memory_order_relaxed);
  shard.sum.fetch_add(value, std::memory_order_relaxed);
}

HistogramSnapshot Histogram::Snapshot() const {
  HistogramSnapshot snapshot;
  snapshot.upper_bounds = upper_bounds_;
  snapshot.bucket_counts.assign(upper_bounds_.size() + 1, 0);
  for (const Shard& shard : shards_) {
    for (size_t i = 0; i < snapshot.bucket_counts.size(); ++i) {
      snapshot.bucket_counts[i] += shard.counts[i].load(std::memory_order_relaxed);
    }
    snapshot.sum += shard.sum.load(std::memory_order_relaxed);
  }
  for (uint64_t count : snapshot.bucket_counts) snapshot.count += count;
  return snapshot;
}

bool Histogram::ValidBounds(const std::vector<double>& upper_bounds) {
  for (size_t i = 0; i < upper_bounds.size(); ++i) {
    if (!std::isfinite(upper_bounds[i])) return false;
    if (i > 0 && !(upper_bounds[i - 1] < upper_bounds[i])) return false;
  }
  return true;
}

std::vector<double> Histogram::ExponentialBounds(double start, double factor, int count) {
  std::vector<double> bounds;
  double bound = start;
  for (int i = 0; i < count; ++i, bound *= factor) bounds.push_back(bound);
  return bounds;
}

}  // namespace skade::metrics
