#include "skade/table/snapshot_summary.h"

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

// SnapshotProducer.updateTotal().
void UpdateTotal(std::map<std::string, std::string>& summary,
                 const std::map<std::string, std::string>& previous, const char* total_key,
                 const char* added_key, const char* removed_key) {
  auto total_it = previous.find(total_key);
  if (total_it == previous.end()) return;
  std::optional<int64_t> total = ParseInt64(total_it->second);
  if (!total) return;
  int64_t value = *total;
  if (auto added = summary.find(added_key); value >= 0 && added != summary.end()) {
    value += ParseInt64(added->second).value_or(0);
  }
  if (auto removed = summary.find(removed_key); value >= 0 && removed != summary.end()) {
    value -= ParseInt64(removed->second).value_or(0);
  }
  if (value >= 0) summary[total_key] = StrCat(value);
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

  static const std::map<std::string, std::string> kNoParent = {
      {"total-records", "0"},      {"total-files-size", "0"},       {"total-data-files", "0"},
      {"total-delete-files", "0"}, {"total-position-deletes", "0"}, {"total-equality-deletes", "0"},
  };
  const auto& previous = parent != nullptr ? parent->summary : kNoParent;
  UpdateTotal(summary, previous, "total-records", "added-records", "deleted-records");
  UpdateTotal(summary, previous, "total-files-size", "added-files-size", "removed-files-size");
  UpdateTotal(summary, previous, "total-data-files", "added-data-files", "deleted-data-files");
  UpdateTotal(summary, previous, "total-delete-files", "added-delete-files",
              "removed-delete-files");
  UpdateTotal(summary, previous, "total-position-deletes", "added-position-deletes",
              "removed-position-deletes");
  UpdateTotal(summary, previous, "total-equality-deletes", "added-equality-deletes",
              "removed-equality-deletes");
  summary["operation"] = std::string(operation);
  return summary;
}

}  // namespace skade::table
