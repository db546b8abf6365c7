#include <algorithm>

#include "skade/data/partition_path.h"
#include "skade/ingest/snapshot_action_internal.h"
#include "skade/table/delete_files.h"
#include "skade/util/strings.h"

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
    auto same = [&](const std::vector<spec::Literal>& tuple) {
      return table::SamePartition(tuple, file.partition);
    };
    if (std::none_of(replaced->begin(), replaced->end(), same)) {
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

Status SnapshotAction::CheckAdded(const spec::TableMetadata& metadata,
                                  std::span<const spec::DataFile> files) const {
  if (!overwrite || replace_partitions) return OkStatus();
  for (const spec::DataFile& file : files) {
    spec::PartitionSpecPtr spec = metadata.SpecById(file.spec_id);
    if (spec == nullptr) {
      return InternalError("data file ", file.file_path, " has unknown partition spec ",
                           file.spec_id);
    }
    if (overwrite->Matches(*spec, file)) continue;
    std::string partition = "()";
    if (!spec->fields.empty() && metadata.Schema() != nullptr) {
      auto path = data::PartitionPath(*spec, *metadata.Schema(), file.partition);
      if (path) partition = *path;
    }
    return InvalidArgument("cannot overwrite ", overwrite->description(),
                           ": the input has rows in partition ", partition,
                           ", outside the overwrite filter (Iceberg's static overwrite refuses "
                           "them: a rerun would add them again; --replace-partitions replaces "
                           "every partition the input writes to)");
  }
  return OkStatus();
}

void SnapshotAction::Stage(table::Transaction& transaction, std::vector<spec::DataFile> files,
                           ReplacedPartitions* replaced) const {
  table::SnapshotUpdate* update;
  if (files.empty()) {
    if (!overwrite) return;
    table::DeleteFiles& remove = transaction.NewDelete(*overwrite);
    remove.SetIsolationLevel(isolation);
    update = &remove;
  } else if (std::optional<table::PartitionFilter> filter = Replacing(files, replaced)) {
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
