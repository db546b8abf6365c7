#include "skade/scan/delete_file_index.h"

#include <algorithm>

namespace skade::scan {
namespace {

// Iceberg's reserved field id of a position delete file's file_path column.
constexpr int32_t kDeleteFilePathFieldId = 2147483546;

// Spec id and partition tuple as one key: each value's single-value bytes,
// length-prefixed, with a null marker.
std::string PartitionKey(const spec::DataFile& file) {
  std::string key = std::to_string(file.spec_id);
  for (const spec::Literal& value : file.partition) {
    if (value.is_null()) {
      key.append("|n");
      continue;
    }
    std::string bytes = value.ToBytes();
    key.append("|").append(std::to_string(bytes.size())).append(":").append(bytes);
  }
  return key;
}

bool IsDeletionVector(const spec::DataFile& file) {
  return file.file_format == spec::FileFormat::kPuffin;
}

// Whether a position delete file can hold positions of `path`.
bool MayReference(const spec::DataFile& deletes, const std::string& path) {
  if (deletes.referenced_data_file) return *deletes.referenced_data_file == path;
  auto lower = deletes.lower_bounds.find(kDeleteFilePathFieldId);
  auto upper = deletes.upper_bounds.find(kDeleteFilePathFieldId);
  if (lower != deletes.lower_bounds.end() && path < lower->second) return false;
  // Upper bounds of strings may be truncated; a truncated bound is a prefix
  // that sorts below longer paths it stands for, so compare only a prefix.
  if (upper != deletes.upper_bounds.end() &&
      path.compare(0, upper->second.size(), upper->second) > 0) {
    return false;
  }
  return true;
}

bool BySequence(const ScanDelete& a, const ScanDelete& b) {
  return a.data_sequence_number < b.data_sequence_number;
}

}  // namespace

void DeleteFileIndex::Add(spec::DataFile file, int64_t data_sequence_number,
                          const spec::PartitionSpec& spec) {
  ++size_;
  ScanDelete deletes{std::move(file), data_sequence_number};
  if (deletes.file.content == spec::DataFileContent::kPositionDeletes) {
    if (IsDeletionVector(deletes.file) && deletes.file.referenced_data_file) {
      std::string path = *deletes.file.referenced_data_file;
      vectors_[path].push_back(std::move(deletes));
      return;
    }
    by_partition_[PartitionKey(deletes.file)].position.push_back(std::move(deletes));
    return;
  }
  if (spec.IsUnpartitioned()) {
    global_equality_.push_back(std::move(deletes));
    return;
  }
  by_partition_[PartitionKey(deletes.file)].equality.push_back(std::move(deletes));
}

void DeleteFileIndex::Finish() {
  for (auto& [key, group] : by_partition_) {
    std::stable_sort(group.position.begin(), group.position.end(), BySequence);
    std::stable_sort(group.equality.begin(), group.equality.end(), BySequence);
  }
  std::stable_sort(global_equality_.begin(), global_equality_.end(), BySequence);
  for (auto& [path, vectors] : vectors_)
    std::stable_sort(vectors.begin(), vectors.end(), BySequence);
}

std::vector<ScanDelete> DeleteFileIndex::ForDataFile(const spec::DataFile& data_file,
                                                     int64_t data_sequence_number) const {
  std::vector<ScanDelete> out;
  if (size_ == 0) return out;
  const Group* group = nullptr;
  if (!by_partition_.empty()) {
    auto it = by_partition_.find(PartitionKey(data_file));
    if (it != by_partition_.end()) group = &it->second;
  }
  // Deletion vector, else position delete files (sequence >= the data's).
  bool has_vector = false;
  if (auto it = vectors_.find(data_file.file_path); it != vectors_.end()) {
    for (const ScanDelete& vector : it->second) {
      if (vector.data_sequence_number >= data_sequence_number) {
        // At most one DV per data file is live; the newest wins if a writer
        // left more.
        if (has_vector)
          out.back() = vector;
        else
          out.push_back(vector);
        has_vector = true;
      }
    }
  }
  if (!has_vector && group) {
    auto first = std::lower_bound(
        group->position.begin(), group->position.end(), data_sequence_number,
        [](const ScanDelete& d, int64_t seq) { return d.data_sequence_number < seq; });
    for (auto it = first; it != group->position.end(); ++it) {
      if (MayReference(it->file, data_file.file_path)) out.push_back(*it);
    }
  }
  // Equality deletes with a strictly higher sequence number: this
  // partition's and the global ones, merged in sequence order.
  auto newer = [&](const std::vector<ScanDelete>& deletes) {
    return std::upper_bound(
        deletes.begin(), deletes.end(), data_sequence_number,
        [](int64_t seq, const ScanDelete& d) { return seq < d.data_sequence_number; });
  };
  size_t equality_begin = out.size();
  if (group) out.insert(out.end(), newer(group->equality), group->equality.end());
  out.insert(out.end(), newer(global_equality_), global_equality_.end());
  std::stable_sort(out.begin() + equality_begin, out.end(), BySequence);
  return out;
}

}  // namespace skade::scan
