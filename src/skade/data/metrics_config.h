// Which column metrics a data file records (table properties
// "write.metadata.metrics.default" and "write.metadata.metrics.column.<name>").
//
// Modes, as Iceberg defines them: none (no metrics), counts (value, null and
// NaN counts), truncate(N) (counts and bounds; string and binary bounds cut
// to N code points / bytes), full (counts and untruncated bounds). The
// default is truncate(16). Immutable values; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade::data {

struct MetricsMode {
  enum class Kind { kNone, kCounts, kTruncate, kFull };

  Kind kind = Kind::kTruncate;
  /// The truncation length for kTruncate; unused otherwise.
  int32_t length = 16;

  static MetricsMode None() { return {Kind::kNone, 0}; }
  static MetricsMode Counts() { return {Kind::kCounts, 0}; }
  static MetricsMode Truncate(int32_t length) { return {Kind::kTruncate, length}; }
  static MetricsMode Full() { return {Kind::kFull, 0}; }

  /// Parses "none", "counts", "full" or "truncate(N)" with N > 0
  /// (case-insensitive); anything else is kInvalidArgument.
  static Result<MetricsMode> Parse(std::string_view text);

  /// The property form, e.g. "truncate(16)".
  std::string ToString() const;

  bool operator==(const MetricsMode& other) const = default;
};

class MetricsConfig {
 public:
  /// truncate(16) for every column.
  MetricsConfig() = default;

  /// Reads the default and per-column modes from table properties. An
  /// unparsable mode is kInvalidArgument naming the property.
  static Result<MetricsConfig> FromProperties(const std::map<std::string, std::string>& properties);

  /// The mode for a column by its full dotted name (e.g. "location.lat").
  MetricsMode ColumnMode(std::string_view column_name) const;

 private:
  MetricsMode default_mode_;
  std::map<std::string, MetricsMode, std::less<>> column_modes_;
};

}  // namespace skade::data
