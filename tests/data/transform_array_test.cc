#include "skade/data/transform_array.h"

#include <arrow/api.h>
#include <arrow/extension/uuid.h>
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "data_test_util.h"
#include "skade/spec/bucket_hash.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsError;
using skade::testing::IsOk;
using spec::Transform;
using spec::Type;
using testing::ArrayFromJson;

std::shared_ptr<arrow::Array> Apply(const Transform& transform, const spec::TypePtr& source,
                                    const std::shared_ptr<arrow::Array>& values) {
  auto result = ApplyTransform(transform, source, values);
  EXPECT_THAT(result, IsOk());
  if (!result) return nullptr;
  EXPECT_TRUE((*result)->ValidateFull().ok());
  return *result;
}

void ExpectArray(const std::shared_ptr<arrow::Array>& actual,
                 const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  ASSERT_NE(actual, nullptr);
  auto expected = ArrayFromJson(type, json);
  EXPECT_TRUE(actual->Equals(*expected)) << actual->ToString() << "\nexpected " << json;
}

int32_t Bucket(int32_t hash, int32_t n) { return spec::BucketOf(hash, n); }

TEST(TransformArrayTest, IdentityReturnsTheInput) {
  auto values = ArrayFromJson(arrow::int64(), "[1, null, 3]");
  EXPECT_EQ(Apply(Transform::Identity(), Type::Long(), values), values);
}

TEST(TransformArrayTest, VoidIsAllNullsOfTheSourceType) {
  auto values = ArrayFromJson(arrow::utf8(), R"(["a", "b"])");
  ExpectArray(Apply(Transform::Void(), Type::String(), values), arrow::utf8(), "[null, null]");
}

TEST(TransformArrayTest, BucketIntLongDateTimeTimestamp) {
  auto n = 16;
  ExpectArray(Apply(Transform::Bucket(n), Type::Int(), ArrayFromJson(arrow::int32(), "[34, null]")),
              arrow::int32(), "[" + std::to_string(Bucket(2017239379, n)) + ", null]");
  ExpectArray(Apply(Transform::Bucket(n), Type::Long(), ArrayFromJson(arrow::int64(), "[34]")),
              arrow::int32(), "[" + std::to_string(Bucket(2017239379, n)) + "]");
  ExpectArray(Apply(Transform::Bucket(n), Type::Date(), ArrayFromJson(arrow::date32(), "[17486]")),
              arrow::int32(), "[" + std::to_string(Bucket(-653330422, n)) + "]");
  ExpectArray(Apply(Transform::Bucket(n), Type::Time(),
                    ArrayFromJson(arrow::time64(arrow::TimeUnit::MICRO), "[81068000000]")),
              arrow::int32(), "[" + std::to_string(Bucket(-662762989, n)) + "]");
  ExpectArray(Apply(Transform::Bucket(n), Type::TimestampTz(),
                    ArrayFromJson(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                  "[1510871468000000, 1510871468000001]")),
              arrow::int32(),
              "[" + std::to_string(Bucket(-2047944441, n)) + ", " +
                  std::to_string(Bucket(-1207196810, n)) + "]");
  ExpectArray(Apply(Transform::Bucket(n), Type::TimestampNs(),
                    ArrayFromJson(arrow::timestamp(arrow::TimeUnit::NANO),
                                  "[1510871468000000000, 1510871468000001001]")),
              arrow::int32(),
              "[" + std::to_string(Bucket(-2047944441, n)) + ", " +
                  std::to_string(Bucket(-1207196810, n)) + "]");
}

