// SnapshotAction: the one place that decides which snapshot an ingest
// commits for the files it adds — the pipelines' SnapshotCommitter (and so
// Append and `skade ingest`) and IngestMulti alike.
//
// A snapshot is an "overwrite" when it replaces anything: the `overwrite`
// filter, or with `replace_partitions` the partitions its files are the
// ingest's first to land in (a partition an earlier snapshot of the ingest
// already replaced is appended to, keeping that snapshot's files); the
// overwrite checks concurrent commits at `isolation`. Otherwise it is a fast
// append. Either carries the `summary` properties.
//
// A plain value; const methods are thread-safe.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "skade/ingest/ingest_options.h"
#include "skade/spec/data_file.h"
#include "skade/spec/table_metadata.h"
#include "skade/table/isolation_level.h"
#include "skade/table/partition_filter.h"
#include "skade/table/transaction.h"

namespace skade::ingest {

/// The partition tuples an ingest's committed snapshots replaced.
using ReplacedPartitions = std::vector<std::vector<spec::Literal>>;

struct SnapshotAction {
  std::optional<table::PartitionFilter> overwrite;
  bool replace_partitions = false;
  table::IsolationLevel isolation = table::IsolationLevel::kSerializable;
  std::map<std::string, std::string> summary;

  /// The action `options` ask for.
  static SnapshotAction Of(const IngestOptions& options);

  /// What a snapshot adding `files` removes: `overwrite`, and with
  /// `replace_partitions` the partitions of `files` not in `replaced`
  /// (which it extends by them). Unset: the snapshot only appends.
  std::optional<table::PartitionFilter> Replacing(const std::vector<spec::DataFile>& files,
                                                  ReplacedPartitions* replaced) const;

  /// Whether `files` may be added by the `overwrite` filter's snapshot: with
  /// a filter (and without `replace_partitions`, whose snapshots replace the
  /// partitions they add to), every file's partition must match it, as
  /// Iceberg Java's validateAddedFilesMatchOverwriteFilter (Spark's static
  /// overwrite) requires — else a rerun would not replace the rows it added
  /// outside the filter, and each rerun would add them again.
  /// kInvalidArgument naming the first file's partition and the filter.
  Status CheckAdded(const spec::TableMetadata& metadata,
                    std::span<const spec::DataFile> files) const;

  /// Stages in `transaction` the snapshot adding `files`; `replaced` as for
  /// Replacing. Without files it stages the removal of what `overwrite`
  /// matches (a "delete" snapshot, as Iceberg Java calls an overwrite that
  /// adds nothing), or nothing without `overwrite`.
  void Stage(table::Transaction& transaction, std::vector<spec::DataFile> files,
             ReplacedPartitions* replaced) const;
};

}  // namespace skade::ingest
