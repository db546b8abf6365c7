#include "skade/data/data_writer_options.h"

#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"

namespace skade::data {

namespace {

constexpr char kParquetPageRowLimit[] = "write.parquet.page-row-limit";
constexpr char kParquetDictSizeBytes[] = "write.parquet.dict-size-bytes";

Status ReadPositive(const std::map<std::string, std::string>& properties, const char* name,
                    int64_t* out) {
  auto it = properties.find(name);
  if (it == properties.end()) return OkStatus();
  auto value = ParseInt64(StripWhitespace(it->second));
  if (!value || *value <= 0) {
    return InvalidArgument("Property ", name, " must be a positive integer, got '", it->second,
                           "'");
  }
  *out = *value;
  return OkStatus();
}

bool IsKnownCodec(const std::string& codec) {
  return codec == "zstd" || codec == "snappy" || codec == "gzip" || codec == "lz4" ||
         codec == "brotli" || codec == "uncompressed";
}

}  // namespace

Result<DataWriterOptions> DataWriterOptions::FromProperties(
    const std::map<std::string, std::string>& properties) {
  DataWriterOptions options;
  if (auto it = properties.find(spec::kParquetCompression); it != properties.end()) {
    options.compression_codec = AsciiLower(StripWhitespace(it->second));
    if (!IsKnownCodec(options.compression_codec)) {
      return InvalidArgument("Property ", spec::kParquetCompression, ": unknown codec '",
                             it->second, "'");
    }
  }
  if (auto it = properties.find(spec::kParquetCompressionLevel); it != properties.end()) {
    auto level = ParseInt32(StripWhitespace(it->second));
    if (!level) {
      return InvalidArgument("Property ", spec::kParquetCompressionLevel,
                             " must be an integer, got '", it->second, "'");
    }
    options.compression_level = *level;
  }
  SKADE_RETURN_NOT_OK(
      ReadPositive(properties, spec::kParquetRowGroupSizeBytes, &options.row_group_size_bytes));
  SKADE_RETURN_NOT_OK(
      ReadPositive(properties, spec::kParquetPageSizeBytes, &options.page_size_bytes));
  SKADE_RETURN_NOT_OK(ReadPositive(properties, kParquetPageRowLimit, &options.page_row_limit));
  SKADE_RETURN_NOT_OK(ReadPositive(properties, kParquetDictSizeBytes, &options.dict_size_bytes));
  SKADE_RETURN_NOT_OK(
      ReadPositive(properties, spec::kTargetFileSizeBytes, &options.target_file_size_bytes));
  SKADE_ASSIGN_OR_RAISE(options.metrics, MetricsConfig::FromProperties(properties));
  return options;
}

}  // namespace skade::data
