#include "skade/expr/row_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <map>

#include "expr/test_schema.h"
#include "skade/expr/expression_parser.h"
#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsOk;
using spec::Literal;
using spec::Type;

class RowEvaluatorTest : public ::testing::Test {
 protected:
  bool Matches(std::string_view text, const std::map<int32_t, Literal>& row) {
    auto parsed = ParseExpression(text);
    EXPECT_THAT(parsed, IsOk()) << text;
    auto bound = Bind(**parsed, *schema_);
    EXPECT_THAT(bound, IsOk()) << text;
    if (!bound) return false;
    return EvaluateRow(**bound, [&](int32_t id) -> const Literal& {
      auto it = row.find(id);
      if (it != row.end()) return it->second;
      nulls_.push_back(Literal::Null(schema_->FindFieldById(id)->type));
      return nulls_.back();
    });
  }

  std::shared_ptr<const spec::Schema> schema_ = testing::AllTypesSchema();
  std::deque<Literal> nulls_;
};

TEST_F(RowEvaluatorTest, ComparesEachType) {
  std::map<int32_t, Literal> row = {{1, Literal::Long(7)},         {2, Literal::Int(-3)},
                                    {3, Literal::String("apple")}, {4, Literal::Date(20758)},
                                    {12, Literal::Double(2.5)},    {14, Literal::Boolean(true)}};
  EXPECT_TRUE(Matches("id = 7 and id < 8 and id <= 7 and id > 6 and id >= 7 and id != 8", row));
  EXPECT_FALSE(Matches("id != 7", row));
  EXPECT_TRUE(Matches("i < 0 and i in (-3, 5) and i not in (1, 2)", row));
  EXPECT_TRUE(Matches("name starts with 'app' and name not starts with 'b'", row));
  EXPECT_TRUE(Matches("name > 'Apple' and name in ('apple', 'pear')", row));
  EXPECT_TRUE(Matches("d = '2026-11-01' and d > '2026-10-31'", row));
  EXPECT_TRUE(Matches("x > 2 and x < 3.0 and x is not nan", row));
  EXPECT_TRUE(Matches("flag = true and flag != false", row));
  EXPECT_TRUE(Matches("id = 6 or i = -3", row));
  EXPECT_FALSE(Matches("id = 6 and i = -3", row));
  EXPECT_TRUE(Matches("not (id = 6 and i = -3)", row));
}

TEST_F(RowEvaluatorTest, NullsMatchOnlyNullChecks) {
  std::map<int32_t, Literal> row = {{1, Literal::Long(1)}};
  for (const char* text : {"i = 1", "i != 1", "i < 1", "i >= 1", "i in (1, 2)", "i not in (1, 2)",
                           "name starts with 'a'", "name not starts with 'a'", "not i = 1",
                           "not i in (1, 2)", "i is not null", "x is nan"}) {
    EXPECT_FALSE(Matches(text, row)) << text;
  }
  EXPECT_TRUE(Matches("i is null", row));
  EXPECT_TRUE(Matches("x is not nan", row));
  EXPECT_TRUE(Matches("not i is not null", row));
}

TEST_F(RowEvaluatorTest, NanComparesFalseExceptNotEqual) {
  std::map<int32_t, Literal> row = {
      {1, Literal::Long(1)}, {12, Literal::Double(std::nan(""))}, {11, Literal::Float(NAN)}};
  for (const char* text : {"x = 1.0", "x < inf", "x > -inf", "x <= 1.0", "x >= 1.0",
                           "x in (1.0, 2.0)", "x is not nan", "not x is nan", "f < 1.0"}) {
    EXPECT_FALSE(Matches(text, row)) << text;
  }
  for (const char* text :
       {"x != 1.0", "x not in (1.0, 2.0)", "x is nan", "f is nan", "x is not null"}) {
    EXPECT_TRUE(Matches(text, row)) << text;
  }
}

TEST_F(RowEvaluatorTest, AppliesTransformsInTerms) {
  // 2026-11-01T12:30:00 in µs.
  std::map<int32_t, Literal> row = {
      {1, Literal::Long(34)},
      {3, Literal::String("abcdef")},
      {5, Literal(Type::Timestamp(), int64_t{1'793'536'200'000'000})}};
  EXPECT_TRUE(Matches("day(ts) = '2026-11-01' and hour(ts) = 498204", row));
  EXPECT_TRUE(Matches("month(ts) = 682 and year(ts) = 56", row));
  EXPECT_TRUE(Matches("truncate(3, name) = 'abc' and truncate(10, id) = 30", row));
  EXPECT_TRUE(
      Matches("bucket(16, id) in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)", row));
  EXPECT_FALSE(Matches("day(ts) > '2026-11-01'", row));
}

}  // namespace
}  // namespace skade::expr
