#include <algorithm>
#include <cmath>
#include <string_view>

#include "skade/data/arrow_literal.h"
#include "skade/expr/row_evaluator.h"
#include "skade/read/residual_filter_internal.h"

namespace skade::read {

namespace {

using expr::BoundExpression;
using expr::Operation;
using spec::Literal;
using spec::TypeId;

// Three-way comparison in Iceberg's order, as expr::CompareLiterals: for
// floating point -0 < 0 and NaN above everything (NaN values themselves are
// decided before comparing).
template <typename T>
int ThreeWay(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a < b) return -1;
    if (b < a) return 1;
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) - std::isnan(b);
    return std::signbit(b) - std::signbit(a);  // equal, or -0 against 0
  } else {
    return a < b ? -1 : (b < a ? 1 : 0);
  }
}

bool Decide(Operation op, int order) {
  switch (op) {
    case Operation::kLt:
      return order < 0;
    case Operation::kLtEq:
      return order <= 0;
    case Operation::kGt:
      return order > 0;
    case Operation::kGtEq:
      return order >= 0;
    case Operation::kEq:
      return order == 0;
    case Operation::kNotEq:
      return order != 0;
    default:
      return false;
  }
}

template <typename T>
T LiteralValue(const Literal& literal) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return std::get<std::string>(literal.value());
  } else {
    return std::get<T>(literal.value());
  }
}

// A predicate over the valid values of `array` read by `get(i)`; nulls get
// `null_result`, what EvaluateRow gives for a null value.
template <typename T, typename Get>
void EvaluateValues(const BoundExpression& predicate, const arrow::Array& array, Get get,
                    bool null_result, uint8_t* out) {
  const int64_t rows = array.length();
  const Operation op = predicate.op();
  std::vector<T> literals;
  literals.reserve(predicate.literals().size());
  for (const auto& literal : predicate.literals()) literals.push_back(LiteralValue<T>(literal));
  auto decide = [&](int64_t i) -> bool {
    T value = get(i);
    if constexpr (std::is_floating_point_v<T>) {
      if (op == Operation::kIsNan || op == Operation::kNotNan) {
        return std::isnan(value) == (op == Operation::kIsNan);
      }
      // NaN is unequal to everything and unordered.
      if (std::isnan(value)) return op == Operation::kNotEq || op == Operation::kNotIn;
    } else if (op == Operation::kIsNan || op == Operation::kNotNan) {
      return op == Operation::kNotNan;
    }
    switch (op) {
      case Operation::kStartsWith:
      case Operation::kNotStartsWith:
        if constexpr (std::is_same_v<T, std::string_view>) {
          return value.starts_with(literals[0]) == (op == Operation::kStartsWith);
        } else {
          return false;
        }
      case Operation::kIn:
      case Operation::kNotIn: {
        // Bound set literals are sorted in this order.
        bool found =
            std::binary_search(literals.begin(), literals.end(), value,
                               [](const T& a, const T& b) { return ThreeWay<T>(a, b) < 0; });
        return found == (op == Operation::kIn);
      }
      default:
        return Decide(op, ThreeWay<T>(value, T(literals[0])));
    }
  };
  if (array.null_count() == 0) {
    for (int64_t i = 0; i < rows; ++i) out[i] = decide(i);
  } else {
    for (int64_t i = 0; i < rows; ++i) out[i] = array.IsNull(i) ? null_result : decide(i);
  }
}

// EvaluateRow value by value: for transforms and the types without a loop
// of their own.
Status EvaluateEachRow(const BoundExpression& predicate, const arrow::Array& array, uint8_t* out) {
  for (int64_t i = 0; i < array.length(); ++i) {
    SKADE_ASSIGN_OR_RAISE(Literal value,
                          data::LiteralFromArrow(array, i, predicate.term().source_type));
    out[i] = expr::EvaluateRow(predicate, [&](int32_t) -> const Literal& { return value; });
  }
  return OkStatus();
}

