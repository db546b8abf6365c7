#include "skade/data/metrics_config.h"

#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"

namespace skade::data {

Result<MetricsMode> MetricsMode::Parse(std::string_view text) {
  std::string lower = AsciiLower(StripWhitespace(text));
  if (lower == "none") return None();
  if (lower == "counts") return Counts();
  if (lower == "full") return Full();
  std::string_view rest = lower;
  if (ConsumePrefix(&rest, "truncate(") && ConsumeSuffix(&rest, ")")) {
    auto length = ParseInt32(StripWhitespace(rest));
    if (length && *length > 0) return Truncate(*length);
  }
  return InvalidArgument("Invalid metrics mode: '", text,
                         "' (expected none, counts, full or truncate(N) with N > 0)");
}

std::string MetricsMode::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kCounts:
      return "counts";
    case Kind::kTruncate:
      return StrCat("truncate(", length, ")");
    case Kind::kFull:
      return "full";
  }
  return "full";
}

Result<MetricsConfig> MetricsConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  MetricsConfig config;
  for (const auto& [key, value] : properties) {
    std::string_view column = key;
    bool is_default = key == spec::kMetricsDefault;
    if (!is_default && !ConsumePrefix(&column, spec::kMetricsColumnPrefix)) continue;
    auto mode = MetricsMode::Parse(value);
    if (!mode) return InvalidArgument("Property ", key, ": ", mode.error().message);
    if (is_default) {
      config.default_mode_ = *mode;
    } else {
      config.column_modes_[std::string(column)] = *mode;
    }
  }
  return config;
}

MetricsMode MetricsConfig::ColumnMode(std::string_view column_name) const {
  auto it = column_modes_.find(column_name);
  return it == column_modes_.end() ? default_mode_ : it->second;
}

}  // namespace skade::data
