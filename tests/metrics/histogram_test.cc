#include "skade/metrics/histogram.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

namespace skade::metrics {
namespace {

using ::testing::ElementsAre;

// `le` is inclusive: a value equal to a bound is in that bound's bucket.
TEST(HistogramTest, BucketsAreUpperInclusive) {
  Histogram histogram({1, 2, 5});
  for (double value : {0.5, 1.0, 1.5, 2.0, 4.0, 5.0, 5.01, 100.0, -3.0}) histogram.Observe(value);
  HistogramSnapshot snapshot = histogram.Snapshot();
  EXPECT_THAT(snapshot.upper_bounds, ElementsAre(1, 2, 5));
  EXPECT_THAT(snapshot.bucket_counts, ElementsAre(3, 2, 2, 2));
  EXPECT_EQ(snapshot.count, 9u);
  EXPECT_DOUBLE_EQ(snapshot.sum, 0.5 + 1 + 1.5 + 2 + 4 + 5 + 5.01 + 100 - 3);
}

TEST(HistogramTest, IgnoresNanAndCountsInfinityInTheLastBucket) {
  Histogram histogram({1});
  histogram.Observe(std::nan(""));
  histogram.Observe(INFINITY);
  HistogramSnapshot snapshot = histogram.Snapshot();
  EXPECT_THAT(snapshot.bucket_counts, ElementsAre(0, 1));
  EXPECT_EQ(snapshot.count, 1u);
}

TEST(HistogramTest, WithoutBoundsEverythingIsInPlusInf) {
  Histogram histogram({});
  histogram.Observe(3);
  EXPECT_THAT(histogram.Snapshot().bucket_counts, ElementsAre(1));
}

TEST(HistogramTest, RepairsBadBounds) {
  Histogram histogram({5, 1, INFINITY, 1, NAN});
  EXPECT_THAT(histogram.upper_bounds(), ElementsAre(1, 5));
}

TEST(HistogramTest, ValidBounds) {
  EXPECT_TRUE(Histogram::ValidBounds({}));
  EXPECT_TRUE(Histogram::ValidBounds({0.1, 1, 10}));
  EXPECT_FALSE(Histogram::ValidBounds({1, 1}));
  EXPECT_FALSE(Histogram::ValidBounds({2, 1}));
  EXPECT_FALSE(Histogram::ValidBounds({1, INFINITY}));
}

TEST(HistogramTest, ExponentialBounds) {
  EXPECT_THAT(Histogram::ExponentialBounds(1, 2, 5), ElementsAre(1, 2, 4, 8, 16));
}

TEST(HistogramTest, ConcurrentObservationsAreAllCounted) {
  Histogram histogram({10, 100});
  constexpr int kThreads = 20;
  constexpr int kObservations = 50'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kObservations; ++i) histogram.Observe(t % 2 == 0 ? 1 : 50);
    });
  }
  for (auto& thread : threads) thread.join();
  HistogramSnapshot snapshot = histogram.Snapshot();
  const uint64_t half = uint64_t{kThreads / 2} * kObservations;
  EXPECT_THAT(snapshot.bucket_counts, ElementsAre(half, half, 0));
  EXPECT_EQ(snapshot.count, 2 * half);
  EXPECT_DOUBLE_EQ(snapshot.sum, static_cast<double>(half) * 51);
}

}  // namespace
}  // namespace skade::metrics
