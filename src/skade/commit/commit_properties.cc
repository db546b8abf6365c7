#include "skade/commit/commit_properties.h"

#include "skade/util/strings.h"

namespace skade::commit {

Result<CommitProperties> CommitProperties::Of(const spec::TableMetadata& metadata) {
  // Only what the committer reads: another skade.commit.* key a registered
  // table carries does not stop its writes.
  for (const char* key : {kHistoryModeProperty, kDeferredMaxBytesProperty}) {
    if (auto it = metadata.properties.find(key); it != metadata.properties.end()) {
      SKADE_RETURN_NOT_OK(catalog::CheckKnownSkadeProperty(key, it->second));
    }
  }
  CommitProperties properties;
  if (metadata.Property(kHistoryModeProperty, "merged") == "per-transaction") {
    properties.history_mode = HistoryMode::kPerTransaction;
  }
  properties.deferred_max_bytes =
      metadata.PropertyAsInt(kDeferredMaxBytesProperty, kDeferredMaxBytesDefault);
  return properties;
}

}  // namespace skade::commit
