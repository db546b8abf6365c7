#include <algorithm>

#include "skade/ingest/snapshot_action_internal.h"

namespace skade::ingest {

SnapshotAction SnapshotAction::Of(const IngestOptions& options) {
  return SnapshotAction{options.overwrite, options.replace_partitions, options.isolation,
                        options.summary};
}

std::optional<table::PartitionFilter> SnapshotAction::Replacing(
    const std::vector<spec::DataFile>& files, ReplacedPartitions* replaced) const {
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

void SnapshotAction::Stage(table::Transaction& transaction, std::vector<spec::DataFile> files,
                           ReplacedPartitions* replaced) const {
  table::SnapshotUpdate* update;
  if (std::optional<table::PartitionFilter> filter = Replacing(files, replaced)) {
    table::OverwriteFiles& overwrite_files = transaction.NewOverwrite(std::move(*filter));
    overwrite_files.SetIsolationLevel(isolation);
    for (spec::DataFile& file : files) overwrite_files.AddFile(std::move(file));
    update = &overwrite_files;
  } else {
    table::MergeAppend& append = transaction.NewMergeAppend();
    for (spec::DataFile& file : files) append.AppendFile(std::move(file));
    update = &append;
  }
  for (const auto& [key, value] : summary) update->SetSummaryProperty(key, value);
}

}  // namespace skade::ingest