TEST(TransformArrayTest, BucketBytesLikeTypes) {
  auto n = 1000;
  ExpectArray(
      Apply(Transform::Bucket(n), Type::String(), ArrayFromJson(arrow::utf8(), R"(["iceberg"])")),
      arrow::int32(), "[" + std::to_string(Bucket(1210000089, n)) + "]");
  ExpectArray(Apply(Transform::Bucket(n), Type::Decimal(4, 2),
                    ArrayFromJson(arrow::decimal128(4, 2), R"(["14.20"])")),
              arrow::int32(), "[" + std::to_string(Bucket(-500754589, n)) + "]");
  auto bytes = ArrayFromJson(arrow::binary(), R"(["\u0000\u0001\u0002\u0003"])");
  ExpectArray(Apply(Transform::Bucket(n), Type::Binary(), bytes), arrow::int32(),
              "[" + std::to_string(Bucket(-188683207, n)) + "]");
  const std::string uuid("\xF7\x9C\x3E\x09\x67\x7C\x4B\xBD\xA4\x79\x3F\x34\x9C\xB7\x85\xE7", 16);
  arrow::FixedSizeBinaryBuilder builder(arrow::fixed_size_binary(16));
  ASSERT_TRUE(builder.Append(uuid).ok());
  ASSERT_TRUE(builder.AppendNull().ok());
  auto storage = builder.Finish().ValueOrDie();
  auto uuids = arrow::ExtensionType::WrapArray(arrow::extension::uuid(), storage);
  ExpectArray(Apply(Transform::Bucket(n), Type::Uuid(), uuids), arrow::int32(),
              "[" + std::to_string(Bucket(1488055340, n)) + ", null]");
}

