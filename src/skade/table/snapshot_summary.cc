#include "skade/table/snapshot_summary.h"

#include "skade/spec/snapshot_totals.h"
#include "skade/util/strings.h"

namespace skade::table {

namespace {

// A key that tells partitions apart (Java keys by the partition path; any
// injective encoding counts the same).
std::string PartitionKey(const spec::DataFile& file) {
  std::string key = StrCat(file.spec_id, ":");
  for (const spec::Literal& value : file.partition) {
    if (value.is_null()) {
      key.push_back('n');
    } else {
      std::string bytes = value.ToBytes();
      StrAppend(&key, "v", bytes.size(), ":", bytes);
    }
  }
  return key;
}

void SetIfPositive(std::map<std::string, std::string>& summary, const char* key, int64_t value) {
  if (value > 0) summary[key] = StrCat(value);
}

}  // namespace

void SnapshotSummaryBuilder::Counts::Count(const spec::DataFile& file) {
  file_size += file.file_size_in_bytes;
  switch (file.content) {
    case spec::DataFileContent::kData:
      ++data_files;
      records += file.record_count;
      break;
    case spec::DataFileContent::kPositionDeletes:
      ++delete_files;
      ++position_delete_files;
      position_deletes += file.record_count;
      break;
    case spec::DataFileContent::kEqualityDeletes:
      ++delete_files;
      ++equality_delete_files;
      equality_deletes += file.record_count;
      break;
  }
}

void SnapshotSummaryBuilder::AddedFile(const spec::DataFile& file) {
  added_.Count(file);
  changed_partitions_.insert(PartitionKey(file));
}

void SnapshotSummaryBuilder::RemovedFile(const spec::DataFile& file) {
  removed_.Count(file);
  changed_partitions_.insert(PartitionKey(file));
}

std::map<std::string, std::string> SnapshotSummaryBuilder::Build(
    std::string_view operation, const spec::Snapshot* parent) const {
  std::map<std::string, std::string> summary = properties_;
  SetIfPositive(summary, "added-data-files", added_.data_files);
  SetIfPositive(summary, "deleted-data-files", removed_.data_files);
  SetIfPositive(summary, "added-equality-delete-files", added_.equality_delete_files);
  SetIfPositive(summary, "removed-equality-delete-files", removed_.equality_delete_files);
  SetIfPositive(summary, "added-position-delete-files", added_.position_delete_files);
  SetIfPositive(summary, "removed-position-delete-files", removed_.position_delete_files);
  SetIfPositive(summary, "added-delete-files", added_.delete_files);
  SetIfPositive(summary, "removed-delete-files", removed_.delete_files);
  SetIfPositive(summary, "added-records", added_.records);
  SetIfPositive(summary, "deleted-records", removed_.records);
  SetIfPositive(summary, "added-files-size", added_.file_size);
  SetIfPositive(summary, "removed-files-size", removed_.file_size);
  SetIfPositive(summary, "added-position-deletes", added_.position_deletes);
  SetIfPositive(summary, "removed-position-deletes", removed_.position_deletes);
  SetIfPositive(summary, "added-equality-deletes", added_.equality_deletes);
  SetIfPositive(summary, "removed-equality-deletes", removed_.equality_deletes);
  summary["changed-partition-count"] = StrCat(changed_partitions_.size());

  spec::CarryTotals(parent, &summary);
  summary["operation"] = std::string(operation);
  return summary;
}

}  // namespace skade::table
