#include <algorithm>

#include "skade/ingest/snapshot_committer_internal.h"
#include "skade/table/fast_append.h"
#include "skade/table/overwrite_files.h"
#include "skade/util/clock.h"

namespace skade::ingest {

SnapshotCommitter::SnapshotCommitter(table::Table table, int64_t files_per_commit,
                                     std::optional<table::PartitionFilter> overwrite,
                                     bool replace_partitions, table::IsolationLevel isolation,
                                     std::map<std::string, std::string> summary,
                                     std::stop_token stop, std::function<void()> on_commit)
    : table_(std::move(table)),
      files_per_commit_(overwrite ? 0 : files_per_commit),
      overwrite_(std::move(overwrite)),
      replace_partitions_(replace_partitions),
      isolation_(isolation),
      summary_(std::move(summary)),
      stop_(std::move(stop)),
      on_commit_(std::move(on_commit)) {}

std::optional<table::PartitionFilter> SnapshotCommitter::Replacing(
    const std::optional<table::PartitionFilter>& overwrite, bool replace_partitions,
    const std::vector<spec::DataFile>& files, std::vector<std::vector<spec::Literal>>* replaced) {
  if (!replace_partitions || files.empty()) return overwrite;
  std::vector<std::vector<spec::Literal>> tuples;
  for (const spec::DataFile& file : files) {
    if (std::find(replaced->begin(), replaced->end(), file.partition) == replaced->end()) {
      replaced->push_back(file.partition);
      tuples.push_back(file.partition);
    }
  }
  if (tuples.empty()) return overwrite;
  table::PartitionFilter partitions =
      table::PartitionFilter::Tuples(files.front().spec_id, std::move(tuples));
  if (!overwrite) return partitions;
  return table::PartitionFilter(
      [partitions, overwrite = *overwrite](const spec::PartitionSpec& spec,
                                           const std::vector<spec::Literal>& partition) {
        return partitions.Matches(spec, partition) || overwrite.Matches(spec, partition);
      },
      StrCat(partitions.description(), " or ", overwrite->description()));
}

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
  std::vector<std::vector<spec::Literal>> replaced = replaced_;
  std::optional<table::PartitionFilter> filter =
      Replacing(overwrite_, replace_partitions_, pending_, &replaced);
  if (filter) {
    auto overwrite = std::make_unique<table::OverwriteFiles>(table_, *filter);
    overwrite->SetIsolationLevel(isolation_);
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
