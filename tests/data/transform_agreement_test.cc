// The Arrow transforms (data/transform_array.h) and the scalar ones
// (spec::Transform::Apply) must put every value in the same partition: a
// file written by ingest and a partition value computed from one literal
// (e.g. for a filter) have to agree.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data_test_util.h"
#include "skade/data/arrow_literal.h"
#include "skade/data/transform_array.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsError;
using skade::testing::IsOk;
using spec::Transform;
using spec::Type;
using testing::ArrayFromJson;

struct Column {
  spec::TypePtr source;
  std::shared_ptr<arrow::DataType> arrow_type;
  std::string values;  // a JSON array, with edge values and a null
};

std::vector<Column> Columns() {
  auto micros = arrow::TimeUnit::MICRO;
  auto nanos = arrow::TimeUnit::NANO;
  const std::string timestamps =
      "[0, -1, 1, 1510871468000000, -1510871468000001, 86399999999, -86400000000, "
      "253402300799999999, null]";
  return {
      {Type::Int(), arrow::int32(),
       "[0, 1, -1, 9, -9, 10, -10, 34, 2147483647, -2147483648, null]"},
      {Type::Long(), arrow::int64(),
       "[0, 1, -1, 34, 9223372036854775807, -9223372036854775808, null]"},
      {Type::Date(), arrow::date32(), "[0, -1, 1, 17486, -366, -719528, 2932896, null]"},
      {Type::Time(), arrow::time64(micros), "[0, 1, 81068000000, 86399999999, null]"},
      {Type::Timestamp(), arrow::timestamp(micros), timestamps},
      {Type::TimestampTz(), arrow::timestamp(micros, "UTC"), timestamps},
      {Type::TimestampNs(), arrow::timestamp(nanos),
       "[0, -1, 999, 1510871468000000001, -1510871468000000001, null]"},
      {Type::TimestampTzNs(), arrow::timestamp(nanos, "UTC"), "[-1, 1, 86400000000000, null]"},
      {Type::Decimal(9, 2), arrow::decimal128(9, 2),
       R"(["0.00", "10.65", "-10.65", "0.01", "-0.01", "9999999.99", "-9999999.99", null])"},
      {Type::Decimal(38, 0), arrow::decimal128(38, 0),
       R"(["99999999999999999999999999999999999999", "-1", "127", "128", null])"},
      {Type::String(), arrow::utf8(),
       R"(["", "a", "iceberg", "Ünïcödé", "日本語のテキスト", "\ud83d\ude00x", null])"},
      {Type::String(), arrow::large_utf8(), R"(["abcdef", "é", null])"},
      {Type::Binary(), arrow::binary(), R"(["", "abc", "\u0000\u00ff", null])"},
      {Type::Fixed(3), arrow::fixed_size_binary(3), R"(["abc", "xyz", null])"},
      {Type::Uuid(), arrow::fixed_size_binary(16), R"(["0123456789abcdef", null])"},
      {Type::Boolean(), arrow::boolean(), "[true, false, null]"},
      {Type::Double(), arrow::float64(), "[1.5, -0.0, null]"},
  };
}

std::vector<Transform> Transforms() {
  return {Transform::Identity(),   Transform::Bucket(1),    Transform::Bucket(7),
          Transform::Bucket(1000), Transform::Truncate(1),  Transform::Truncate(3),
          Transform::Truncate(10), Transform::Truncate(50), Transform::Year(),
          Transform::Month(),      Transform::Day(),        Transform::Hour(),
          Transform::Void()};
}

TEST(TransformAgreementTest, ArrowAndScalarTransformsGiveTheSameValues) {
  int compared = 0;
  for (const Transform& transform : Transforms()) {
    for (const Column& column : Columns()) {
      if (!transform.CanTransform(*column.source)) continue;
      SCOPED_TRACE(transform.ToString() + " of " + column.source->ToString() + " as " +
                   column.arrow_type->ToString());
      auto input = ArrayFromJson(column.arrow_type, column.values);
      ASSERT_NE(input, nullptr);
      auto output = ApplyTransform(transform, column.source, input);
      ASSERT_THAT(output, IsOk());
      auto result_type = transform.ResultType(column.source);
      ASSERT_THAT(result_type, IsOk());
      ASSERT_EQ((*output)->length(), input->length());
      for (int64_t i = 0; i < input->length(); ++i) {
        auto value = LiteralFromArrow(*input, i, column.source);
        ASSERT_THAT(value, IsOk());
        auto expected = transform.Apply(*value);
        ASSERT_THAT(expected, IsOk()) << value->ToString();
        auto actual = LiteralFromArrow(**output, i, *result_type);
        ASSERT_THAT(actual, IsOk());
        EXPECT_EQ(*actual, *expected) << "value " << value->ToString() << ": Arrow "
                                      << actual->ToString() << ", scalar " << expected->ToString();
        ++compared;
      }
    }
  }
  // Every transform met at least one column it applies to.
  EXPECT_GT(compared, 400);
}

TEST(TransformAgreementTest, BothRejectWhatDoesNotApply) {
  auto strings = ArrayFromJson(arrow::utf8(), R"(["x"])");
  EXPECT_THAT(ApplyTransform(Transform::Day(), Type::String(), strings),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Transform::Day().Apply(spec::Literal::String("x")),
              IsError(ErrorKind::kInvalidArgument));
  auto unknown = *Transform::Parse("zorder");
  EXPECT_EQ(ApplyTransform(unknown, Type::String(), strings).error().kind, ErrorKind::kUnsupported);
  EXPECT_EQ(unknown.Apply(spec::Literal::String("x")).error().kind, ErrorKind::kUnsupported);
}

}  // namespace
}  // namespace skade::data
