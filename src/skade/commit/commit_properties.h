// The table properties that steer the coalescing committer.
//
// Plain values; thread-safe.
#pragma once

#include <cstdint>

#include "skade/catalog/skade_table_properties.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::commit {

using catalog::kDeferredMaxBytesDefault;
using catalog::kDeferredMaxBytesProperty;
using catalog::kHistoryModeProperty;
/// The snapshot-summary property that counts the writes a snapshot holds.
inline constexpr char kLogicalWritesSummary[] = "skade.logical-writes";

enum class HistoryMode { kMerged, kPerTransaction };

struct CommitProperties {
  HistoryMode history_mode = HistoryMode::kMerged;
  int64_t deferred_max_bytes = kDeferredMaxBytesDefault;

  /// From `metadata`'s properties; absent ones keep the defaults. A value
  /// catalog::CheckKnownSkadeProperty refuses (a table registered with one)
  /// is kInvalidArgument naming the property; other keys are not looked at.
  static Result<CommitProperties> Of(const spec::TableMetadata& metadata);
};

}  // namespace skade::commit
