// The edges of the evaluators that generated tables rarely reach: missing
// metrics and summaries, empty files, truncated bounds, NaN in bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "expr/test_schema.h"
#include "skade/expr/expression_parser.h"
#include "skade/expr/manifest_evaluator.h"
#include "skade/expr/metrics_evaluator.h"
#include "skade/expr/partition_evaluator.h"
#include "skade/expr/residual_evaluator.h"
#include "testing/matchers.h"

namespace skade::expr {
namespace {

using skade::testing::IsOk;
using spec::Literal;
using spec::Transform;

class EvaluatorsTest : public ::testing::Test {
 protected:
  BoundExpressionPtr Filter(std::string_view text) {
    auto parsed = ParseExpression(text);
    EXPECT_THAT(parsed, IsOk()) << text;
    auto bound = Bind(**parsed, *schema_);
    EXPECT_THAT(bound, IsOk()) << text;
    return *bound;
  }
  bool FileMayMatch(std::string_view text, const spec::DataFile& file) {
    return MetricsEvaluator(Filter(text), *schema_).MayMatch(file);
  }

  std::shared_ptr<const spec::Schema> schema_ = testing::AllTypesSchema();
};

TEST_F(EvaluatorsTest, MetricsPruneOnlyOnWhatTheyProve) {
  spec::DataFile file;
  file.record_count = 10;
  EXPECT_TRUE(FileMayMatch("i = 5 and name starts with 'x' and x is nan", file));  // no metrics
  file.value_counts = {{2, 10}, {3, 10}, {12, 10}};
  file.null_value_counts = {{2, 10}, {3, 0}, {12, 0}};
  file.nan_value_counts = {{12, 4}};
  EXPECT_FALSE(FileMayMatch("i = 5", file));  // all null
  EXPECT_FALSE(FileMayMatch("i is not null", file));
  EXPECT_TRUE(FileMayMatch("i is null", file));
  EXPECT_FALSE(FileMayMatch("name is null", file));
  EXPECT_TRUE(FileMayMatch("x is nan", file));
  // Truncated string bounds: "ab" ≤ every value ≤ "ad".
  file.lower_bounds[3] = "ab";
  file.upper_bounds[3] = "ad";
  EXPECT_TRUE(FileMayMatch("name starts with 'abz'", file));
  EXPECT_TRUE(FileMayMatch("name = 'acqqq'", file));
  EXPECT_FALSE(FileMayMatch("name starts with 'ae'", file));
  EXPECT_FALSE(FileMayMatch("name starts with 'aa'", file));
  EXPECT_FALSE(FileMayMatch("name < 'ab'", file));
  EXPECT_TRUE(FileMayMatch("name <= 'ab'", file));
  EXPECT_FALSE(FileMayMatch("name > 'ad'", file));
  EXPECT_FALSE(FileMayMatch("name in ('a', 'b')", file));
  EXPECT_TRUE(FileMayMatch("name not starts with 'ab'", file));
  EXPECT_FALSE(FileMayMatch("name not starts with 'a'", file));
  // A NaN bound proves nothing; a zero bound covers both zeros.
  file.lower_bounds[12] = Literal::Double(std::nan("")).ToBytes();
  file.upper_bounds[12] = Literal::Double(0.0).ToBytes();
  EXPECT_TRUE(FileMayMatch("x < -100.0", file));
  EXPECT_FALSE(FileMayMatch("x > 0.0", file));
  EXPECT_TRUE(FileMayMatch("x = 0.0", file));
  file.nan_value_counts[12] = 10;
  EXPECT_FALSE(FileMayMatch("x is not nan", file));
  EXPECT_TRUE(FileMayMatch("x != 1.0", file));
  // Bounds through a transform that keeps order, none through bucket.
  file.lower_bounds[5] = Literal(spec::Type::Timestamp(), int64_t{0}).ToBytes();
  file.upper_bounds[5] = Literal(spec::Type::Timestamp(), int64_t{86'400'000'000}).ToBytes();
  EXPECT_FALSE(FileMayMatch("day(ts) > '1970-01-02'", file));
  EXPECT_TRUE(FileMayMatch("day(ts) = '1970-01-02'", file));
  EXPECT_TRUE(FileMayMatch("bucket(4, ts) = 0", file));
  // One value in the file: `!=` and `not in` it match nothing (nulls fail
  // them too), unless a NaN may be there.
  file.value_counts[2] = 10;
  file.null_value_counts[2] = 3;
  file.lower_bounds[2] = file.upper_bounds[2] = Literal::Int(5).ToBytes();
  EXPECT_FALSE(FileMayMatch("i != 5", file));
  EXPECT_FALSE(FileMayMatch("i not in (4, 5)", file));
  EXPECT_TRUE(FileMayMatch("i != 4", file));
  file.lower_bounds[12] = file.upper_bounds[12] = Literal::Double(2.0).ToBytes();
  file.nan_value_counts.erase(12);
  EXPECT_TRUE(FileMayMatch("x != 2.0", file));
  file.nan_value_counts[12] = 0;
  EXPECT_FALSE(FileMayMatch("x != 2.0", file));
  file.record_count = 0;
  EXPECT_FALSE(FileMayMatch("true", file));
}

// truncate(W, v) of a value near the type's minimum wraps to a large value
// (Java does the same): a lower bound there proves nothing about truncate.
TEST_F(EvaluatorsTest, ALowerBoundWhoseTruncationWrapsPrunesNothing) {
  spec::DataFile file;
  file.record_count = 3;
  file.value_counts = {{1, 3}};
  file.null_value_counts = {{1, 0}};
  file.lower_bounds[1] = Literal::Long(std::numeric_limits<int64_t>::min()).ToBytes();
  file.upper_bounds[1] = Literal::Long(7).ToBytes();
  EXPECT_TRUE(FileMayMatch("truncate(3, id) = -42", file));
  EXPECT_TRUE(FileMayMatch("truncate(3, id) < 0", file));
  EXPECT_FALSE(FileMayMatch("truncate(3, id) > 7", file));  // the upper bound still holds
  file.lower_bounds[1] = Literal::Long(-100).ToBytes();
  EXPECT_FALSE(FileMayMatch("truncate(3, id) = -300", file));
}

// A set is compared value by value for every file: past Iceberg Java's
// limit of 200 values a file may match, whatever its bounds, so a huge set
// costs a client's scan no more than a small one.
TEST_F(EvaluatorsTest, ALargeSetIsNotComparedWithTheBounds) {
  spec::DataFile file;
  file.record_count = 10;
  file.value_counts[2] = 10;
  file.null_value_counts[2] = 0;
  file.lower_bounds[2] = Literal::Int(0).ToBytes();
  file.upper_bounds[2] = Literal::Int(9).ToBytes();
  auto set_of = [](int count) {
    std::string values;
    for (int i = 0; i < count; ++i) values += (i ? ", " : "") + std::to_string(100 + i);
    return values;
  };
  EXPECT_FALSE(FileMayMatch("i in (" + set_of(200) + ")", file));
  EXPECT_TRUE(FileMayMatch("i in (" + set_of(201) + ")", file));
  file.upper_bounds[2] = Literal::Int(0).ToBytes();  // one value, 0
  EXPECT_FALSE(FileMayMatch("i not in (0, " + set_of(199) + ")", file));
  EXPECT_TRUE(FileMayMatch("i not in (0, " + set_of(200) + ")", file));
}

TEST_F(EvaluatorsTest, ManifestsWithoutSummariesMayMatch) {
  spec::PartitionSpec spec;
  spec.fields.push_back({2, {}, 1000, "i", Transform::Identity()});
  spec.fields.push_back({3, {}, 1001, "name_trunc", Transform::Truncate(2)});
  auto evaluator = ManifestEvaluator::Make(*Filter("i = 5 and name = 'abc'"), spec, *schema_);
  ASSERT_THAT(evaluator, IsOk());
  spec::ManifestFile manifest;
  EXPECT_TRUE(evaluator->MayMatch(manifest));
  manifest.partitions.resize(2);
  manifest.partitions[0] = {false, false, Literal::Int(6).ToBytes(), Literal::Int(9).ToBytes()};
  manifest.partitions[1] = {false, false, std::string("aa"), std::string("zz")};
  EXPECT_FALSE(evaluator->MayMatch(manifest));
  manifest.partitions[0].lower_bound = Literal::Int(5).ToBytes();
  EXPECT_TRUE(evaluator->MayMatch(manifest));
  // Only nulls in the field: no bounds.
  manifest.partitions[0] = {true, false, std::nullopt, std::nullopt};
  EXPECT_FALSE(evaluator->MayMatch(manifest));
}

TEST_F(EvaluatorsTest, PartitionsAndResiduals) {
  spec::PartitionSpec spec;
  spec.fields.push_back({5, {}, 1000, "ts_day", Transform::Day()});
  auto filter = Filter("ts >= '1970-01-02T12:00:00' and i = 1");
  auto partitions = PartitionEvaluator::Make(*filter, spec, *schema_);
  auto residuals = ResidualEvaluator::Make(filter, spec, *schema_);
  ASSERT_THAT(partitions, IsOk());
  ASSERT_THAT(residuals, IsOk());
  EXPECT_FALSE(partitions->MayMatch({Literal::Date(0)}));
  EXPECT_TRUE(partitions->MayMatch({Literal::Date(1)}));
  EXPECT_TRUE(partitions->MayMatch({}));  // a tuple that does not fit proves nothing
  EXPECT_FALSE(partitions->MayMatch({Literal::Null(spec::Type::Date())}));
  EXPECT_EQ(residuals->ResidualFor({Literal::Date(0)})->ToString(schema_.get()), "false");
  EXPECT_EQ(residuals->ResidualFor({Literal::Date(1)})->ToString(schema_.get()),
            "ts >= '1970-01-02T12:00:00.000000' and i = 1");
  EXPECT_EQ(residuals->ResidualFor({Literal::Date(2)})->ToString(schema_.get()), "i = 1");
  // Where nothing simplifies, the residual is the filter itself, not a copy
  // per file.
  EXPECT_EQ(residuals->ResidualFor({Literal::Date(1)}), filter);
  auto unpartitioned = ResidualEvaluator::Make(filter, spec::PartitionSpec{}, *schema_);
  ASSERT_THAT(unpartitioned, IsOk());
  EXPECT_TRUE(unpartitioned->ResidualFor({})->Equals(*filter));
}

}  // namespace
}  // namespace skade::expr
