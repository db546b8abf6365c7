#include "skade/expr/projection.h"

#include <gtest/gtest.h>

#include "expr/test_schema.h"
#include "skade/expr/expression_parser.h"
#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsOk;
using spec::Transform;

struct Case {
  int32_t source_id;
  Transform transform;
  const char* filter;
  const char* inclusive;
  const char* strict;
};

class ProjectionTest : public ::testing::TestWithParam<Case> {};

TEST_P(ProjectionTest, ProjectsAsTheSpecTableSays) {
  const Case& c = GetParam();
  auto schema = testing::AllTypesSchema();
  spec::PartitionSpec spec;
  spec.fields.push_back({c.source_id, {}, 1000, "p", c.transform});
  auto parsed = ParseExpression(c.filter);
  ASSERT_THAT(parsed, IsOk());
  auto bound = Bind(**parsed, *schema);
  ASSERT_THAT(bound, IsOk());
  auto inclusive = ProjectInclusive(**bound, spec, *schema);
  auto strict = ProjectStrict(**bound, spec, *schema);
  ASSERT_THAT(inclusive, IsOk());
  ASSERT_THAT(strict, IsOk());
  EXPECT_EQ((*inclusive)->ToString(), c.inclusive) << c.filter;
  EXPECT_EQ((*strict)->ToString(), c.strict) << c.filter;
}

// Field ids: 2 i int, 3 name string, 4 d date, 5 ts timestamp, 8 dec
// decimal(9, 2), 10 b binary, 12 x double, 7 tsns timestamp_ns.
INSTANTIATE_TEST_SUITE_P(
    Transforms, ProjectionTest,
    ::testing::Values(
        Case{2, Transform::Identity(), "i < 5", "#1000 < 5", "#1000 < 5"},
        Case{12, Transform::Identity(), "x is nan", "#1000 is nan", "#1000 is nan"},
        Case{2, Transform::Bucket(16), "i = 5", "#1000 = 7", "false"},
        Case{2, Transform::Bucket(16), "i != 5", "true", "#1000 != 7"},
        Case{2, Transform::Bucket(16), "i in (5, 6)", "#1000 in (1, 7)", "false"},
        Case{2, Transform::Bucket(16), "i not in (5, 6)", "true", "#1000 not in (1, 7)"},
        Case{2, Transform::Bucket(16), "i < 5", "true", "false"},
        Case{2, Transform::Bucket(16), "i is null", "#1000 is null", "#1000 is null"},
        Case{2, Transform::Truncate(10), "i < 5", "#1000 <= 0", "#1000 < 0"},
        Case{2, Transform::Truncate(10), "i <= 5", "#1000 <= 0", "#1000 < 0"},
        Case{2, Transform::Truncate(10), "i > 5", "#1000 >= 0", "#1000 > 0"},
        Case{2, Transform::Truncate(10), "i >= 10", "#1000 >= 10", "#1000 > 0"},
        Case{2, Transform::Truncate(10), "i = -1", "#1000 = -10", "false"},
        Case{2, Transform::Truncate(10), "i != -1", "true", "#1000 != -10"},
        Case{8, Transform::Truncate(100), "dec >= 1.05", "#1000 >= '1.00'", "#1000 > '1.00'"},
        Case{3, Transform::Truncate(2), "name < 'abc'", "#1000 <= 'ab'", "#1000 < 'ab'"},
        Case{3, Transform::Truncate(2), "name = 'abc'", "#1000 = 'ab'", "false"},
        Case{3, Transform::Truncate(2), "name starts with 'a'", "#1000 starts with 'a'",
             "#1000 starts with 'a'"},
        Case{3, Transform::Truncate(2), "name starts with 'abc'", "#1000 = 'ab'", "false"},
        Case{3, Transform::Truncate(2), "name not starts with 'abc'", "true", "#1000 != 'ab'"},
        Case{3, Transform::Truncate(2), "name not starts with 'ab'", "#1000 not starts with 'ab'",
             "#1000 not starts with 'ab'"},
        Case{10, Transform::Truncate(1), "b > '0102'", "#1000 >= '01'", "#1000 > '01'"},
        Case{4, Transform::Month(), "d < '1970-03-01'", "#1000 <= 1", "#1000 < 2"},
        Case{4, Transform::Year(), "d >= '1969-12-31'", "#1000 >= -1", "#1000 > -1"},
        Case{4, Transform::Day(), "d = '1969-12-31'", "#1000 = '1969-12-31'", "false"},
        Case{5, Transform::Day(), "ts < '1970-01-02T00:00:00'", "#1000 <= '1970-01-01'",
             "#1000 < '1970-01-02'"},
        Case{5, Transform::Hour(), "ts > '1969-12-31T23:59:59.999999'", "#1000 >= 0", "#1000 > -1"},
        Case{7, Transform::Day(), "tsns < '1970-01-01T00:00:00'", "#1000 <= '1969-12-31'",
             "#1000 < '1970-01-01'"},
        Case{5, Transform::Day(), "day(ts) = '2026-11-01'", "#1000 = '2026-11-01'",
             "#1000 = '2026-11-01'"},
        Case{5, Transform::Month(), "day(ts) = '2026-11-01'", "true", "false"},
        Case{2, Transform::Void(), "i = 5", "true", "false"},
        Case{2, Transform::Truncate(10), "i > 5 and (i < 100 or i is null)",
             "#1000 >= 0 and (#1000 <= 90 or #1000 is null)",
             "#1000 > 0 and (#1000 < 100 or #1000 is null)"}));

}  // namespace
}  // namespace skade::expr
