// Data and delete files as manifests describe them (spec: "Manifests",
// field ids 100-146 of data_file).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "skade/spec/literal.h"

namespace skade::spec {

enum class DataFileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
enum class FileFormat { kParquet, kAvro, kOrc, kPuffin };

/// "PARQUET", "AVRO", "ORC", "PUFFIN".
std::string_view FileFormatName(FileFormat format);
Result<FileFormat> ParseFileFormat(std::string_view name);

struct DataFile {
  DataFileContent content = DataFileContent::kData;
  std::string file_path;
  FileFormat file_format = FileFormat::kParquet;
  /// The spec the partition tuple belongs to (not stored in the file; the
  /// manifest's spec id).
  int32_t spec_id = 0;
  /// One value per field of that spec, in order.
  std::vector<Literal> partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  std::map<int32_t, int64_t> nan_value_counts;
  /// Single-value binary serialization (Literal::ToBytes).
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
  std::optional<std::string> key_metadata;
  std::vector<int64_t> split_offsets;
  std::vector<int32_t> equality_ids;
  std::optional<int32_t> sort_order_id;
  /// v3 row lineage.
  std::optional<int64_t> first_row_id;
  /// v3 deletion vectors.
  std::optional<std::string> referenced_data_file;
  std::optional<int64_t> content_offset;
  std::optional<int64_t> content_size_in_bytes;

  bool operator==(const DataFile& other) const = default;
};

}  // namespace skade::spec
