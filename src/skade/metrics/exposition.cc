#include "skade/metrics/exposition.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace skade::metrics {

namespace {

// `value` with backslash and newline escaped, and double quotes too if
// `quotes` (label values; HELP text keeps them).
std::string Escape(std::string_view value, bool quotes) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

// `{a="x",b="y"}` with `extra` (the `le` bound) last; nothing if no labels.
void AppendLabels(std::string& out, const LabelPairs& labels,
                  const std::pair<std::string_view, std::string>* extra = nullptr) {
  if (labels.empty() && extra == nullptr) return;
  out += '{';
  bool first = true;
  auto append = [&](std::string_view name, std::string_view value) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    out += EscapeLabelValue(value);
    out += '"';
  };
  for (const auto& [name, value] : labels) append(name, value);
  if (extra != nullptr) append(extra->first, extra->second);
  out += '}';
}

void AppendSample(std::string& out, std::string_view name, std::string_view suffix,
                  const LabelPairs& labels, double value,
                  const std::pair<std::string_view, std::string>* extra = nullptr) {
  out += name;
  out += suffix;
  AppendLabels(out, labels, extra);
  out += ' ';
  out += FormatValue(value);
  out += '\n';
}

}  // namespace

std::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[32];
  // Integers (counts, bytes) below 2^53 are exact in a double: no exponent.
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
    return buf;
  }
  // The shortest text that reads back as the same double (0.005, not
  // 0.0050000000000000001), in fixed notation where that stays short (bucket
  // bounds read 0.0001, not 1e-04).
  const double magnitude = std::fabs(value);
  const auto format =
      magnitude >= 1e-6 && magnitude < 1e15 ? std::chars_format::fixed : std::chars_format::general;
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, format);
  return std::string(buf, ec == std::errc() ? end : buf);
}

std::string EscapeLabelValue(std::string_view value) { return Escape(value, true); }

std::string WriteTextFormat(std::span<const MetricFamily> families) {
  std::string out;
  for (const MetricFamily& family : families) {
    out += "# HELP ";
    out += family.name;
    out += ' ';
    out += Escape(family.help, false);
    out += "\n# TYPE ";
    out += family.name;
    out += ' ';
    out += MetricTypeName(family.type);
    out += '\n';
    for (const MetricSample& sample : family.samples) {
      if (family.type != MetricType::kHistogram) {
        AppendSample(out, family.name, "", sample.labels, sample.value);
        continue;
      }
      const HistogramSnapshot& histogram = sample.histogram;
      uint64_t cumulative = 0;
      for (size_t i = 0; i < histogram.bucket_counts.size(); ++i) {
        cumulative += histogram.bucket_counts[i];
        std::pair<std::string_view, std::string> le{
            "le", i < histogram.upper_bounds.size() ? FormatValue(histogram.upper_bounds[i])
                                                    : std::string("+Inf")};
        AppendSample(out, family.name, "_bucket", sample.labels, static_cast<double>(cumulative),
                     &le);
      }
      if (histogram.bucket_counts.empty()) {
        std::pair<std::string_view, std::string> le{"le", "+Inf"};
        AppendSample(out, family.name, "_bucket", sample.labels, 0, &le);
      }
      AppendSample(out, family.name, "_sum", sample.labels, histogram.sum);
      AppendSample(out, family.name, "_count", sample.labels, static_cast<double>(histogram.count));
    }
  }
  return out;
}

}  // namespace skade::metrics
