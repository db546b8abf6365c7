#include "skade/catalog/skade_table_properties.h"

#include "skade/util/strings.h"

namespace skade::catalog {

Status CheckKnownSkadeProperty(const std::string& key, const std::string& value) {
  if (key == kRebaseAppendsProperty) {
    std::string lower = AsciiLower(value);
    if (lower == "true" || lower == "false") return OkStatus();
    return InvalidArgument("Invalid ", key, " '", value, "': expected 'true' or 'false'");
  }
  if (key == kHistoryModeProperty) {
    if (value == "merged" || value == "per-transaction") return OkStatus();
    return InvalidArgument("Invalid ", key, " '", value,
                           "': expected 'merged' or 'per-transaction'");
  }
  if (key == kDeferredMaxBytesProperty) {
    auto parsed = ParseInt64(value);
    if (parsed && *parsed >= 0) return OkStatus();
    return InvalidArgument("Invalid ", key, " '", value,
                           "': expected a number of bytes, 0 or more");
  }
  return OkStatus();
}

namespace {

Status CheckOne(const std::string& key, const std::string& value) {
  if (key != kRebaseAppendsProperty && key != kHistoryModeProperty &&
      key != kDeferredMaxBytesProperty) {
    return InvalidArgument("Unknown table property ", key, ": skade reads ", kRebaseAppendsProperty,
                           ", ", kHistoryModeProperty, " and ", kDeferredMaxBytesProperty);
  }
  return CheckKnownSkadeProperty(key, value);
}

}  // namespace

Status CheckSkadeProperties(const std::map<std::string, std::string>& properties) {
  for (auto it = properties.lower_bound(kSkadeCommitPropertyPrefix);
       it != properties.end() && it->first.starts_with(kSkadeCommitPropertyPrefix); ++it) {
    SKADE_RETURN_NOT_OK(CheckOne(it->first, it->second));
  }
  return OkStatus();
}

Status CheckSkadePropertyUpdates(const std::vector<spec::TableUpdate>& updates) {
  for (const auto& update : updates) {
    if (auto* set = std::get_if<spec::SetProperties>(&update.value())) {
      SKADE_RETURN_NOT_OK(CheckSkadeProperties(set->updates));
    }
  }
  return OkStatus();
}

}  // namespace skade::catalog
