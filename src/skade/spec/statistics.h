// Table statistics files (spec: "Table Statistics", "Partition Statistics")
// and v3 encryption keys.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skade::spec {

struct BlobMetadata {
  std::string type;
  int64_t source_snapshot_id = 0;
  int64_t source_snapshot_sequence_number = 0;
  std::vector<int32_t> fields;
  std::map<std::string, std::string> properties;
  bool operator==(const BlobMetadata& other) const = default;
};

struct StatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  int64_t file_footer_size_in_bytes = 0;
  std::optional<std::string> key_metadata;
  std::vector<BlobMetadata> blob_metadata;
  bool operator==(const StatisticsFile& other) const = default;
};

struct PartitionStatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  bool operator==(const PartitionStatisticsFile& other) const = default;
};

struct EncryptionKey {
  std::string key_id;
  std::string encrypted_key_metadata;  // base64, as in JSON
  std::optional<std::string> encrypted_by_id;
  std::map<std::string, std::string> properties;
  bool operator==(const EncryptionKey& other) const = default;
};

}  // namespace skade::spec
