#include "skade/ingest/snapshot_committer_internal.h"
#include "skade/table/transaction.h"
#include "skade/util/clock.h"

namespace skade::ingest {

SnapshotCommitter::SnapshotCommitter(table::Table table, int64_t files_per_commit,
                                     SnapshotAction action, std::stop_token stop,
                                     std::function<void()> on_commit)
    : table_(std::move(table)),
      files_per_commit_(action.overwrite ? 0 : files_per_commit),
      action_(std::move(action)),
      stop_(std::move(stop)),
      on_commit_(std::move(on_commit)) {}

Status SnapshotCommitter::Add(spec::DataFile file) {
  pending_.push_back(std::move(file));
  if (files_per_commit_ > 0 && static_cast<int64_t>(pending_.size()) >= files_per_commit_) {
    return Flush();
  }
  return OkStatus();
}

Status SnapshotCommitter::Flush() {
  if (pending_.empty()) return OkStatus();
  if (stop_.stop_requested()) return MakeError(ErrorKind::kCancelled, "Ingest cancelled");
  int64_t started = MonotonicMicros();
  ReplacedPartitions replaced = replaced_;
  table::Transaction transaction(table_);
  action_.Stage(transaction, pending_, &replaced);
  Result<table::Table> committed = transaction.Commit();
  commit_us_ += MonotonicMicros() - started;
  if (!committed) {
    outcome_unknown_ = committed.error().kind == ErrorKind::kCommitStateUnknown;
    return tl::unexpected(committed.error());
  }
  table_ = std::move(*committed);
  replaced_ = std::move(replaced);
  ++commits_;
  for (const spec::DataFile& file : pending_) {
    ++committed_files_;
    committed_rows_ += file.record_count;
    committed_bytes_ += file.file_size_in_bytes;
  }
  pending_.clear();
  if (on_commit_) on_commit_();
  return OkStatus();
}

}  // namespace skade::ingest
