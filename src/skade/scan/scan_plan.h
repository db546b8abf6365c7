// What scan planning produces: one task per data file, with the delete
// files that apply to it and the filter left to check per row, plus how
// many files each pruning step removed. Values; thread-safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/expr/bound_expression.h"
#include "skade/spec/data_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/snapshot.h"
#include "skade/spec/table_metadata.h"

namespace skade::scan {

/// A delete file that applies to a task's data file.
struct ScanDelete {
  spec::DataFile file;  // content kPositionDeletes or kEqualityDeletes
  int64_t data_sequence_number = 0;
};

/// What tells one delete file from another: its path, and for a deletion
/// vector its offset in the Puffin file (many data files' vectors share one
/// file).
using DeleteFileKey = std::pair<std::string_view, int64_t>;
inline DeleteFileKey KeyOf(const spec::DataFile& file) {
  return {file.file_path, file.content_offset.value_or(-1)};
}

struct FileScanTask {
  spec::DataFile data_file;
  /// The data file's data sequence number and the snapshot that added it.
  int64_t data_sequence_number = 0;
  int64_t file_sequence_number = 0;
  /// Position deletes (including v3 deletion vectors: a kPositionDeletes
  /// file in PUFFIN format with referenced_data_file/content_offset/
  /// content_size_in_bytes) and equality deletes that apply to the file.
  std::vector<ScanDelete> deletes;
  /// What each row must still satisfy (true when the partition decides).
  expr::BoundExpressionPtr residual;
  /// The spec the data file's partition tuple belongs to.
  spec::PartitionSpecPtr spec;
};

/// How many manifests and files each pruning step removed (for
/// `skade scan --plan` and the REST planning metrics).
struct PlanStats {
  int64_t manifests_total = 0;              // data and delete manifests listed
  int64_t manifests_pruned_by_summary = 0;  // partition summaries ruled them out
  int64_t manifests_read = 0;
  int64_t manifest_cache_hits = 0;
  int64_t data_files_total = 0;  // live data files in the manifests read
  int64_t data_files_pruned_by_partition = 0;
  int64_t data_files_pruned_by_metrics = 0;
  int64_t delete_files_total = 0;
  int64_t delete_files_applied = 0;  // distinct delete files some task uses
  int64_t planning_micros = 0;
};

struct ScanPlan {
  spec::TableMetadataPtr metadata;
  std::string metadata_location;
  /// The snapshot scanned; null when the table has none (no tasks).
  spec::SnapshotPtr snapshot;
  /// The schema rows are read in and the filter is bound to: the one
  /// ScanOptions::use_snapshot_schema chose (by default the snapshot's when
  /// scanning a snapshot id, timestamp or tag; the table's current schema
  /// for the current state, a branch or an incremental scan).
  spec::SchemaPtr schema;
  /// An incremental append scan: its exclusive start, and the append
  /// snapshots whose added files it read, newest first (`snapshot` is the
  /// end). Unset and empty for any other scan.
  std::optional<int64_t> from_snapshot_id;
  std::vector<int64_t> append_snapshot_ids;
  /// The columns to return, by field id, in output order (every top-level
  /// column of `schema` when nothing was selected).
  std::vector<int32_t> projected_field_ids;
  /// The bound filter (true when none).
  expr::BoundExpressionPtr filter;
  bool case_sensitive = true;
  std::vector<FileScanTask> tasks;
  PlanStats stats;
};

}  // namespace skade::scan
