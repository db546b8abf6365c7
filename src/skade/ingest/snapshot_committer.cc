#include "skade/ingest/snapshot_committer_internal.h"
#include "skade/table/fast_append.h"
#include "skade/table/overwrite_files.h"
#include "skade/util/clock.h"

namespace skade::ingest {

SnapshotCommitter::SnapshotCommitter(table::Table table, int64_t files_per_commit,
                                     std::optional<table::PartitionFilter> overwrite,
                                     std::map<std::string, std::string> summary,
                                     std::stop_token stop, std::function<void()> on_commit)
    : table_(std::move(table)),
      files_per_commit_(files_per_commit),
      overwrite_(std::move(overwrite)),
      summary_(std::move(summary)),
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
  std::unique_ptr<table::SnapshotUpdate> update;
  if (overwrite_ && commits_ == 0) {
    auto overwrite = std::make_unique<table::OverwriteFiles>(table_, *overwrite_);
    for (const spec::DataFile& file : pending_) overwrite->AddFile(file);
    update = std::move(overwrite);
  } else {
    auto append = std::make_unique<table::FastAppend>(table_);
    for (const spec::DataFile& file : pending_) append->AppendFile(file);
    update = std::move(append);
  }
  for (const auto& [key, value] : summary_) update->SetSummaryProperty(key, value);
  Result<table::Table> committed = update->Commit();
  commit_us_ += MonotonicMicros() - started;
  if (!committed) {
    outcome_unknown_ = committed.error().kind == ErrorKind::kCommitStateUnknown;
    return tl::unexpected(committed.error());
  }
  table_ = std::move(*committed);
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
