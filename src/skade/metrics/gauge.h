// Gauge: a value that goes up and down (connections open, bytes cached).
//
// Threading: thread-safe and lock-free; one atomic, so a gauge updated on a
// hot path from many threads contends on its cache line (set gauges from
// one place, or read them at scrape time with Registry::AddGaugeCallback).
#pragma once

#include <atomic>

namespace skade::metrics {

class Gauge {
 public:
  Gauge() = default;
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

}  // namespace skade::metrics
