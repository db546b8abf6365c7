#include "skade/expr/expression_parser.h"

#include <gtest/gtest.h>

#include <cmath>

#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using spec::Literal;
using spec::Transform;

ExpressionPtr Parse(std::string_view text) {
  auto parsed = ParseExpression(text);
  EXPECT_THAT(parsed, IsOk()) << text;
  return parsed ? *parsed : Expression::False();
}

TEST(ExpressionParserTest, ParsesEveryPredicateForm) {
  auto id = [](Operation op, std::vector<Literal> literals = {}) {
    return Expression::Predicate(op, Term{"id", std::nullopt}, std::move(literals));
  };
  struct Case {
    const char* text;
    ExpressionPtr expected;
  };
  Case cases[] = {
      {"id < 5", id(Operation::kLt, {Literal::Long(5)})},
      {"id <= -5", id(Operation::kLtEq, {Literal::Long(-5)})},
      {"id > 1.5", id(Operation::kGt, {Literal::Double(1.5)})},
      {"id >= 1e3", id(Operation::kGtEq, {Literal::Double(1000)})},
      {"id = 'x'", id(Operation::kEq, {Literal::String("x")})},
      {"id == true", id(Operation::kEq, {Literal::Boolean(true)})},
      {"id != 5", id(Operation::kNotEq, {Literal::Long(5)})},
      {"id <> 5", id(Operation::kNotEq, {Literal::Long(5)})},
      {"5 < id", id(Operation::kGt, {Literal::Long(5)})},
      {"'a' >= id", id(Operation::kLtEq, {Literal::String("a")})},
      {"id in (1, 2, 3)",
       id(Operation::kIn, {Literal::Long(1), Literal::Long(2), Literal::Long(3)})},
      {"id NOT IN ('a')", id(Operation::kNotIn, {Literal::String("a")})},
      {"id is null", id(Operation::kIsNull)},
      {"id IS NOT NULL", id(Operation::kNotNull)},
      {"id is nan", id(Operation::kIsNan)},
      {"id is not nan", id(Operation::kNotNan)},
      {"id starts with 'ab'", id(Operation::kStartsWith, {Literal::String("ab")})},
      {"id not starts with 'ab'", id(Operation::kNotStartsWith, {Literal::String("ab")})},
      {"id like 'ab%'", id(Operation::kStartsWith, {Literal::String("ab")})},
      {"id not like 'it''s%'", id(Operation::kNotStartsWith, {Literal::String("it's")})},
      {"id = -inf", id(Operation::kEq, {Literal::Double(-INFINITY)})},
      {"id < 99999999999999999999", id(Operation::kLt, {Literal::Double(1e20)})},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(Parse(c.text)->Equals(*c.expected))
        << c.text << " -> " << Parse(c.text)->ToString();
  }
}

TEST(ExpressionParserTest, ParsesTermsAndNames) {
  auto parsed = Parse("day(ts) = '2026-11-01'");
  EXPECT_EQ(parsed->term(), (Term{"ts", Transform::Day()}));
  EXPECT_EQ(Parse("bucket(16, id) = 3")->term(), (Term{"id", Transform::Bucket(16)}));
  EXPECT_EQ(Parse("TRUNCATE (4, name) = 'ab'")->term(), (Term{"name", Transform::Truncate(4)}));
  EXPECT_EQ(Parse("year(ts) > 50")->term(), (Term{"ts", Transform::Year()}));
  EXPECT_EQ(Parse("location.lat > 5")->term().name, "location.lat");
  EXPECT_EQ(Parse("\"my col\" = 1")->term().name, "my col");
  EXPECT_EQ(Parse("`and` = 1")->term().name, "and");
  EXPECT_EQ(Parse("\"a\"\"b\".c = 1")->term().name, "a\"b.c");
  EXPECT_EQ(Parse("Year = 1")->term(), (Term{"Year", std::nullopt}));
}

TEST(ExpressionParserTest, PrecedenceAndConstants) {
  auto parsed = Parse("a = 1 or b = 2 and not c = 3");
  ASSERT_EQ(parsed->op(), Operation::kOr);
  EXPECT_EQ(parsed->right()->op(), Operation::kAnd);
  EXPECT_EQ(parsed->right()->right()->op(), Operation::kNot);
  EXPECT_EQ(Parse("(a = 1 or b = 2) and c = 3")->op(), Operation::kAnd);
  EXPECT_EQ(Parse("true")->op(), Operation::kTrue);
  EXPECT_EQ(Parse("not true")->op(), Operation::kFalse);
  EXPECT_EQ(Parse("FALSE or a = 1")->op(), Operation::kEq);
  EXPECT_EQ(Parse("not not a = 1")->op(), Operation::kEq);
}

