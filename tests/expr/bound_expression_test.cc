#include "skade/expr/bound_expression.h"

#include <gtest/gtest.h>

#include <cmath>

#include "expr/test_schema.h"
#include "skade/expr/expression_parser.h"
#include "skade/spec/decimal_internal.h"
#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsError;
using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using spec::Literal;
using spec::Type;
using spec::TypePtr;

class BindTest : public ::testing::Test {
 protected:
  BoundExpressionPtr BindText(std::string_view text, bool case_sensitive = true) {
    auto parsed = ParseExpression(text);
    EXPECT_THAT(parsed, IsOk()) << text;
    if (!parsed) return BoundExpression::False();
    auto bound = Bind(**parsed, *schema_, case_sensitive);
    EXPECT_THAT(bound, IsOk()) << text;
    return bound ? *bound : BoundExpression::False();
  }
  Result<BoundExpressionPtr> TryBind(std::string_view text) {
    auto parsed = ParseExpression(text);
    EXPECT_THAT(parsed, IsOk()) << text;
    return Bind(**parsed, *schema_);
  }
  std::string Text(std::string_view text) { return BindText(text)->ToString(schema_.get()); }

  std::shared_ptr<const spec::Schema> schema_ = testing::AllTypesSchema();
};

TEST_F(BindTest, ResolvesColumnsAndTypes) {
  auto bound = BindText("i < 5");
  ASSERT_EQ(bound->op(), Operation::kLt);
  EXPECT_EQ(bound->term().field_id, 2);
  EXPECT_TRUE(spec::TypeEquals(bound->term().type, Type::Int()));
  EXPECT_TRUE(bound->term().optional);
  EXPECT_EQ(bound->literals()[0], Literal::Int(5));
  EXPECT_EQ(BindText("loc.lat > 1.5")->term().field_id, 16);
  EXPECT_EQ(BindText("ID = 1", /*case_sensitive=*/false)->term().field_id, 1);
  auto day = BindText("day(ts) = '2026-11-01'");
  EXPECT_EQ(day->term().transform, spec::Transform::Day());
  EXPECT_TRUE(spec::TypeEquals(day->term().type, Type::Date()));
  EXPECT_TRUE(spec::TypeEquals(day->term().source_type, Type::Timestamp()));
  EXPECT_EQ(Text("day(ts) = '2026-11-01'"), "day(ts) = '2026-11-01'");
  // year, month and hour values as partition paths show them.
  EXPECT_EQ(Text("year(ts) = '2026' and month(d) >= '1969-12'"),
            "year(ts) = 56 and month(d) >= -1");
  EXPECT_EQ(Text("hour(tstz) in ('1970-01-02-03', '1969-12-31-23')"), "hour(tstz) in (-1, 27)");
  EXPECT_EQ(Text("year(ts) = 56"), "year(ts) = 56");
  auto bucket = BindText("bucket(16, name) = 3");
  EXPECT_TRUE(spec::TypeEquals(bucket->term().type, Type::Int()));
  // identity(c) is c.
  EXPECT_FALSE(BindText("identity(id) = 3")->term().transform.has_value());
  EXPECT_EQ(BindText("id > 1 and (x < 2 or name = 'a')")->ReferencedFieldIds(),
            (std::vector<int32_t>{1, 3, 12}));
  EXPECT_EQ(BindText("i < 5")->ToString(), "#2 < 5");
}

