// ConflictValidator: the check an overwrite or delete makes on every
// rebase — did a snapshot committed since the operation's starting
// snapshot add files its conflict filter matches? (Iceberg Java's
// MergingSnapshotProducer.validateAddedDataFiles and
// validateNoNewDeleteFiles.) See isolation_level.h for what each level
// checks.
//
// Only snapshots on the main branch between the starting snapshot
// (exclusive) and the current one are read, and only the manifests each of
// them added; "replace" snapshots (compaction) add no new rows and are
// skipped. Snapshots are immutable, so one that passed is not read again on
// a later rebase. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/table/isolation_level.h"
#include "skade/table/partition_filter.h"
#include "skade/util/result.h"

namespace skade::table {

class ConflictValidator {
 public:
  /// `starting_snapshot_id`: main's snapshot when the operation was created
  /// (none for an empty table).
  ConflictValidator(std::optional<int64_t> starting_snapshot_id, PartitionFilter filter,
                    IsolationLevel isolation)
      : starting_snapshot_id_(starting_snapshot_id),
        filter_(std::move(filter)),
        isolation_(isolation) {}

  /// OK when nothing committed to main of `current` since the starting
  /// snapshot conflicts. kCommitFailed (final: the commit loop does not
  /// retry it) naming the first conflicting file, or when the starting
  /// snapshot is no longer an ancestor of main (history rewritten or
  /// expired, so what happened in between cannot be known). FileIO errors
  /// and kCorruption from reading manifests.
  Status Validate(const spec::TableMetadata& current, io::FileIO& io);

  IsolationLevel isolation() const { return isolation_; }

 private:
  Status ValidateSnapshot(const spec::TableMetadata& current, io::FileIO& io,
                          const spec::Snapshot& snapshot);

  std::optional<int64_t> starting_snapshot_id_;
  PartitionFilter filter_;
  IsolationLevel isolation_;
  std::set<int64_t> validated_;
};

}  // namespace skade::table
