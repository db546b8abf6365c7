// The table properties that steer the coalescing committer.
//
// Plain values; thread-safe.
#pragma once

#include <cstdint>

#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::commit {

/// "merged" or "per-transaction" (see coalescing_committer.h).
inline constexpr char kHistoryModeProperty[] = "skade.commit.history-mode";
/// Batches smaller than this many bytes (Arrow buffers) are kept in memory
/// and encoded together at the flush; larger ones are written by the caller.
inline constexpr char kDeferredMaxBytesProperty[] = "skade.commit.deferred-max-bytes";
inline constexpr int64_t kDeferredMaxBytesDefault = 4ll << 20;
/// The snapshot-summary property that counts the writes a snapshot holds.
inline constexpr char kLogicalWritesSummary[] = "skade.logical-writes";

enum class HistoryMode { kMerged, kPerTransaction };

struct CommitProperties {
  HistoryMode history_mode = HistoryMode::kMerged;
  int64_t deferred_max_bytes = kDeferredMaxBytesDefault;

  /// From `metadata`'s properties; absent ones keep the defaults. An
  /// unknown mode or a negative or malformed size is kInvalidArgument
  /// naming the property.
  static Result<CommitProperties> Of(const spec::TableMetadata& metadata);
};

}  // namespace skade::commit
