// What the ingest pipelines take and report: IngestOptions, IngestProgress
// and IngestStats. Plain values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>

#include "skade/data/data_writer_options.h"
#include "skade/table/isolation_level.h"
#include "skade/table/partition_filter.h"

namespace skade {
class WorkerPool;
}  // namespace skade

namespace skade::ingest {

/// Where an ingest stands; reported after every file written and every
/// commit.
struct IngestProgress {
  /// Files known so far: the pipelines encode as they write, so this grows
  /// until the last group is encoded.
  int64_t files_total = 0;
  int64_t files_written = 0;
  int64_t rows_written = 0;
  int64_t bytes_written = 0;
  int64_t commits = 0;
};

struct IngestOptions {
  /// Data files per snapshot; 0 puts every file of the ingest in one
  /// snapshot. Ignored with `overwrite` (one snapshot).
  int64_t files_per_commit = 0;
  /// The most file writes in flight (and files held for reordering); in
  /// the overlapped path also how many commit groups of written files may
  /// wait for the committer (files, without files_per_commit).
  /// Bounds memory: groups are encoded only while fewer than
  /// channel_depth + workers of them are encoded and not yet written, so
  /// about that many groups' files are held in memory at once.
  int channel_depth = 4;
  /// Encode workers; null means WorkerPool::Default() (one per core).
  WorkerPool* pool = nullptr;
  /// Parquet writing; unset means the table's properties
  /// (DataWriterOptions::FromProperties). Files are made durable as the
  /// table's durable_files() says, whatever `durable` holds.
  std::optional<data::DataWriterOptions> writer_options;
  /// Data files are named `<file_prefix>-<seq:08>.parquet`, seq counting
  /// files in submission order from 0; empty means a fresh UUID.
  std::string file_prefix;
  /// Also remove the files this filter matches, atomically with adding the
  /// new ones: the ingest commits one "overwrite" snapshot at the end
  /// (files_per_commit is ignored), so readers never see the table without
  /// the replaced rows and without the new ones, and a failure leaves the
  /// old data. Without `replace_partitions`, every new file must lie in
  /// what the filter matches (Iceberg Java's
  /// validateAddedFilesMatchOverwriteFilter): otherwise kInvalidArgument,
  /// nothing committed. An ingest without rows still commits the removal
  /// (a "delete" snapshot).
  std::optional<table::PartitionFilter> overwrite;
  /// Dynamic partition overwrite: each snapshot also removes the files in
  /// the partitions its new files are the ingest's first to land in (an
  /// "overwrite" snapshot; one with no such partition appends). With
  /// several commits a partition is replaced when its first new files
  /// commit, and a failure leaves the partitions not yet reached intact.
  /// Combines with `overwrite` (either matches; then one snapshot).
  bool replace_partitions = false;
  /// What a replacing snapshot checks against concurrent commits (see
  /// table/isolation_level.h): by default a concurrent commit adding files
  /// to a partition being replaced fails the ingest with kCommitFailed.
  table::IsolationLevel isolation = table::IsolationLevel::kSerializable;
  /// Extra snapshot summary properties, e.g. {"engine-name", "skade"}.
  std::map<std::string, std::string> summary;
  /// Stops the ingest between steps (kCancelled): no new write or commit
  /// starts; a commit under way completes or rolls back as a whole.
  std::stop_token stop;
  /// Called from pipeline threads, never concurrently; keep it quick.
  std::function<void(const IngestProgress&)> progress;
};

/// What an ingest did. Times are wall-clock microseconds per stage. The
/// pipelines encode beside the writes: encode_us is the time spent in
/// encode batches and write_us runs from the start until the last write,
/// so they overlap; in the overlapped path the commit stage runs at once
/// too.
struct IngestStats {
  int64_t rows = 0;                // rows committed
  int64_t files = 0;               // data files committed
  int64_t bytes = 0;               // bytes of those files
  int64_t commits = 0;             // catalog commits made
  int64_t snapshots = 0;           // snapshots they added (the overlapped path chains several)
  int64_t peak_encoded_files = 0;  // the most files held encoded in memory at once
  int64_t encode_us = 0;
  int64_t write_us = 0;
  int64_t commit_us = 0;  // time spent inside commits
  int64_t total_us = 0;
};

}  // namespace skade::ingest