TEST_F(BindTest, ReportsWhatCannotBind) {
  EXPECT_THAT(TryBind("nope = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot find column 'nope'"));
  EXPECT_THAT(TryBind("ID = 1"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "'ID'"));
  EXPECT_THAT(TryBind("loc = 1"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "struct"));
  EXPECT_THAT(TryBind("tags.element = 'a'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "inside a list"));
  EXPECT_THAT(TryBind("day(name) = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot apply day to column 'name'"));
  EXPECT_THAT(TryBind("hour(d) = 1"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("void(id) = 1"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("month(ts) = '2026-13'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "expected YYYY-MM"));
  EXPECT_THAT(TryBind("hour(ts) = '2026-11-01T10'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "expected YYYY-MM-DD-HH"));
  EXPECT_THAT(TryBind("year(ts) = '26'"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("id starts with 'a'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "needs a string column"));
  EXPECT_THAT(TryBind("id is nan"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "needs a float or double column"));
  EXPECT_THAT(TryBind("x = nan"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "is nan"));
  EXPECT_THAT(TryBind("x in (1.0, nan)"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "NaN"));
  EXPECT_THAT(TryBind("i = 'five'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid value for 'i'"));
  EXPECT_THAT(TryBind("i = 1.5"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("d = '2026-02-30'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid date value '2026-02-30'"));
  EXPECT_THAT(TryBind("dec = '1.234'"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("dec = 1.234"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("u = 'not-a-uuid'"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("b = 'XYZ'"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("fx = '0102'"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("flag = 1"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("ts = '2026-11-01T10:00:00Z'"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TryBind("ts = '2026-11-01T10:00:00+01:00'"), IsError(ErrorKind::kInvalidArgument));
}

TEST_F(BindTest, FoldsOutOfRangeComparisons) {
  EXPECT_EQ(Text("i < 10000000000"), "i is not null");
  EXPECT_EQ(Text("i <= 10000000000"), "i is not null");
  EXPECT_EQ(Text("i > 10000000000"), "false");
  EXPECT_EQ(Text("i = 10000000000"), "false");
  EXPECT_EQ(Text("i != 10000000000"), "i is not null");
  EXPECT_EQ(Text("i > -10000000000"), "i is not null");
  EXPECT_EQ(Text("i < -10000000000"), "false");
  EXPECT_EQ(Text("f < 1e300"), "f is not null");
  EXPECT_EQ(Text("f > -1e300"), "f is not null");
  EXPECT_EQ(Text("f = 1e300"), "false");
  EXPECT_EQ(Text("dec < 10000000"), "dec is not null");  // decimal(9, 2) holds < 10^7
  EXPECT_EQ(Text("dec = 9999999.99"), "dec = '9999999.99'");
  EXPECT_EQ(Text("dec > -10000000"), "dec is not null");
  EXPECT_EQ(Text("d > 3000000000"), "false");
  EXPECT_EQ(Text("t < 86400000000"), "t is not null");  // a time is within one day
  EXPECT_EQ(Text("t = -1"), "false");
  // In a set, out-of-range values drop out.
  EXPECT_EQ(Text("i in (1, 10000000000)"), "i = 1");
  EXPECT_EQ(Text("i in (10000000000, 20000000000)"), "false");
  EXPECT_EQ(Text("i not in (10000000000)"), "i is not null");
  EXPECT_EQ(Text("i not in (3, 10000000000, 1)"), "i not in (1, 3)");
  // On a required column "not null" is true.
  EXPECT_EQ(Text("ri < 10000000000"), "true");
}

// A `not` over a comparison that folds folds as the negated comparison:
// no null row holds either (negating "i is not null" would select them).
TEST_F(BindTest, ANotOfAFoldedComparisonFoldsAsItsNegation) {
  EXPECT_EQ(Text("not (i < 10000000000)"), "false");
  EXPECT_EQ(Text("not (i <= 10000000000)"), "false");
  EXPECT_EQ(Text("not (i > -10000000000)"), "false");
  EXPECT_EQ(Text("not (i != 10000000000)"), "false");
  EXPECT_EQ(Text("not (i > 10000000000)"), "i is not null");
  EXPECT_EQ(Text("not (i < 10000000000 or i = 3)"), "false");
  EXPECT_EQ(Text("not (i not in (10000000000))"), "false");
  EXPECT_EQ(Text("not not (i < 10000000000)"), "i is not null");
  EXPECT_EQ(Text("not (i < 5)"), "i >= 5");
}

TEST_F(BindTest, FoldsSetsAndRequiredColumns) {
  EXPECT_EQ(Text("i in (3)"), "i = 3");
  EXPECT_EQ(Text("i not in (3, 3)"), "i != 3");
  EXPECT_EQ(Text("i in (3, 1, 2, 1)"), "i in (1, 2, 3)");
  EXPECT_EQ(Text("name in ('b', 'a', 'b')"), "name in ('a', 'b')");
  EXPECT_EQ(Text("id is null"), "false");
  EXPECT_EQ(Text("id is not null"), "true");
  EXPECT_EQ(Text("i is null"), "i is null");
  EXPECT_EQ(Text("id is null or i = 1"), "i = 1");
  EXPECT_EQ(Text("id is not null and i = 1"), "i = 1");
}

TEST_F(BindTest, PushesNotDown) {
  EXPECT_EQ(Text("not i < 5"), "i >= 5");
  EXPECT_EQ(Text("not (i < 5 and name = 'a')"), "i >= 5 or name != 'a'");
  EXPECT_EQ(Text("not (i in (1, 2) or name starts with 'a')"),
            "i not in (1, 2) and name not starts with 'a'");
  EXPECT_EQ(Text("not not x is nan"), "x is nan");
  EXPECT_EQ(Text("not (i is null or x is not nan)"), "i is not null and x is nan");
  EXPECT_TRUE(BindText("not (i < 5 or i > 9)")->Equals(*BindText("i >= 5 and i <= 9")));
}

TEST(ConvertLiteralTest, DatesTimesAndTimestamps) {
  EXPECT_EQ(ConvertLiteral(Literal::String("1970-01-02"), Type::Date()), Literal::Date(1));
  EXPECT_EQ(ConvertLiteral(Literal::String("1969-12-31"), Type::Date()), Literal::Date(-1));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01"), Type::Date()), Literal::Date(20758));
  EXPECT_EQ(ConvertLiteral(Literal::Long(20758), Type::Date()), Literal::Date(20758));
  EXPECT_EQ(ConvertLiteral(Literal::String("22:31:08.123456"), Type::Time()),
            Literal(Type::Time(), int64_t{81068123456}));
  const int64_t noon = 1'793'534'400'000'000;  // 2026-11-01T12:00:00Z in µs
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01T12:00:00"), Type::Timestamp()),
            Literal(Type::Timestamp(), noon));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01 12:00:00.000001"), Type::Timestamp()),
            Literal(Type::Timestamp(), noon + 1));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01"), Type::Timestamp()),
            Literal(Type::Timestamp(), noon - 12 * 3'600'000'000LL));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01T14:00:00+02:00"), Type::TimestampTz()),
            Literal(Type::TimestampTz(), noon));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01T12:00:00Z"), Type::TimestampTz()),
            Literal(Type::TimestampTz(), noon));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01T12:00:00"), Type::TimestampTz()),
            Literal(Type::TimestampTz(), noon));
  EXPECT_EQ(ConvertLiteral(Literal::String("2026-11-01T12:00:00.123456789"), Type::TimestampNs()),
            Literal(Type::TimestampNs(), noon * 1000 + 123456789));
  EXPECT_EQ(
      ConvertLiteral(Literal::String("2026-11-01T12:00:00.000000001+00:00"), Type::TimestampTzNs()),
      Literal(Type::TimestampTzNs(), noon * 1000 + 1));
  EXPECT_EQ(ConvertLiteral(Literal(Type::Timestamp(), noon), Type::TimestampNs()),
            Literal(Type::TimestampNs(), noon * 1000));
  EXPECT_EQ(ConvertLiteral(Literal::Long(noon), Type::TimestampTz()),
            Literal(Type::TimestampTz(), noon));
  // Finer than the type holds.
  EXPECT_THAT(ConvertLiteral(Literal::String("2026-11-01T12:00:00.0000001"), Type::Timestamp()),
              IsError(ErrorKind::kInvalidArgument));
  // Out of the nanosecond range (years 1677..2262).
  EXPECT_THAT(ConvertLiteral(Literal::String("2500-01-01T00:00:00"), Type::TimestampNs()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ConvertLiteral(Literal::String("2026-11-01T24:00:00"), Type::Timestamp()),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(ConvertLiteralTest, NumbersDecimalsUuidsAndBytes) {
  EXPECT_EQ(ConvertLiteral(Literal::Long(5), Type::Int()), Literal::Int(5));
  EXPECT_THAT(ConvertLiteral(Literal::Long(int64_t{1} << 40), Type::Int()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "out of range"));
  EXPECT_EQ(ConvertLiteral(Literal::Long(5), Type::Double()), Literal::Double(5));
  EXPECT_EQ(ConvertLiteral(Literal::Double(1.5), Type::Float()), Literal::Float(1.5f));
  EXPECT_EQ(ConvertLiteral(Literal::String("NaN"), Type::Double())->value().index(), 5u);
  EXPECT_THAT(ConvertLiteral(Literal::Double(1.5), Type::Long()),
              IsError(ErrorKind::kInvalidArgument));
  auto decimal = [](int64_t unscaled, int p, int s) {
    return Literal(Type::Decimal(p, s), spec::MinimalBigEndian(unscaled));
  };
  EXPECT_EQ(ConvertLiteral(Literal::String("14.20"), Type::Decimal(9, 2)), decimal(1420, 9, 2));
  EXPECT_EQ(ConvertLiteral(Literal::String("-0.5"), Type::Decimal(9, 2)), decimal(-50, 9, 2));
  EXPECT_EQ(ConvertLiteral(Literal::String("3.100"), Type::Decimal(9, 2)), decimal(310, 9, 2));
  EXPECT_EQ(ConvertLiteral(Literal::Double(14.2), Type::Decimal(9, 2)), decimal(1420, 9, 2));
  EXPECT_EQ(ConvertLiteral(Literal::Long(-7), Type::Decimal(9, 2)), decimal(-700, 9, 2));
  EXPECT_THAT(ConvertLiteral(Literal::String("1.005"), Type::Decimal(9, 2)),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ConvertLiteral(Literal::String("12345678.5"), Type::Decimal(9, 2)),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ConvertLiteral(Literal::String("1e5"), Type::Decimal(9, 2)),
              IsError(ErrorKind::kInvalidArgument));
  auto uuid = ConvertLiteral(Literal::String("F79C3E09-677C-4BBD-A479-3F349CB785E7"), Type::Uuid());
  ASSERT_THAT(uuid, IsOk());
  EXPECT_EQ(std::get<std::string>(uuid->value()),
            std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16));
  EXPECT_EQ(ConvertLiteral(Literal::String("78797A"), Type::Binary()), Literal::Binary("xyz"));
  EXPECT_EQ(ConvertLiteral(Literal::String("78797a"), Type::Fixed(3)),
            Literal(Type::Fixed(3), std::string("xyz")));
  EXPECT_EQ(ConvertLiteral(Literal::Binary("xyz"), Type::Fixed(3)),
            Literal(Type::Fixed(3), std::string("xyz")));
  EXPECT_THAT(ConvertLiteral(Literal::Binary("xy"), Type::Fixed(3)),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(ConvertLiteral(Literal::String("abc"), Type::String()), Literal::String("abc"));
  EXPECT_THAT(ConvertLiteral(Literal::Null(Type::Int()), Type::Int()),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(CompareLiteralsTest, OrdersEachTypeAsIceberg) {
  EXPECT_LT(CompareLiterals(Literal::Int(-5), Literal::Int(3)), 0);
  EXPECT_GT(CompareLiterals(Literal::Long(INT64_MAX), Literal::Long(INT64_MIN)), 0);
  EXPECT_EQ(CompareLiterals(Literal::Long(7), Literal::Long(7)), 0);
  EXPECT_LT(CompareLiterals(Literal::Boolean(false), Literal::Boolean(true)), 0);
  const double nan = std::nan("");
  EXPECT_LT(CompareLiterals(Literal::Double(-0.0), Literal::Double(0.0)), 0);
  EXPECT_GT(CompareLiterals(Literal::Double(nan), Literal::Double(INFINITY)), 0);
  EXPECT_LT(CompareLiterals(Literal::Double(-INFINITY), Literal::Double(-1e308)), 0);
  EXPECT_EQ(CompareLiterals(Literal::Double(nan), Literal::Double(nan)), 0);
  EXPECT_LT(CompareLiterals(Literal::Float(1.5f), Literal::Float(2.5f)), 0);
  // Unsigned UTF-8 bytes: U+00E9 (0xC3 0xA9) sorts after 'z'.
  EXPECT_GT(CompareLiterals(Literal::String("\xc3\xa9"), Literal::String("z")), 0);
  EXPECT_LT(CompareLiterals(Literal::String("ab"), Literal::String("abc")), 0);
  EXPECT_GT(CompareLiterals(Literal::Binary("\xff"), Literal::Binary("\x01\x02")), 0);
  auto decimal = [](int64_t unscaled) {
    return Literal(Type::Decimal(9, 2), spec::MinimalBigEndian(unscaled));
  };
  EXPECT_LT(CompareLiterals(decimal(-1), decimal(0)), 0);
  EXPECT_GT(CompareLiterals(decimal(256), decimal(255)), 0);
  EXPECT_LT(CompareLiterals(decimal(-256), decimal(-255)), 0);
  EXPECT_LT(CompareLiterals(Literal::Date(-1), Literal::Date(0)), 0);
  // Across a promotion.
  EXPECT_LT(CompareLiterals(Literal::Int(-5), Literal::Long(3)), 0);
  EXPECT_GT(CompareLiterals(Literal::Long(int64_t{1} << 40), Literal::Int(INT32_MAX)), 0);
  EXPECT_EQ(CompareLiterals(Literal::Float(1.5f), Literal::Double(1.5)), 0);
}

}  // namespace
}  // namespace skade::expr
