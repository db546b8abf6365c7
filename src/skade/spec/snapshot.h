// Snapshots and snapshot references (spec: "Snapshots", "Snapshot References").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skade::spec {

/// Snapshot summary operations.
inline constexpr char kOperationAppend[] = "append";
inline constexpr char kOperationReplace[] = "replace";
inline constexpr char kOperationOverwrite[] = "overwrite";
inline constexpr char kOperationDelete[] = "delete";

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  /// 0 for format version 1, where sequence numbers do not exist.
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  /// The manifest list location. Empty only for v1 snapshots that list
  /// their manifests inline (`manifests`).
  std::string manifest_list;
  std::vector<std::string> manifests;
  /// The summary, including "operation". Empty if the file had none (v1).
  std::map<std::string, std::string> summary;
  std::optional<int32_t> schema_id;
  /// v3 row lineage.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  /// v3 encryption key id of the manifest list.
  std::optional<std::string> key_id;

  std::string operation() const {
    auto it = summary.find("operation");
    return it == summary.end() ? std::string() : it->second;
  }
  bool operator==(const Snapshot& other) const = default;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

enum class SnapshotRefType { kBranch, kTag };

inline constexpr char kMainBranch[] = "main";

struct SnapshotRef {
  int64_t snapshot_id = 0;
  SnapshotRefType type = SnapshotRefType::kBranch;
  /// Branch-only retention.
  std::optional<int32_t> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  /// Branch and tag retention.
  std::optional<int64_t> max_ref_age_ms;

  bool is_branch() const { return type == SnapshotRefType::kBranch; }
  bool operator==(const SnapshotRef& other) const = default;
};

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry& other) const = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry& other) const = default;
};

}  // namespace skade::spec