TEST(TransformArrayTest, BucketRejectsFloats) {
  EXPECT_THAT(ApplyTransform(Transform::Bucket(4), Type::Double(),
                             ArrayFromJson(arrow::float64(), "[1.0]")),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(TransformArrayTest, TruncateIntegersRoundTowardsNegativeInfinity) {
  ExpectArray(Apply(Transform::Truncate(10), Type::Int(),
                    ArrayFromJson(arrow::int32(), "[1, -1, 0, 10, -10, 19, -11, null]")),
              arrow::int32(), "[0, -10, 0, 10, -10, 10, -20, null]");
  ExpectArray(Apply(Transform::Truncate(10), Type::Long(),
                    ArrayFromJson(arrow::int64(), "[1, -1, 9223372036854775807]")),
              arrow::int64(), "[0, -10, 9223372036854775800]");
  // At the bottom of the range Iceberg Java wraps around; so do we.
  ExpectArray(
      Apply(Transform::Truncate(10), Type::Int(), ArrayFromJson(arrow::int32(), "[-2147483648]")),
      arrow::int32(), "[2147483646]");
}

TEST(TransformArrayTest, TruncateDecimalUsesTheUnscaledValue) {
  // W=50, scale 2: 10.65 -> 10.50 (spec example).
  ExpectArray(Apply(Transform::Truncate(50), Type::Decimal(9, 2),
                    ArrayFromJson(arrow::decimal128(9, 2), R"(["10.65", "-0.05", null])")),
              arrow::decimal128(9, 2), R"(["10.50", "-0.50", null])");
}

TEST(TransformArrayTest, TruncateStringsByCodePoints) {
  ExpectArray(
      Apply(Transform::Truncate(3), Type::String(),
            ArrayFromJson(arrow::utf8(),
                          R"(["iceberg", "ab", "", "\u00fc\u20ac\ud83d\ude00\u00fc", null])")),
      arrow::utf8(), R"(["ice", "ab", "", "\u00fc\u20ac\ud83d\ude00", null])");
}

TEST(TransformArrayTest, TruncateBinaryByBytes) {
  ExpectArray(Apply(Transform::Truncate(3), Type::Binary(),
                    ArrayFromJson(arrow::binary(), R"(["\u0001\u0002\u0003\u0004\u0005", "ab"])")),
              arrow::binary(), R"(["\u0001\u0002\u0003", "ab"])");
}

TEST(TransformArrayTest, DateTransformsBeforeAndAfterTheEpoch) {
  // 1970-01-01, 1969-12-31, 1969-01-01, 1968-12-31, 2017-11-16, 2000-02-29.
  auto dates = ArrayFromJson(arrow::date32(), "[0, -1, -365, -366, 17486, 11016, null]");
  ExpectArray(Apply(Transform::Year(), Type::Date(), dates), arrow::int32(),
              "[0, -1, -1, -2, 47, 30, null]");
  ExpectArray(Apply(Transform::Month(), Type::Date(), dates), arrow::int32(),
              "[0, -1, -12, -13, 574, 361, null]");
  ExpectArray(Apply(Transform::Day(), Type::Date(), dates), arrow::date32(),
              "[0, -1, -365, -366, 17486, 11016, null]");
}

TEST(TransformArrayTest, TimestampTransformsBeforeAndAfterTheEpoch) {
  constexpr int64_t kHour = 3'600'000'000LL;
  auto values = ArrayFromJson(arrow::timestamp(arrow::TimeUnit::MICRO),
                              "[0, -1, " + std::to_string(-kHour) + ", " +
                                  std::to_string(-kHour - 1) + ", 1510871468000001, null]");
  ExpectArray(Apply(Transform::Hour(), Type::Timestamp(), values), arrow::int32(),
              "[0, -1, -1, -2, 419686, null]");
  ExpectArray(Apply(Transform::Day(), Type::Timestamp(), values), arrow::date32(),
              "[0, -1, -1, -1, 17486, null]");
  ExpectArray(Apply(Transform::Month(), Type::Timestamp(), values), arrow::int32(),
              "[0, -1, -1, -1, 574, null]");
  ExpectArray(Apply(Transform::Year(), Type::Timestamp(), values), arrow::int32(),
              "[0, -1, -1, -1, 47, null]");
}

TEST(TransformArrayTest, NanosecondTimestampsFloorToMicroseconds) {
  auto values =
      ArrayFromJson(arrow::timestamp(arrow::TimeUnit::NANO, "UTC"), "[-1, 0, 3599999999999]");
  ExpectArray(Apply(Transform::Hour(), Type::TimestampTzNs(), values), arrow::int32(),
              "[-1, 0, 0]");
  ExpectArray(Apply(Transform::Day(), Type::TimestampTzNs(), values), arrow::date32(),
              "[-1, 0, 0]");
}

TEST(TransformArrayTest, YearAndMonthMatchTheCivilCalendar) {
  // An independent calendar (std::chrono) over dates from 1600 to 2400.
  std::mt19937 random(42);
  std::uniform_int_distribution<int32_t> day(-135000, 157000);
  arrow::Date32Builder builder;
  std::vector<std::chrono::year_month_day> expected;
  for (int i = 0; i < 2000; ++i) {
    int32_t d = day(random);
    ASSERT_TRUE(builder.Append(d).ok());
    expected.emplace_back(std::chrono::sys_days(std::chrono::days(d)));
  }
  auto dates = builder.Finish().ValueOrDie();
  auto years = Apply(Transform::Year(), Type::Date(), dates);
  auto months = Apply(Transform::Month(), Type::Date(), dates);
  const auto& year_values = static_cast<const arrow::Int32Array&>(*years);
  const auto& month_values = static_cast<const arrow::Int32Array&>(*months);
  for (size_t i = 0; i < expected.size(); ++i) {
    int year = static_cast<int>(expected[i].year());
    int month = static_cast<int>(static_cast<unsigned>(expected[i].month()));
    EXPECT_EQ(year_values.Value(static_cast<int64_t>(i)), year - 1970);
    EXPECT_EQ(month_values.Value(static_cast<int64_t>(i)), (year - 1970) * 12 + month - 1);
  }
}

TEST(TransformArrayTest, RejectsMismatchedTransforms) {
  EXPECT_THAT(
      ApplyTransform(Transform::Hour(), Type::Date(), ArrayFromJson(arrow::date32(), "[1]")),
      IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ApplyTransform(Transform::Year(), Type::Date(), ArrayFromJson(arrow::int64(), "[1]")),
              IsError(ErrorKind::kInvalidArgument));
  auto unknown = Transform::Parse("zorder").value();
  EXPECT_THAT(ApplyTransform(unknown, Type::Int(), ArrayFromJson(arrow::int32(), "[1]")),
              IsError(ErrorKind::kUnsupported));
}

}  // namespace
}  // namespace skade::data
