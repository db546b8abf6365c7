#include "skade/spec/literal_json.h"

#include <gtest/gtest.h>

#include <cmath>

#include "skade/spec/decimal_internal.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;

std::string Json(const Literal& value) {
  JsonWriter writer;
  WriteLiteralJson(value, writer);
  return writer.Take();
}

TEST(LiteralJsonTest, WritesTheSingleValueForms) {
  const int64_t micros = 1'196'721'330'123'456;  // 2007-12-03T22:35:30.123456
  EXPECT_EQ(Json(Literal::Boolean(true)), "true");
  EXPECT_EQ(Json(Literal::Int(-3)), "-3");
  EXPECT_EQ(Json(Literal::Long(1)), "1");
  EXPECT_EQ(Json(Literal::Double(1.5)), "1.5");
  EXPECT_EQ(Json(Literal::Double(1)), "1.0");
  EXPECT_EQ(Json(Literal::Double(-0.0)), "-0.0");
  EXPECT_EQ(Json(Literal::Double(1e300)), "1e+300");
  EXPECT_EQ(Json(Literal::Double(std::nan(""))), "\"NaN\"");
  EXPECT_EQ(Json(Literal::Float(-INFINITY)), "\"-Infinity\"");
  EXPECT_EQ(Json(Literal::String("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(Json(Literal::Date(13850)), "\"2007-12-03\"");
  EXPECT_EQ(Json(Literal::Date(-1)), "\"1969-12-31\"");
  EXPECT_EQ(Json(Literal(Type::Time(), int64_t{81068123456})), "\"22:31:08.123456\"");
  EXPECT_EQ(Json(Literal(Type::Timestamp(), micros)), "\"2007-12-03T22:35:30.123456\"");
  EXPECT_EQ(Json(Literal(Type::TimestampTz(), micros)), "\"2007-12-03T22:35:30.123456+00:00\"");
  EXPECT_EQ(Json(Literal(Type::TimestampNs(), micros * 1000 + 7)),
            "\"2007-12-03T22:35:30.123456007\"");
  EXPECT_EQ(Json(Literal(Type::Timestamp(), int64_t{-1})), "\"1969-12-31T23:59:59.999999\"");
  EXPECT_EQ(Json(Literal(Type::Decimal(9, 4), MinimalBigEndian(1234500))), "\"123.4500\"");
  EXPECT_EQ(Json(Literal(Type::Decimal(9, 2), MinimalBigEndian(-5))), "\"-0.05\"");
  EXPECT_EQ(Json(Literal(Type::Decimal(9, 0), MinimalBigEndian(2))), "\"2\"");
  EXPECT_EQ(Json(Literal::Binary("xyz")), "\"78797A\"");
  EXPECT_EQ(
      Json(Literal(
          Type::Uuid(),
          std::string("\xeb\x26\xbd\xb1\xa1\xd8\x4a\xa6\x99\x0e\xda\x94\x08\x75\x49\x2c", 16))),
      "\"eb26bdb1-a1d8-4aa6-990e-da940875492c\"");
  EXPECT_EQ(Json(Literal::Null(Type::Int())), "null");
}

TEST(LiteralJsonTest, ReadsBackEveryStringForm) {
  for (const Literal& value :
       {Literal::Date(13850), Literal::Date(-719528), Literal(Type::Time(), int64_t{1}),
        Literal(Type::Timestamp(), int64_t{-1}),
        Literal(Type::TimestampTz(), int64_t{1196721330123456}),
        Literal(Type::TimestampNs(), int64_t{-1}), Literal(Type::TimestampTzNs(), int64_t{5}),
        Literal(Type::Decimal(38, 10), MinimalBigEndian(-123456789012345)),
        Literal(Type::Fixed(2), std::string("\x00\xff", 2)), Literal::Binary(""),
        Literal::String("plain"), Literal(Type::Uuid(), std::string(16, '\x7f'))}) {
    auto text = LiteralJsonText(value);
    EXPECT_EQ(LiteralFromJsonString(value.type(), text), value) << text;
  }
  EXPECT_THAT(LiteralFromJsonString(Type::Timestamp(), "2007-12-03T10:15:30+01:00"),
              IsError(ErrorKind::kInvalidArgument));
  // PyIceberg writes timestamptz literals as the naive ISO form of UTC.
  EXPECT_EQ(*LiteralFromJsonString(Type::TimestampTz(), "2007-12-03T10:15:30"),
            *LiteralFromJsonString(Type::TimestampTz(), "2007-12-03T10:15:30+00:00"));
  EXPECT_THAT(LiteralFromJsonString(Type::Decimal(3, 1), "123.4"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(LiteralFromJsonString(Type::Decimal(3, 1), "-"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(LiteralFromJsonString(Type::Binary(), "ABC"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(LiteralFromJsonString(Type::Int(), "5"), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::spec
