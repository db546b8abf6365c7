// The vectorized residual filter agrees with expr::EvaluateRow (the
// reference semantics: SQL nulls, IEEE NaN, Iceberg's order) on random
// data and random filters, including transforms and the types it evaluates
// value by value.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "data/data_test_util.h"
#include "read/random_filters.h"
#include "skade/data/arrow_schema.h"
#include "skade/expr/row_evaluator.h"
#include "skade/read/file_projection_internal.h"
#include "skade/read/residual_filter_internal.h"

namespace skade::read {
namespace {

using expr::BoundExpression;
using expr::BoundExpressionPtr;
using expr::Operation;
using spec::Literal;
using spec::Type;
using spec::TypePtr;

using testing::Column;
using testing::Columns;
using testing::RandomFilters;

TEST(ResidualFilterTest, AgreesWithEvaluateRowOnRandomData) {
  std::vector<Column> columns = Columns();
  constexpr int64_t kRows = 300;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    RandomFilters random(columns, seed);
    // Rows: values from the pools, 15% nulls.
    std::map<int32_t, std::vector<Literal>> values;
    std::map<int32_t, std::shared_ptr<arrow::Array>> arrays;
    for (const auto& column : columns) {
      auto type = data::ToArrowType(*column.type).value();
      std::unique_ptr<arrow::ArrayBuilder> builder;
      ASSERT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder).ok());
      for (int64_t r = 0; r < kRows; ++r) {
        if (random.Uniform(0, 99) < 15) {
          values[column.id].push_back(Literal::Null(column.type));
          ASSERT_TRUE(builder->AppendNull().ok());
          continue;
        }
        const Literal& value =
            column.pool[random.Uniform(0, static_cast<int>(column.pool.size()) - 1)];
        values[column.id].push_back(value);
        ASSERT_TRUE(builder->AppendScalar(*ScalarFromLiteral(value, type).value()).ok());
      }
      ASSERT_TRUE(builder->Finish(&arrays[column.id]).ok());
    }
    ColumnById by_id = [&](int32_t id) -> Result<std::shared_ptr<arrow::Array>> {
      return arrays.at(id);
    };
    for (int f = 0; f < 100; ++f) {
      BoundExpressionPtr filter = random.Filter(3);
      std::vector<uint8_t> keep;
      ASSERT_TRUE(EvaluateFilter(*filter, by_id, kRows, &keep));
      for (int64_t r = 0; r < kRows; ++r) {
        bool expected =
            expr::EvaluateRow(*filter, [&](int32_t id) -> const Literal& { return values[id][r]; });
        ASSERT_EQ(keep[r] != 0, expected)
            << "seed " << seed << " filter " << filter->ToString() << " row " << r << ": " << [&] {
                 std::string row;
                 for (const auto& column : columns) row += values[column.id][r].ToString() + " ";
                 return row;
               }();
      }
    }
  }
}

TEST(ResidualFilterTest, ConstantsAndErrors) {
  auto array = data::testing::ArrayFromJson(arrow::int64(), "[1, null, 3]");
  ColumnById by_id = [&](int32_t) -> Result<std::shared_ptr<arrow::Array>> { return array; };
  std::vector<uint8_t> keep;
  ASSERT_TRUE(EvaluateFilter(*BoundExpression::True(), by_id, 3, &keep));
  EXPECT_EQ(keep, (std::vector<uint8_t>{1, 1, 1}));
  ASSERT_TRUE(EvaluateFilter(*BoundExpression::False(), by_id, 3, &keep));
  EXPECT_EQ(keep, (std::vector<uint8_t>{0, 0, 0}));
  expr::BoundTerm term{1, Type::Long(), std::nullopt, Type::Long(), true};
  auto gt = BoundExpression::Predicate(Operation::kGt, term, {Literal::Long(1)});
  ASSERT_TRUE(EvaluateFilter(*gt, by_id, 3, &keep));
  EXPECT_EQ(keep, (std::vector<uint8_t>{0, 0, 1}));
  // A column whose Arrow type does not hold its Iceberg type.
  auto strings = data::testing::ArrayFromJson(arrow::utf8(), R"(["a", "b", "c"])");
  ColumnById wrong = [&](int32_t) -> Result<std::shared_ptr<arrow::Array>> { return strings; };
  EXPECT_FALSE(EvaluateFilter(*gt, wrong, 3, &keep));
  EXPECT_FALSE(EvaluateFilter(*gt, by_id, 4, &keep));  // a length mismatch
}

}  // namespace
}  // namespace skade::read
