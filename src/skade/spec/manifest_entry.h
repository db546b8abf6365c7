// A manifest entry: one data or delete file and its lifecycle status
// (spec: "Manifests", manifest_entry).
#pragma once

#include <cstdint>
#include <optional>

#include "skade/spec/data_file.h"

namespace skade::spec {

enum class ManifestEntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

struct ManifestEntry {
  ManifestEntryStatus status = ManifestEntryStatus::kAdded;
  /// Null in v2+ files means "inherit from the manifest's snapshot".
  std::optional<int64_t> snapshot_id;
  /// Data sequence number; null means inherit (v2+).
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;

  bool operator==(const ManifestEntry& other) const = default;
};

}  // namespace skade::spec
