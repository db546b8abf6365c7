#include "skade/expr/row_evaluator.h"

#include <algorithm>
#include <cmath>

namespace skade::expr {

namespace {

bool IsNanValue(const spec::Literal& value) {
  if (const auto* f = std::get_if<float>(&value.value())) return std::isnan(*f);
  if (const auto* d = std::get_if<double>(&value.value())) return std::isnan(*d);
  return false;
}

bool StartsWith(const spec::Literal& value, const spec::Literal& prefix) {
  const auto* text = std::get_if<std::string>(&value.value());
  const auto* start = std::get_if<std::string>(&prefix.value());
  return text != nullptr && start != nullptr && text->starts_with(*start);
}

bool EvaluatePredicate(const BoundExpression& predicate, const spec::Literal& value) {
  Operation op = predicate.op();
  switch (op) {
    case Operation::kIsNull:
      return value.is_null();
    case Operation::kNotNull:
      return !value.is_null();
    case Operation::kIsNan:
      return IsNanValue(value);
    case Operation::kNotNan:
      return !IsNanValue(value);
    default:
      break;
  }
  if (value.is_null()) return false;
  const auto& literals = predicate.literals();
  if (IsNanValue(value)) return op == Operation::kNotEq || op == Operation::kNotIn;
  switch (op) {
    case Operation::kLt:
      return CompareLiterals(value, literals[0]) < 0;
    case Operation::kLtEq:
      return CompareLiterals(value, literals[0]) <= 0;
    case Operation::kGt:
      return CompareLiterals(value, literals[0]) > 0;
    case Operation::kGtEq:
      return CompareLiterals(value, literals[0]) >= 0;
    case Operation::kEq:
      return CompareLiterals(value, literals[0]) == 0;
    case Operation::kNotEq:
      return CompareLiterals(value, literals[0]) != 0;
    case Operation::kStartsWith:
      return StartsWith(value, literals[0]);
    case Operation::kNotStartsWith:
      return !StartsWith(value, literals[0]);
    case Operation::kIn:
    case Operation::kNotIn: {
      // Set literals are sorted by CompareLiterals.
      bool found = std::binary_search(
          literals.begin(), literals.end(), value,
          [](const spec::Literal& a, const spec::Literal& b) { return CompareLiterals(a, b) < 0; });
      return found == (op == Operation::kIn);
    }
    default:
      return false;
  }
}

}  // namespace

bool EvaluateRow(const BoundExpression& filter,
                 absl::FunctionRef<const spec::Literal&(int32_t field_id)> value) {
  switch (filter.op()) {
    case Operation::kTrue:
      return true;
    case Operation::kFalse:
      return false;
    case Operation::kAnd:
      return EvaluateRow(*filter.left(), value) && EvaluateRow(*filter.right(), value);
    case Operation::kOr:
      return EvaluateRow(*filter.left(), value) || EvaluateRow(*filter.right(), value);
    default:
      break;
  }
  const BoundTerm& term = filter.term();
  const spec::Literal& column = value(term.field_id);
  if (!term.transform) return EvaluatePredicate(filter, column);
  auto transformed = term.transform->Apply(column);
  // A value that does not hold the column's type cannot match.
  if (!transformed) return false;
  return EvaluatePredicate(filter, *transformed);
}

}  // namespace skade::expr
