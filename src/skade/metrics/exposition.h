// The Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/): what
// GET /metrics answers, as "text/plain; version=0.0.4; charset=utf-8".
//
// Each family is a `# HELP` line (backslash and newline escaped), a `# TYPE`
// line and its samples, one per line: `name{label="value",…} value`, label
// values with backslash, double quote and newline escaped. A histogram's
// samples are its cumulative buckets `name_bucket{…,le="…"}` ending with
// le="+Inf", then `name_sum` and `name_count`. Values are written exactly:
// integers without exponent or decimals, others as the shortest text that
// reads back as the same double, "+Inf", "-Inf", "NaN".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/metrics/histogram.h"

namespace skade::metrics {

inline constexpr std::string_view kTextFormatContentType =
    "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kHistogram };

/// "counter", "gauge", "histogram": the TYPE line's word.
std::string_view MetricTypeName(MetricType type);

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

/// One series of a family: its labels and its value (counter, gauge) or its
/// histogram.
struct MetricSample {
  LabelPairs labels;
  double value = 0;
  HistogramSnapshot histogram;  // kHistogram only
};

struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<MetricSample> samples;
};

/// `families` in the text format, in the order given. A family without
/// samples still gets its HELP and TYPE lines.
std::string WriteTextFormat(std::span<const MetricFamily> families);

/// A sample value or `le` bound as the format writes it.
std::string FormatValue(double value);

/// A label value with `\`, `"` and newline escaped.
std::string EscapeLabelValue(std::string_view value);

}  // namespace skade::metrics