Status EvaluatePredicate(const BoundExpression& predicate, const arrow::Array& array,
                         uint8_t* out) {
  const expr::BoundTerm& term = predicate.term();
  const Literal null_value = Literal::Null(term.source_type);
  const bool null_result =
      expr::EvaluateRow(predicate, [&](int32_t) -> const Literal& { return null_value; });
  if (predicate.op() == Operation::kIsNull || predicate.op() == Operation::kNotNull) {
    bool is_null = predicate.op() == Operation::kIsNull;
    for (int64_t i = 0; i < array.length(); ++i) out[i] = array.IsNull(i) == is_null;
    return OkStatus();
  }
  if (term.transform) return EvaluateEachRow(predicate, array, out);
  const arrow::ArrayData& data = *array.data();
  arrow::Type::type arrow_id = array.type_id();
  switch (term.source_type->id()) {
    case TypeId::kInt:
    case TypeId::kDate: {
      if (arrow_id != arrow::Type::INT32 && arrow_id != arrow::Type::DATE32) break;
      const int32_t* values = data.GetValues<int32_t>(1);
      EvaluateValues<int32_t>(
          predicate, array, [values](int64_t i) { return values[i]; }, null_result, out);
      return OkStatus();
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      if (arrow_id != arrow::Type::INT64 && arrow_id != arrow::Type::TIME64 &&
          arrow_id != arrow::Type::TIMESTAMP) {
        break;
      }
      const int64_t* values = data.GetValues<int64_t>(1);
      EvaluateValues<int64_t>(
          predicate, array, [values](int64_t i) { return values[i]; }, null_result, out);
      return OkStatus();
    }
    case TypeId::kFloat: {
      if (arrow_id != arrow::Type::FLOAT) break;
      const float* values = data.GetValues<float>(1);
      EvaluateValues<float>(
          predicate, array, [values](int64_t i) { return values[i]; }, null_result, out);
      return OkStatus();
    }
    case TypeId::kDouble: {
      if (arrow_id != arrow::Type::DOUBLE) break;
      const double* values = data.GetValues<double>(1);
      EvaluateValues<double>(
          predicate, array, [values](int64_t i) { return values[i]; }, null_result, out);
      return OkStatus();
    }
    case TypeId::kBoolean: {
      if (arrow_id != arrow::Type::BOOL) break;
      const auto& booleans = static_cast<const arrow::BooleanArray&>(array);
      EvaluateValues<bool>(
          predicate, array, [&booleans](int64_t i) { return booleans.Value(i); }, null_result, out);
      return OkStatus();
    }
    case TypeId::kString: {
      if (arrow_id != arrow::Type::STRING) break;
      const auto& strings = static_cast<const arrow::StringArray&>(array);
      EvaluateValues<std::string_view>(
          predicate, array, [&strings](int64_t i) { return strings.GetView(i); }, null_result, out);
      return OkStatus();
    }
    default:
      break;
  }
  return EvaluateEachRow(predicate, array, out);
}

Status Evaluate(const BoundExpression& filter, const ColumnById& columns, int64_t rows,
                uint8_t* out) {
  switch (filter.op()) {
    case Operation::kTrue:
      std::fill(out, out + rows, 1);
      return OkStatus();
    case Operation::kFalse:
      std::fill(out, out + rows, 0);
      return OkStatus();
    case Operation::kAnd:
    case Operation::kOr: {
      SKADE_RETURN_NOT_OK(Evaluate(*filter.left(), columns, rows, out));
      std::vector<uint8_t> right(static_cast<size_t>(rows));
      SKADE_RETURN_NOT_OK(Evaluate(*filter.right(), columns, rows, right.data()));
      if (filter.op() == Operation::kAnd) {
        for (int64_t i = 0; i < rows; ++i) out[i] &= right[i];
      } else {
        for (int64_t i = 0; i < rows; ++i) out[i] |= right[i];
      }
      return OkStatus();
    }
    default:
      break;
  }
  if (!filter.IsPredicate()) {
    return InvalidArgument("Cannot evaluate ", filter.ToString(), " on rows");
  }
  SKADE_ASSIGN_OR_RAISE(auto array, columns(filter.term().field_id));
  if (array->length() != rows) {
    return InvalidArgument("Column #", filter.term().field_id, " has ", array->length(),
                           " rows, the batch ", rows);
  }
  return EvaluatePredicate(filter, *array, out);
}

}  // namespace

Status EvaluateFilter(const BoundExpression& filter, const ColumnById& columns, int64_t rows,
                      std::vector<uint8_t>* keep) {
  keep->assign(static_cast<size_t>(rows), 0);
  return Evaluate(filter, columns, rows, keep->data());
}

}  // namespace skade::read
