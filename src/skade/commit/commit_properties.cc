#include "skade/commit/commit_properties.h"

#include "skade/util/strings.h"

namespace skade::commit {

Result<CommitProperties> CommitProperties::Of(const spec::TableMetadata& metadata) {
  CommitProperties properties;
  auto mode = metadata.properties.find(kHistoryModeProperty);
  if (mode != metadata.properties.end()) {
    if (mode->second == "merged") {
      properties.history_mode = HistoryMode::kMerged;
    } else if (mode->second == "per-transaction") {
      properties.history_mode = HistoryMode::kPerTransaction;
    } else {
      return InvalidArgument("Invalid ", kHistoryModeProperty, " '", mode->second,
                             "': expected 'merged' or 'per-transaction'");
    }
  }
  auto bytes = metadata.properties.find(kDeferredMaxBytesProperty);
  if (bytes != metadata.properties.end()) {
    auto parsed = ParseInt64(bytes->second);
    if (!parsed || *parsed < 0) {
      return InvalidArgument("Invalid ", kDeferredMaxBytesProperty, " '", bytes->second,
                             "': expected a number of bytes, 0 or more");
    }
    properties.deferred_max_bytes = *parsed;
  }
  return properties;
}

}  // namespace skade::commit
