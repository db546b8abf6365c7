#include "skade/commit/commit_properties.h"

#include "skade/util/strings.h"

namespace skade::commit {

Result<CommitProperties> CommitProperties::Of(const spec::TableMetadata& metadata) {
  SKADE_RETURN_NOT_OK(catalog::CheckSkadeProperties(metadata.properties));
  CommitProperties properties;
  if (metadata.Property(kHistoryModeProperty, "merged") == "per-transaction") {
    properties.history_mode = HistoryMode::kPerTransaction;
  }
  properties.deferred_max_bytes =
      metadata.PropertyAsInt(kDeferredMaxBytesProperty, kDeferredMaxBytesDefault);
  return properties;
}

}  // namespace skade::commit
