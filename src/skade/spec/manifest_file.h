// A manifest list entry: one manifest and its summary (spec: "Manifest
// Lists", manifest_file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skade::spec {

enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };

/// The sequence number of a manifest written for a snapshot that is not yet
/// committed; the manifest list writer replaces it with the snapshot's.
inline constexpr int64_t kUnassignedSequenceNumber = -1;

struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  /// Single-value binary serialization.
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;

  bool operator==(const PartitionFieldSummary& other) const = default;
};

struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int32_t existing_files_count = 0;
  int32_t deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
  std::vector<PartitionFieldSummary> partitions;
  std::optional<std::string> key_metadata;
  /// v3 row lineage.
  std::optional<int64_t> first_row_id;

  bool operator==(const ManifestFile& other) const = default;
};

}  // namespace skade::spec
