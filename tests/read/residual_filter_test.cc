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

struct Column {
  int32_t id;
  TypePtr type;
  std::vector<Literal> pool;  // non-null values rows and literals draw from
};

Literal Decimal(const std::string& text) {
  return expr::ConvertLiteral(Literal::String(text), Type::Decimal(9, 2)).value();
}

std::vector<Column> Columns() {
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Column> columns;
  columns.push_back({1, Type::Int(), {}});
  for (int32_t v : {-3, -1, 0, 1, 2, 3, std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max()}) {
    columns.back().pool.push_back(Literal::Int(v));
  }
  columns.push_back({2, Type::Long(), {}});
  for (int64_t v : {int64_t{-5}, int64_t{0}, int64_t{7}, int64_t{1} << 40,
                    std::numeric_limits<int64_t>::min()}) {
    columns.back().pool.push_back(Literal::Long(v));
  }
  columns.push_back({3, Type::Float(), {}});
  for (float v : {nanf, -0.0f, 0.0f, 1.5f, -2.25f, static_cast<float>(inf), 3.0f}) {
    columns.back().pool.push_back(Literal::Float(v));
  }
  columns.push_back({4, Type::Double(), {}});
  for (double v : {nan, -0.0, 0.0, 1.5, -2.25, inf, -inf, 3.0}) {
    columns.back().pool.push_back(Literal::Double(v));
  }
  columns.push_back({5, Type::String(), {}});
  for (const char* v : {"", "a", "ab", "abc", "b", "B", "\xc3\xa9t\xc3\xa9"}) {
    columns.back().pool.push_back(Literal::String(v));
  }
  columns.push_back({6, Type::Boolean(), {Literal::Boolean(false), Literal::Boolean(true)}});
  columns.push_back({7, Type::Date(), {}});
  for (int32_t v : {-1, 0, 1, 18000}) columns.back().pool.push_back(Literal::Date(v));
  columns.push_back({8, Type::Decimal(9, 2), {}});
  for (const char* v : {"-1.00", "0.00", "1.25", "99.99"}) {
    columns.back().pool.push_back(Decimal(v));
  }
  columns.push_back({9, Type::Timestamp(), {}});
  for (int64_t v :
       {int64_t{-1}, int64_t{0}, int64_t{3600000000}, int64_t{86400000000}, int64_t{86400000001}}) {
    columns.back().pool.push_back(Literal(Type::Timestamp(), v));
  }
  columns.push_back({10, Type::Binary(), {}});
  for (const char* v : {"", "a", "\xff", "ab"}) columns.back().pool.push_back(Literal::Binary(v));
  return columns;
}

bool IsNan(const Literal& literal) {
  if (const auto* f = std::get_if<float>(&literal.value())) return std::isnan(*f);
  if (const auto* d = std::get_if<double>(&literal.value())) return std::isnan(*d);
  return false;
}

class RandomFilters {
 public:
  RandomFilters(const std::vector<Column>& columns, uint32_t seed)
      : columns_(columns), random_(seed) {}

  BoundExpressionPtr Filter(int depth) {
    int choice = Uniform(0, depth > 0 ? 9 : 6);
    if (choice == 7) return BoundExpression::And(Filter(depth - 1), Filter(depth - 1));
    if (choice >= 8) return BoundExpression::Or(Filter(depth - 1), Filter(depth - 1));
    return Predicate();
  }

  int Uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

 private:
  BoundExpressionPtr Predicate() {
    const Column& column = columns_[Uniform(0, static_cast<int>(columns_.size()) - 1)];
    expr::BoundTerm term;
    term.field_id = column.id;
    term.source_type = column.type;
    term.type = column.type;
    std::vector<Literal> pool = column.pool;
    // Transforms of the reference evaluator's kinds, value by value.
    if (Uniform(0, 5) == 0) {
      std::optional<spec::Transform> transform;
      if (column.type->id() == spec::TypeId::kTimestamp) transform = spec::Transform::Day();
      if (column.type->id() == spec::TypeId::kInt) transform = spec::Transform::Bucket(4);
      if (column.type->id() == spec::TypeId::kString) transform = spec::Transform::Truncate(1);
      if (transform) {
        term.transform = transform;
        term.type = transform->ResultType(column.type).value();
        std::vector<Literal> transformed;
        for (const auto& value : pool) transformed.push_back(transform->Apply(value).value());
        pool = transformed;
      }
    }
    std::vector<Operation> ops = {Operation::kIsNull, Operation::kNotNull, Operation::kLt,
                                  Operation::kLtEq,   Operation::kGt,      Operation::kGtEq,
                                  Operation::kEq,     Operation::kNotEq,   Operation::kIn,
                                  Operation::kNotIn};
    spec::TypeId id = term.type->id();
    if (id == spec::TypeId::kFloat || id == spec::TypeId::kDouble) {
      ops.push_back(Operation::kIsNan);
      ops.push_back(Operation::kNotNan);
    }
    if (id == spec::TypeId::kString) {
      ops.push_back(Operation::kStartsWith);
      ops.push_back(Operation::kNotStartsWith);
    }
    Operation op = ops[Uniform(0, static_cast<int>(ops.size()) - 1)];
    // Binding refuses NaN literals (use is_nan).
    pool.erase(std::remove_if(pool.begin(), pool.end(), IsNan), pool.end());
    std::vector<Literal> literals;
    if (expr::IsLiteral(op))
      literals.push_back(pool[Uniform(0, static_cast<int>(pool.size()) - 1)]);
    if (expr::IsSet(op)) {
      int count = Uniform(1, 3);
      for (int i = 0; i < count; ++i) {
        literals.push_back(pool[Uniform(0, static_cast<int>(pool.size()) - 1)]);
      }
      auto less = [](const Literal& a, const Literal& b) {
        return expr::CompareLiterals(a, b) < 0;
      };
      std::sort(literals.begin(), literals.end(), less);
      literals.erase(std::unique(literals.begin(), literals.end(),
                                 [](const Literal& a, const Literal& b) {
                                   return expr::CompareLiterals(a, b) == 0;
                                 }),
                     literals.end());
    }
    return BoundExpression::Predicate(op, term, literals);
  }

  const std::vector<Column>& columns_;
  std::mt19937 random_;
};

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
