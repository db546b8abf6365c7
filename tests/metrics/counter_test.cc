#include "skade/metrics/counter.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "skade/metrics/gauge.h"

namespace skade::metrics {
namespace {

TEST(CounterTest, CountsIncrements) {
  Counter counter;
  EXPECT_EQ(counter.value(), 0u);
  counter.Increment();
  counter.Increment(41);
  EXPECT_EQ(counter.value(), 42u);
}

// More threads than shards, so some share one: no increment is lost.
TEST(CounterTest, ConcurrentIncrementsAreAllCounted) {
  Counter counter;
  constexpr int kThreads = 24;
  constexpr int kIncrements = 100'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) counter.Increment();
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter.value(), uint64_t{kThreads} * kIncrements);
}

TEST(GaugeTest, SetsAndAddsConcurrently) {
  Gauge gauge;
  gauge.Set(10);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        gauge.Add(1);
        gauge.Add(-1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(gauge.value(), 10);
}

}  // namespace
}  // namespace skade::metrics
