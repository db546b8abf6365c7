#include "skade/expr/metrics_evaluator.h"

#include <optional>

#include "skade/expr/bounds_internal.h"

namespace skade::expr {

namespace {

std::optional<int64_t> Count(const std::map<int32_t, int64_t>& counts, int32_t id) {
  auto it = counts.find(id);
  if (it == counts.end()) return std::nullopt;
  return it->second;
}

const std::string* Bytes(const std::map<int32_t, std::string>& bounds, int32_t id) {
  auto it = bounds.find(id);
  return it == bounds.end() ? nullptr : &it->second;
}

// Transforms that keep order carry a column's bounds over to the
// transformed values.
bool KeepsOrder(const spec::Transform& transform) {
  switch (transform.kind()) {
    case spec::TransformKind::kIdentity:
    case spec::TransformKind::kTruncate:
    case spec::TransformKind::kYear:
    case spec::TransformKind::kMonth:
    case spec::TransformKind::kDay:
    case spec::TransformKind::kHour:
      return true;
    default:
      return false;
  }
}

std::optional<spec::Literal> TermBound(const BoundTerm& term, const spec::TypePtr& type,
                                       const std::string* bytes, bool lower) {
  auto bound = internal::ReadBound(type, bytes, lower);
  if (!bound || !term.transform) return bound;
  if (!KeepsOrder(*term.transform)) return std::nullopt;
  auto transformed = term.transform->Apply(*bound);
  if (!transformed) return std::nullopt;
  // truncate(W, v) <= v, except that an integer near its type's minimum
  // wraps to a large value (as in Iceberg Java): no longer a bound.
  if (term.transform->kind() == spec::TransformKind::kTruncate &&
      CompareLiterals(*transformed, *bound) > 0) {
    return std::nullopt;
  }
  return std::move(*transformed);
}

}  // namespace

bool ColumnMayMatch(const BoundExpression& predicate, const ColumnMetrics& metrics,
                    const spec::Schema& schema) {
  const BoundTerm& term = predicate.term();
  int32_t id = term.field_id;
  const std::optional<int64_t>& values = metrics.value_count;
  const std::optional<int64_t>& nulls = metrics.null_count;
  const std::optional<int64_t>& nans = metrics.nan_count;
  bool nulls_only = values && nulls && *values == *nulls;
  bool nans_only = values && nans && *values == *nans;
  Operation op = predicate.op();
  switch (op) {
    case Operation::kIsNull:
      return !(nulls && *nulls == 0);
    case Operation::kNotNull:
      return !nulls_only;
    case Operation::kIsNan:
      return !(nans && *nans == 0) && !nulls_only;
    case Operation::kNotNan:
      return !nans_only;
    default:
      break;
  }
  // Nulls fail every other predicate; NaN fails all but != and `not in`.
  if (nulls_only) return false;
  bool may_have_nan =
      (term.type->id() == spec::TypeId::kFloat || term.type->id() == spec::TypeId::kDouble) &&
      !(nans && *nans == 0);
  if ((op == Operation::kNotEq || op == Operation::kNotIn) && may_have_nan) return true;
  if (nans_only) return false;
  const spec::NestedField* field = schema.FindFieldById(id);
  const spec::TypePtr& type = field != nullptr ? field->type : term.source_type;
  return internal::BoundsMayMatch(predicate, TermBound(term, type, metrics.lower_bound, true),
                                  TermBound(term, type, metrics.upper_bound, false));
}

namespace {

bool PredicateMayMatch(const BoundExpression& predicate, const spec::DataFile& file,
                       const spec::Schema& schema) {
  int32_t id = predicate.term().field_id;
  ColumnMetrics metrics;
  metrics.value_count = Count(file.value_counts, id);
  metrics.null_count = Count(file.null_value_counts, id);
  metrics.nan_count = Count(file.nan_value_counts, id);
  metrics.lower_bound = Bytes(file.lower_bounds, id);
  metrics.upper_bound = Bytes(file.upper_bounds, id);
  return ColumnMayMatch(predicate, metrics, schema);
}

bool MayMatchFile(const BoundExpression& expression, const spec::DataFile& file,
                  const spec::Schema& schema) {
  switch (expression.op()) {
    case Operation::kTrue:
      return true;
    case Operation::kFalse:
      return false;
    case Operation::kAnd:
      return MayMatchFile(*expression.left(), file, schema) &&
             MayMatchFile(*expression.right(), file, schema);
    case Operation::kOr:
      return MayMatchFile(*expression.left(), file, schema) ||
             MayMatchFile(*expression.right(), file, schema);
    default:
      return PredicateMayMatch(expression, file, schema);
  }
}

}  // namespace

MetricsEvaluator::MetricsEvaluator(BoundExpressionPtr filter, const spec::Schema& schema)
    : filter_(std::move(filter)), schema_(&schema) {}

bool MetricsEvaluator::MayMatch(const spec::DataFile& file) const {
  if (file.record_count == 0) return false;
  return MayMatchFile(*filter_, file, *schema_);
}

}  // namespace skade::expr