TEST(ExpressionParserTest, PrintsTextThatParsesBack) {
  for (const char* text :
       {"id > 5 and day(ts) = '2026-11-01'", "a = 1 or b = 2 and c = 3",
        "(a = 1 or b = 2) and c = 3", "a = 1 and (b = 2 and c = 3)", "a = 1 or (b = 2 or c = 3)",
        "not (a = 1 or b = 2)", "not a is null", "x in (1.5, -2.0, nan, inf, -inf)",
        "\"my col\" not in ('it''s', 'b')", "`or`.\"x y\" starts with 'p'", "bucket(16, id) != 3",
        "truncate(4, s) not starts with ''", "x = 1e+300", "x = 5e-324", "flag = false",
        "n = -9223372036854775808", "true", "false"}) {
    auto parsed = Parse(text);
    auto reparsed = Parse(parsed->ToString());
    EXPECT_TRUE(parsed->Equals(*reparsed)) << text << " printed as " << parsed->ToString();
  }
  EXPECT_EQ(Parse("id > 5 and day(ts) = '2026-11-01'")->ToString(),
            "id > 5 and day(ts) = '2026-11-01'");
  EXPECT_EQ(Parse("x = 1.0")->ToString(), "x = 1.0");
  EXPECT_EQ(Parse("\"my col\" is not null")->ToString(), "\"my col\" is not null");
}

TEST(ExpressionParserTest, ReportsOffsetsAndWhatWasExpected) {
  EXPECT_THAT(ParseExpression("id > "),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "at 5: expected a literal after '>', found the end"));
  EXPECT_THAT(
      ParseExpression("id > and"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 5: expected a literal after '>'"));
  EXPECT_THAT(ParseExpression("id = 'abc"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 5: unterminated string"));
  EXPECT_THAT(ParseExpression("id"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 2: expected a comparison"));
  EXPECT_THAT(
      ParseExpression("id = 1 id"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 7: expected 'and', 'or' or the end"));
  EXPECT_THAT(ParseExpression("(id = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 7: expected ')'"));
  EXPECT_THAT(
      ParseExpression("id in ()"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 7: expected a literal after '('"));
  EXPECT_THAT(ParseExpression("id is 5"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 6: expected 'null' or 'nan'"));
  EXPECT_THAT(ParseExpression("bucket(0, id) = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 7: expected a positive integer"));
  EXPECT_THAT(ParseExpression("hours(ts) = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 0: unknown transform 'hours'"));
  EXPECT_THAT(ParseExpression("name like '%x'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "only 'prefix%' patterns"));
  EXPECT_THAT(ParseExpression("name like 'a_b%'"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "only 'prefix%' patterns"));
  EXPECT_THAT(ParseExpression("id = 1 ; drop"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 7: unexpected character ';'"));
  EXPECT_THAT(ParseExpression("and = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 0: expected a column name"));
  EXPECT_THAT(ParseExpression(""), IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                                      "at 0: expected a column, a literal"));
  EXPECT_THAT(
      ParseExpression("s = '\xff'"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 4: the string is not valid UTF-8"));
  EXPECT_THAT(ParseExpression("x = 1e999"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "at 4: number out of range"));
}

TEST(ExpressionParserTest, RefusesDeepNestingWithoutRecursingIntoIt) {
  EXPECT_THAT(ParseExpression(std::string(100000, '(')),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "nested too deeply"));
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "not ";
  EXPECT_THAT(ParseExpression(nots + "a = 1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "nested too deeply"));
  std::string deep = std::string(150, '(') + "a = 1" + std::string(150, ')');
  EXPECT_THAT(ParseExpression(deep), IsOk());
  // Long flat chains are fine: they do not nest.
  std::string chain = "a = 0";
  for (int i = 1; i < 5000; ++i) chain += " or a = " + std::to_string(i);
  EXPECT_THAT(ParseExpression(chain), IsOk());
}

}  // namespace
}  // namespace skade::expr
