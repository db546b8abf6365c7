#include "skade/metrics/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace skade::metrics {
namespace {

TEST(ExpositionTest, FormatsValuesExactly) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(42), "42");
  EXPECT_EQ(FormatValue(-7), "-7");
  EXPECT_EQ(FormatValue(1ull << 40), "1099511627776");
  EXPECT_EQ(FormatValue(0.005), "0.005");
  EXPECT_EQ(FormatValue(0.0001), "0.0001");
  EXPECT_EQ(FormatValue(1.5e-9), "1.5e-09");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatValue(1e300), "1e+300");
  EXPECT_EQ(FormatValue(INFINITY), "+Inf");
  EXPECT_EQ(FormatValue(-INFINITY), "-Inf");
  EXPECT_EQ(FormatValue(NAN), "NaN");
}

TEST(ExpositionTest, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabelValue(R"(a\b"c)"
                             "\n"
                             "d"),
            R"(a\\b\"c\nd)");
  EXPECT_EQ(EscapeLabelValue("v1/{prefix}/namespaces"), "v1/{prefix}/namespaces");
}

TEST(ExpositionTest, WritesCountersGaugesAndHistograms) {
  std::vector<MetricFamily> families;
  families.push_back({"skade_requests_total",
                      "Requests\\answered\nso far",
                      MetricType::kCounter,
                      {{{{"route", "a\"b"}, {"status", "200"}}, 3, {}}, {{}, 1, {}}}});
  families.push_back({"skade_open", "Open now", MetricType::kGauge, {{{}, 2.5, {}}}});
  HistogramSnapshot histogram{{0.5, 1}, {1, 2, 3}, 9.25, 6};
  families.push_back(
      {"skade_seconds", "Latency", MetricType::kHistogram, {{{{"route", "x"}}, 0, histogram}}});
  families.push_back({"skade_empty", "Nothing yet", MetricType::kCounter, {}});
  EXPECT_EQ(WriteTextFormat(families),
            "# HELP skade_requests_total Requests\\\\answered\\nso far\n"
            "# TYPE skade_requests_total counter\n"
            "skade_requests_total{route=\"a\\\"b\",status=\"200\"} 3\n"
            "skade_requests_total 1\n"
            "# HELP skade_open Open now\n"
            "# TYPE skade_open gauge\n"
            "skade_open 2.5\n"
            "# HELP skade_seconds Latency\n"
            "# TYPE skade_seconds histogram\n"
            "skade_seconds_bucket{route=\"x\",le=\"0.5\"} 1\n"
            "skade_seconds_bucket{route=\"x\",le=\"1\"} 3\n"
            "skade_seconds_bucket{route=\"x\",le=\"+Inf\"} 6\n"
            "skade_seconds_sum{route=\"x\"} 9.25\n"
            "skade_seconds_count{route=\"x\"} 6\n"
            "# HELP skade_empty Nothing yet\n"
            "# TYPE skade_empty counter\n");
}

TEST(ExpositionTest, AHistogramWithoutBucketsStillHasPlusInf) {
  std::vector<MetricFamily> families;
  families.push_back({"skade_h", "h", MetricType::kHistogram, {{{}, 0, HistogramSnapshot{}}}});
  EXPECT_EQ(WriteTextFormat(families),
            "# HELP skade_h h\n# TYPE skade_h histogram\n"
            "skade_h_bucket{le=\"+Inf\"} 0\nskade_h_sum 0\nskade_h_count 0\n");
}

}  // namespace
}  // namespace skade::metrics
