// How skade writes Parquet data files, read from Iceberg table properties.
//
// Plain value; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "skade/data/metrics_config.h"
#include "skade/util/result.h"

namespace skade::data {

struct DataWriterOptions {
  /// "write.parquet.compression-codec": zstd (Iceberg's default), snappy,
  /// gzip, lz4, brotli or uncompressed; case-insensitive.
  std::string compression_codec = "zstd";
  /// "write.parquet.compression-level"; the codec's default when unset.
  std::optional<int32_t> compression_level;
  /// "write.parquet.row-group-size-bytes": a row group is closed once its
  /// estimated on-disk size reaches this.
  int64_t row_group_size_bytes = 128 << 20;
  /// "write.parquet.page-size-bytes": target data page size.
  int64_t page_size_bytes = 1 << 20;
  /// "write.parquet.page-row-limit": most rows in one data page.
  int64_t page_row_limit = 20000;
  /// "write.parquet.dict-size-bytes": largest dictionary page before a
  /// column falls back to plain encoding.
  int64_t dict_size_bytes = 2 << 20;
  /// "write.target-file-size-bytes": the rolling writers start a new file
  /// once the current one's estimated size reaches this.
  int64_t target_file_size_bytes = 512LL << 20;
  /// "write.metadata.metrics.*".
  MetricsConfig metrics;
  /// fsync data files (and their directory entries) on close.
  bool durable = false;

  /// Options from table properties; absent properties keep the defaults.
  /// Malformed numbers, non-positive sizes and unknown codecs or metrics
  /// modes are kInvalidArgument naming the property.
  static Result<DataWriterOptions> FromProperties(
      const std::map<std::string, std::string>& properties);
};

}  // namespace skade::data
