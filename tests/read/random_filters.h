// Random filters for the read/ tests: columns of most primitive types with
// pools of edge values (NaN, -0.0, infinities, extremes, empty and non-ASCII
// strings), and random bound filters over them — comparisons, sets, null
// and NaN checks, `starts with`, some through transforms — nested in and/or.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "skade/expr/bound_expression.h"
#include "skade/expr/row_evaluator.h"
#include "skade/spec/literal.h"
#include "skade/spec/transform.h"

namespace skade::read::testing {

struct Column {
  int32_t id;
  spec::TypePtr type;
  std::vector<spec::Literal> pool;  // non-null values rows and literals draw from
};

inline spec::Literal Decimal(const std::string& text) {
  return expr::ConvertLiteral(spec::Literal::String(text), spec::Type::Decimal(9, 2)).value();
}

inline std::vector<Column> Columns() {
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Column> columns;
  columns.push_back({1, spec::Type::Int(), {}});
  for (int32_t v : {-3, -1, 0, 1, 2, 3, std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max()}) {
    columns.back().pool.push_back(spec::Literal::Int(v));
  }
  columns.push_back({2, spec::Type::Long(), {}});
  for (int64_t v : {int64_t{-5}, int64_t{0}, int64_t{7}, int64_t{1} << 40,
                    std::numeric_limits<int64_t>::min()}) {
    columns.back().pool.push_back(spec::Literal::Long(v));
  }
  columns.push_back({3, spec::Type::Float(), {}});
  for (float v : {nanf, -0.0f, 0.0f, 1.5f, -2.25f, static_cast<float>(inf), 3.0f}) {
    columns.back().pool.push_back(spec::Literal::Float(v));
  }
  columns.push_back({4, spec::Type::Double(), {}});
  for (double v : {nan, -0.0, 0.0, 1.5, -2.25, inf, -inf, 3.0}) {
    columns.back().pool.push_back(spec::Literal::Double(v));
  }
  columns.push_back({5, spec::Type::String(), {}});
  for (const char* v : {"", "a", "ab", "abc", "b", "B", "\xc3\xa9t\xc3\xa9"}) {
    columns.back().pool.push_back(spec::Literal::String(v));
  }
  columns.push_back(
      {6, spec::Type::Boolean(), {spec::Literal::Boolean(false), spec::Literal::Boolean(true)}});
  columns.push_back({7, spec::Type::Date(), {}});
  for (int32_t v : {-1, 0, 1, 18000}) columns.back().pool.push_back(spec::Literal::Date(v));
  columns.push_back({8, spec::Type::Decimal(9, 2), {}});
  for (const char* v : {"-1.00", "0.00", "1.25", "99.99"}) {
    columns.back().pool.push_back(Decimal(v));
  }
  columns.push_back({9, spec::Type::Timestamp(), {}});
  for (int64_t v :
       {int64_t{-1}, int64_t{0}, int64_t{3600000000}, int64_t{86400000000}, int64_t{86400000001}}) {
    columns.back().pool.push_back(spec::Literal(spec::Type::Timestamp(), v));
  }
  columns.push_back({10, spec::Type::Binary(), {}});
  for (const char* v : {"", "a", "\xff", "ab"})
    columns.back().pool.push_back(spec::Literal::Binary(v));
  return columns;
}

inline bool IsNan(const spec::Literal& literal) {
  if (const auto* f = std::get_if<float>(&literal.value())) return std::isnan(*f);
  if (const auto* d = std::get_if<double>(&literal.value())) return std::isnan(*d);
  return false;
}

class RandomFilters {
 public:
  RandomFilters(const std::vector<Column>& columns, uint32_t seed)
      : columns_(columns), random_(seed) {}

  expr::BoundExpressionPtr Filter(int depth) {
    int choice = Uniform(0, depth > 0 ? 9 : 6);
    if (choice == 7) return expr::BoundExpression::And(Filter(depth - 1), Filter(depth - 1));
    if (choice >= 8) return expr::BoundExpression::Or(Filter(depth - 1), Filter(depth - 1));
    return Predicate();
  }

  int Uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

 private:
  expr::BoundExpressionPtr Predicate() {
    const Column& column = columns_[Uniform(0, static_cast<int>(columns_.size()) - 1)];
    expr::BoundTerm term;
    term.field_id = column.id;
    term.source_type = column.type;
    term.type = column.type;
    std::vector<spec::Literal> pool = column.pool;
    // Transforms of the reference evaluator's kinds, value by value.
    if (Uniform(0, 5) == 0) {
      std::optional<spec::Transform> transform;
      if (column.type->id() == spec::TypeId::kTimestamp) transform = spec::Transform::Day();
      if (column.type->id() == spec::TypeId::kInt) transform = spec::Transform::Bucket(4);
      if (column.type->id() == spec::TypeId::kString) transform = spec::Transform::Truncate(1);
      if (transform) {
        term.transform = transform;
        term.type = transform->ResultType(column.type).value();
        std::vector<spec::Literal> transformed;
        for (const auto& value : pool) transformed.push_back(transform->Apply(value).value());
        pool = transformed;
      }
    }
    std::vector<expr::Operation> ops = {expr::Operation::kIsNull, expr::Operation::kNotNull,
                                        expr::Operation::kLt,     expr::Operation::kLtEq,
                                        expr::Operation::kGt,     expr::Operation::kGtEq,
                                        expr::Operation::kEq,     expr::Operation::kNotEq,
                                        expr::Operation::kIn,     expr::Operation::kNotIn};
    spec::TypeId id = term.type->id();
    if (id == spec::TypeId::kFloat || id == spec::TypeId::kDouble) {
      ops.push_back(expr::Operation::kIsNan);
      ops.push_back(expr::Operation::kNotNan);
    }
    if (id == spec::TypeId::kString) {
      ops.push_back(expr::Operation::kStartsWith);
      ops.push_back(expr::Operation::kNotStartsWith);
    }
    expr::Operation op = ops[Uniform(0, static_cast<int>(ops.size()) - 1)];
    // Binding refuses NaN literals (use is_nan).
    pool.erase(std::remove_if(pool.begin(), pool.end(), IsNan), pool.end());
    std::vector<spec::Literal> literals;
    if (expr::IsLiteral(op))
      literals.push_back(pool[Uniform(0, static_cast<int>(pool.size()) - 1)]);
    if (expr::IsSet(op)) {
      int count = Uniform(1, 3);
      for (int i = 0; i < count; ++i) {
        literals.push_back(pool[Uniform(0, static_cast<int>(pool.size()) - 1)]);
      }
      auto less = [](const spec::Literal& a, const spec::Literal& b) {
        return expr::CompareLiterals(a, b) < 0;
      };
      std::sort(literals.begin(), literals.end(), less);
      literals.erase(std::unique(literals.begin(), literals.end(),
                                 [](const spec::Literal& a, const spec::Literal& b) {
                                   return expr::CompareLiterals(a, b) == 0;
                                 }),
                     literals.end());
    }
    return expr::BoundExpression::Predicate(op, term, literals);
  }

  const std::vector<Column>& columns_;
  std::mt19937 random_;
};

}  // namespace skade::read::testing
