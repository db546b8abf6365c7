#include "skade/spec/table_properties.h"

#include <limits>

#include "skade/util/strings.h"

namespace skade::spec {

namespace {

struct IntegerProperty {
  std::string_view key;
  bool is_long;  // else an int (32 bits)
};

// Iceberg's TableProperties that Iceberg Java reads as numbers.
constexpr IntegerProperty kIntegerProperties[] = {
    {"commit.retry.num-retries", false},
    {"commit.retry.min-wait-ms", false},
    {"commit.retry.max-wait-ms", false},
    {"commit.retry.total-timeout-ms", false},
    {"commit.status-check.num-retries", false},
    {"commit.status-check.min-wait-ms", true},
    {"commit.status-check.max-wait-ms", true},
    {"commit.status-check.total-timeout-ms", true},
    {kManifestTargetSizeBytes, true},
    {kManifestMinCountToMerge, false},
    {kPreviousVersionsMax, false},
    {kTargetFileSizeBytes, true},
    {"write.delete.target-file-size-bytes", true},
    {kParquetRowGroupSizeBytes, true},
    {kParquetPageSizeBytes, false},
    {"write.parquet.page-row-limit", false},
    {"write.parquet.dict-size-bytes", false},
    {"write.parquet.bloom-filter-max-bytes", false},
    {"write.metadata.metrics.max-inferred-column-defaults", false},
    {"history.expire.max-snapshot-age-ms", true},
    {"history.expire.min-snapshots-to-keep", false},
    {"history.expire.max-ref-age-ms", true},
    {"read.split.target-size", true},
    {"read.split.metadata-target-size", true},
    {"read.split.planning-lookback", false},
    {"read.split.open-file-cost", true},
};

}  // namespace

Status CheckPropertyValue(std::string_view key, std::string_view value) {
  for (const IntegerProperty& property : kIntegerProperties) {
    if (property.key != key) continue;
    std::optional<int64_t> parsed = ParseInt64(value);
    if (parsed && (property.is_long || (*parsed >= std::numeric_limits<int32_t>::min() &&
                                        *parsed <= std::numeric_limits<int32_t>::max()))) {
      return OkStatus();
    }
    return InvalidArgument("Invalid table property ", key, " '", value.substr(0, 64),
                           "': expected a whole number",
                           property.is_long ? "" : " of at most 2147483647");
  }
  return OkStatus();
}

}  // namespace skade::spec
