#include "skade/metrics/registry.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "testing/matchers.h"

namespace skade::metrics {
namespace {

using testing::IsError;

TEST(RegistryTest, CollectsInRegistrationOrder) {
  Registry registry;
  auto counter = registry.AddCounter("skade_a_total", "A");
  ASSERT_TRUE(counter);
  (*counter)->Increment(3);
  auto gauge = registry.AddGauge("skade_b", "B");
  ASSERT_TRUE(gauge);
  (*gauge)->Set(-1.5);
  auto histogram = registry.AddHistogram("skade_c_seconds", "C", {0.1, 1});
  ASSERT_TRUE(histogram);
  (*histogram)->Observe(0.5);
  int reads = 0;
  ASSERT_TRUE(registry.AddGaugeCallback("skade_d", "D", [&] { return ++reads; }));
  EXPECT_EQ(registry.Scrape(),
            "# HELP skade_a_total A\n# TYPE skade_a_total counter\nskade_a_total 3\n"
            "# HELP skade_b B\n# TYPE skade_b gauge\nskade_b -1.5\n"
            "# HELP skade_c_seconds C\n# TYPE skade_c_seconds histogram\n"
            "skade_c_seconds_bucket{le=\"0.1\"} 0\nskade_c_seconds_bucket{le=\"1\"} 1\n"
            "skade_c_seconds_bucket{le=\"+Inf\"} 1\nskade_c_seconds_sum 0.5\n"
            "skade_c_seconds_count 1\n"
            "# HELP skade_d D\n# TYPE skade_d gauge\nskade_d 1\n");
  // Callbacks run at each scrape.
  EXPECT_NE(registry.Scrape().find("skade_d 2\n"), std::string::npos);
}

TEST(RegistryTest, RefusesBadAndTakenNames) {
  Registry registry;
  EXPECT_THAT(registry.AddCounter("requests_total", "no prefix"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(registry.AddCounter("skade_bad-name", ""), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(registry.AddCounterFamily("skade_x_total", "", {"__reserved"}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(registry.AddCounterFamily("skade_x_total", "", {"1st"}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(registry.AddHistogramFamily("skade_h", "", {"le"}, {1}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(registry.AddHistogram("skade_h", "", {2, 1}), IsError(ErrorKind::kInvalidArgument));
  ASSERT_TRUE(registry.AddGauge("skade_g", ""));
  EXPECT_THAT(registry.AddCounter("skade_g", ""), IsError(ErrorKind::kAlreadyExists));
  EXPECT_TRUE(ValidMetricName("skade_ns:sub_total2"));
  EXPECT_FALSE(ValidMetricName("skade_a b"));
}

TEST(RegistryTest, FamiliesSortSeriesAndEscapeValues) {
  Registry registry;
  auto family = registry.AddCounterFamily("skade_requests_total", "R", {"route", "status"});
  ASSERT_TRUE(family);
  (*family)->WithLabels({"b", "500"}).Increment();
  (*family)->WithLabels({"a\"q", "200"}).Increment(2);
  (*family)->WithLabels({"b", "500"}).Increment();
  EXPECT_EQ(registry.Scrape(),
            "# HELP skade_requests_total R\n# TYPE skade_requests_total counter\n"
            "skade_requests_total{route=\"a\\\"q\",status=\"200\"} 2\n"
            "skade_requests_total{route=\"b\",status=\"500\"} 2\n");
}

// The cardinality bound: past max_series, new label sets share one series.
TEST(RegistryTest, FamilyFoldsSeriesPastItsLimitIntoOverflow) {
  Registry registry;
  auto family = registry.AddCounterFamily("skade_x_total", "X", {"k"}, 3);
  ASSERT_TRUE(family);
  for (int i = 0; i < 10; ++i) (*family)->WithLabels({std::to_string(i)}).Increment();
  (*family)->WithLabels({"0"}).Increment();       // an existing series is still its own
  (*family)->WithLabels({"a", "b"}).Increment();  // wrong arity: overflow
  EXPECT_EQ((*family)->series(), 4u);
  EXPECT_EQ(registry.Scrape(),
            "# HELP skade_x_total X\n# TYPE skade_x_total counter\n"
            "skade_x_total{k=\"0\"} 2\nskade_x_total{k=\"1\"} 1\nskade_x_total{k=\"2\"} 1\n"
            "skade_x_total{k=\"_overflow\"} 8\n");
}

// Many threads make and bump the same and different series at once while
// another scrapes: every increment is counted exactly once.
TEST(RegistryTest, ConcurrentFamilyUpdatesAreAllCounted) {
  Registry registry;
  auto family = registry.AddCounterFamily("skade_c_total", "C", {"route", "status"});
  auto histograms = registry.AddHistogramFamily("skade_h_seconds", "H", {"route"}, {1});
  ASSERT_TRUE(family);
  ASSERT_TRUE(histograms);
  constexpr int kThreads = 16;
  constexpr int kRounds = 20'000;
  std::atomic<bool> done{false};
  std::thread scraper([&] {
    while (!done.load()) (void)registry.Scrape();
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string route = "r" + std::to_string(t % 4);
      for (int i = 0; i < kRounds; ++i) {
        (*family)->WithLabels({route, i % 2 == 0 ? "200" : "409"}).Increment();
        (*histograms)->WithLabels({route}).Observe(0.5);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  done = true;
  scraper.join();
  uint64_t total = 0;
  for (const MetricFamily& collected : registry.Collect()) {
    for (const MetricSample& sample : collected.samples) {
      if (collected.name == "skade_c_total") {
        EXPECT_EQ(sample.value, kThreads / 4 * kRounds / 2) << sample.labels[0].second;
        total += static_cast<uint64_t>(sample.value);
      } else {
        EXPECT_EQ(sample.histogram.count, uint64_t{kThreads / 4} * kRounds);
      }
    }
  }
  EXPECT_EQ(total, uint64_t{kThreads} * kRounds);
  EXPECT_EQ((*family)->series(), 8u);
}

}  // namespace
}  // namespace skade::metrics
