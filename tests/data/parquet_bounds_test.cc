// Parquet statistics as Iceberg bounds (IcebergBoundFromParquet): a time
// stored in another unit than the Iceberg type's converts exactly or gives
// no bound — a file of millisecond timestamps read as microseconds would
// prune row groups and pages that hold matching rows.
#include <gtest/gtest.h>
#include <parquet/schema.h>

#include <cstring>
#include <limits>

#include "skade/data/parquet_metrics.h"
#include "skade/spec/type.h"

namespace skade::data {
namespace {

using parquet::LogicalType;

parquet::ColumnDescriptor Column(std::shared_ptr<const LogicalType> logical,
                                 parquet::Type::type physical) {
  auto node = parquet::schema::PrimitiveNode::Make("c", parquet::Repetition::OPTIONAL,
                                                   std::move(logical), physical, -1, 1);
  return parquet::ColumnDescriptor(node, 1, 0);
}

template <typename T>
std::string Bytes(T value) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

TEST(ParquetBoundsTest, TimesInAnotherUnitConvertExactlyOrGiveNoBound) {
  const auto millis =
      Column(LogicalType::Timestamp(false, LogicalType::TimeUnit::MILLIS), parquet::Type::INT64);
  const auto micros =
      Column(LogicalType::Timestamp(true, LogicalType::TimeUnit::MICROS), parquet::Type::INT64);
  const auto nanos =
      Column(LogicalType::Timestamp(false, LogicalType::TimeUnit::NANOS), parquet::Type::INT64);
  const auto& timestamp = *spec::Type::Timestamp();
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, millis, Bytes<int64_t>(1'717'218'000'000)),
            Bytes<int64_t>(1'717'218'000'000'000));
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, millis, Bytes<int64_t>(-1)), Bytes<int64_t>(-1'000));
  EXPECT_EQ(IcebergBoundFromParquet(*spec::Type::TimestampTz(), micros, Bytes<int64_t>(7)),
            Bytes<int64_t>(7));
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, nanos, Bytes<int64_t>(5'000)), Bytes<int64_t>(5));
  // 5,001 ns has no exact microsecond: no bound rather than a wrong one.
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, nanos, Bytes<int64_t>(5'001)), std::nullopt);
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, millis,
                                    Bytes<int64_t>(std::numeric_limits<int64_t>::max() / 10)),
            std::nullopt);  // overflows in microseconds
  EXPECT_EQ(IcebergBoundFromParquet(*spec::Type::TimestampNs(), millis, Bytes<int64_t>(3)),
            Bytes<int64_t>(3'000'000));

  // Parquet TIME(MILLIS) is an INT32; Iceberg's time a long of microseconds.
  const auto time_millis =
      Column(LogicalType::Time(false, LogicalType::TimeUnit::MILLIS), parquet::Type::INT32);
  EXPECT_EQ(IcebergBoundFromParquet(*spec::Type::Time(), time_millis, Bytes<int32_t>(1'500)),
            Bytes<int64_t>(1'500'000));
  // A plain INT64 says no unit: taken as the type's.
  const auto plain = Column(LogicalType::None(), parquet::Type::INT64);
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, plain, Bytes<int64_t>(42)), Bytes<int64_t>(42));
  // INT96 (Spark's legacy timestamps) has no usable order.
  const auto int96 = Column(LogicalType::None(), parquet::Type::INT96);
  EXPECT_EQ(IcebergBoundFromParquet(timestamp, int96, std::string(12, '\0')), std::nullopt);
}

}  // namespace
}  // namespace skade::data
