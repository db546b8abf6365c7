// SnapshotCommitter: the commit stage of the ingest pipelines. Takes data
// files in submission order and commits one snapshot per
// `files_per_commit` files, advancing its own Table handle. Counts what it
// committed.
//
// Add() commits each group as it fills: one catalog commit per snapshot.
// The overlapped pipeline instead Hold()s every file written while a commit
// was under way and then commits all the full groups in one catalog commit,
// a snapshot per group chained in order (a table::Transaction): the same
// snapshots, fewer round trips to a slow store.
//
// Each snapshot is the one SnapshotAction chooses (append, or an overwrite
// of what it replaces). With an `overwrite` filter, `files_per_commit` is
// ignored and everything is committed in one overwrite snapshot on
// Flush(): an overwrite split over several snapshots would show readers the
// replaced rows gone before the new ones all landed, and leave them gone
// after a failure. That snapshot is committed even without files (the
// filter's files removed), and is refused (kInvalidArgument, nothing
// committed) when a file lies outside the filter (SnapshotAction::CheckAdded).
//
// A commit either lands whole or not at all (see table/snapshot_update.h);
// files handed over but not yet committed are never committed after an
// error or a stop request. Not thread-safe: one thread drives it.
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <vector>

#include "skade/ingest/snapshot_action_internal.h"
#include "skade/spec/data_file.h"
#include "skade/table/table.h"
#include "skade/util/result.h"

namespace skade::ingest {

class SnapshotCommitter {
 public:
  /// `on_commit` runs after each commit (for progress reports).
  SnapshotCommitter(table::Table table, int64_t files_per_commit, SnapshotAction action,
                    std::stop_token stop, std::function<void()> on_commit);

  /// Takes the next file; commits once `files_per_commit` are pending.
  Status Add(spec::DataFile file);
  /// Takes the next file, to be committed by CommitFullGroups() or Flush().
  void Hold(spec::DataFile file);
  /// Commits every full group of `files_per_commit` pending files, a
  /// snapshot each, in one catalog commit; the rest stays pending. Nothing
  /// is full without `files_per_commit`.
  Status CommitFullGroups();
  /// Commits the pending files, if any, in one catalog commit: a snapshot
  /// per full group and one for the rest. With an `overwrite` filter and no
  /// files at all, commits the removal of what the filter matches.
  Status Flush();

  const table::Table& table() const { return table_; }
  /// Catalog commits made, and the snapshots they added.
  int64_t commits() const { return commits_; }
  int64_t snapshots() const { return snapshots_; }
  /// Files committed so far: always a prefix of the submission order.
  int64_t committed_files() const { return committed_files_; }
  int64_t committed_rows() const { return committed_rows_; }
  int64_t committed_bytes() const { return committed_bytes_; }
  int64_t commit_us() const { return commit_us_; }
  /// True when the last commit failed in a way that may have landed.
  bool outcome_unknown() const { return outcome_unknown_; }

 private:
  table::Table table_;
  int64_t files_per_commit_;
  SnapshotAction action_;
  // The partitions committed snapshots of this ingest replaced.
  ReplacedPartitions replaced_;
  std::stop_token stop_;
  std::function<void()> on_commit_;
  // Commits the first `count` pending files (see Flush()); with
  // `empty_overwrite`, also when there are none.
  Status Commit(size_t count, bool empty_overwrite = false);

  std::vector<spec::DataFile> pending_;
  int64_t commits_ = 0;
  int64_t snapshots_ = 0;
  int64_t committed_files_ = 0;
  int64_t committed_rows_ = 0;
  int64_t committed_bytes_ = 0;
  int64_t commit_us_ = 0;
  bool outcome_unknown_ = false;
};

}  // namespace skade::ingest
