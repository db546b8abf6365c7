#include <gtest/gtest.h>

#include "skade/data/data_writer_options.h"
#include "skade/data/metrics_config.h"
#include "skade/spec/table_properties.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;

TEST(MetricsModeTest, Parses) {
  EXPECT_EQ(MetricsMode::Parse("none").value(), MetricsMode::None());
  EXPECT_EQ(MetricsMode::Parse("Counts").value(), MetricsMode::Counts());
  EXPECT_EQ(MetricsMode::Parse(" full ").value(), MetricsMode::Full());
  EXPECT_EQ(MetricsMode::Parse("truncate(8)").value(), MetricsMode::Truncate(8));
  EXPECT_EQ(MetricsMode::Truncate(8).ToString(), "truncate(8)");
  for (const char* bad : {"truncate(0)", "truncate(-1)", "truncate()", "truncate(x)", "all", ""}) {
    EXPECT_THAT(MetricsMode::Parse(bad),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid metrics mode"))
        << bad;
  }
}

TEST(MetricsConfigTest, DefaultAndPerColumnModes) {
  EXPECT_EQ(MetricsConfig().ColumnMode("any"), MetricsMode::Truncate(16));
  auto config = MetricsConfig::FromProperties({{spec::kMetricsDefault, "counts"},
                                               {"write.metadata.metrics.column.a.b", "full"},
                                               {"unrelated", "x"}});
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->ColumnMode("a"), MetricsMode::Counts());
  EXPECT_EQ(config->ColumnMode("a.b"), MetricsMode::Full());
  EXPECT_THAT(MetricsConfig::FromProperties({{"write.metadata.metrics.column.x", "bogus"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "write.metadata.metrics.column.x"));
}

TEST(DataWriterOptionsTest, DefaultsAreIcebergs) {
  auto options = DataWriterOptions::FromProperties({}).value();
  EXPECT_EQ(options.compression_codec, "zstd");
  EXPECT_FALSE(options.compression_level.has_value());
  EXPECT_EQ(options.row_group_size_bytes, 128 << 20);
  EXPECT_EQ(options.page_size_bytes, 1 << 20);
  EXPECT_EQ(options.target_file_size_bytes, 512LL << 20);
}

TEST(DataWriterOptionsTest, ReadsProperties) {
  auto options = DataWriterOptions::FromProperties({
                                                       {spec::kParquetCompression, "Snappy"},
                                                       {spec::kParquetCompressionLevel, "3"},
                                                       {spec::kParquetRowGroupSizeBytes, "1000"},
                                                       {spec::kParquetPageSizeBytes, "100"},
                                                       {spec::kTargetFileSizeBytes, "5000"},
                                                       {"write.parquet.page-row-limit", "10"},
                                                       {"write.parquet.dict-size-bytes", "64"},
                                                   })
                     .value();
  EXPECT_EQ(options.compression_codec, "snappy");
  EXPECT_EQ(options.compression_level, 3);
  EXPECT_EQ(options.row_group_size_bytes, 1000);
  EXPECT_EQ(options.page_size_bytes, 100);
  EXPECT_EQ(options.target_file_size_bytes, 5000);
  EXPECT_EQ(options.page_row_limit, 10);
  EXPECT_EQ(options.dict_size_bytes, 64);
}

TEST(DataWriterOptionsTest, RejectsBadValues) {
  EXPECT_THAT(DataWriterOptions::FromProperties({{spec::kParquetCompression, "lzo"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "unknown codec"));
  EXPECT_THAT(DataWriterOptions::FromProperties({{spec::kParquetRowGroupSizeBytes, "0"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, spec::kParquetRowGroupSizeBytes));
  EXPECT_THAT(DataWriterOptions::FromProperties({{spec::kTargetFileSizeBytes, "12MB"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, spec::kTargetFileSizeBytes));
  EXPECT_THAT(DataWriterOptions::FromProperties({{spec::kParquetCompressionLevel, "high"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, spec::kParquetCompressionLevel));
}

}  // namespace
}  // namespace skade::data
