#include <algorithm>

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
  return CommitFullGroups();
}

void SnapshotCommitter::Hold(spec::DataFile file) { pending_.push_back(std::move(file)); }

Status SnapshotCommitter::CommitFullGroups() {
  if (files_per_commit_ <= 0) return OkStatus();
  const auto group = static_cast<size_t>(files_per_commit_);
  return Commit(pending_.size() - pending_.size() % group);
}

Status SnapshotCommitter::Flush() {
  // An overwrite removes what its filter matches even when the input had no
  // rows: "replace with nothing" empties what it names.
  if (pending_.empty() && action_.overwrite && commits_ == 0) return Commit(0, true);
  return Commit(pending_.size());
}

Status SnapshotCommitter::Commit(size_t count, bool empty_overwrite) {
  if (count == 0 && !empty_overwrite) return OkStatus();
  if (stop_.stop_requested()) return MakeError(ErrorKind::kCancelled, "Ingest cancelled");
  SKADE_RETURN_NOT_OK(action_.CheckAdded(table_.metadata(), {pending_.data(), count}));
  int64_t started = MonotonicMicros();
  ReplacedPartitions replaced = replaced_;
  table::Transaction transaction(table_);
  const size_t group =
      files_per_commit_ > 0 ? static_cast<size_t>(files_per_commit_) : std::max<size_t>(count, 1);
  if (count == 0) action_.Stage(transaction, {}, &replaced);
  for (size_t first = 0; first < count; first += group) {
    auto begin = pending_.begin() + static_cast<ptrdiff_t>(first);
    action_.Stage(transaction,
                  {begin, begin + static_cast<ptrdiff_t>(std::min(group, count - first))},
                  &replaced);
  }
  Result<table::Table> committed = transaction.Commit();
  commit_us_ += MonotonicMicros() - started;
  if (!committed) {
    outcome_unknown_ = committed.error().kind == ErrorKind::kCommitStateUnknown;
    return tl::unexpected(committed.error());
  }
  table_ = std::move(*committed);
  replaced_ = std::move(replaced);
  ++commits_;
  // One per group staged (the empty overwrite's one).
  snapshots_ += count == 0 ? 1 : static_cast<int64_t>((count + group - 1) / group);
  for (size_t i = 0; i < count; ++i) {
    ++committed_files_;
    committed_rows_ += pending_[i].record_count;
    committed_bytes_ += pending_[i].file_size_in_bytes;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(count));
  if (on_commit_) on_commit_();
  return OkStatus();
}

}  // namespace skade::ingest
