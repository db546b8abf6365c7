#include "skade/expr/manifest_evaluator.h"

#include "skade/expr/bounds_internal.h"
#include "skade/expr/projection.h"

namespace skade::expr {

namespace {

bool IsFloating(const spec::Type& type) {
  return type.id() == spec::TypeId::kFloat || type.id() == spec::TypeId::kDouble;
}

// Whether a manifest whose field has `summary` may hold a tuple satisfying
// `predicate` (on that partition field, of `type`). The bounds cover the
// values that are neither null nor NaN, so a missing bound means there are
// none.
bool SummaryMayMatch(const BoundExpression& predicate, const spec::PartitionFieldSummary& summary,
                     const spec::TypePtr& type) {
  bool floating = IsFloating(*type);
  bool no_bounds = !summary.lower_bound && !summary.upper_bound;
  bool may_have_nan = floating && summary.contains_nan != false;
  Operation op = predicate.op();
  switch (op) {
    case Operation::kIsNull:
      return summary.contains_null;
    case Operation::kNotNull:
      return !(summary.contains_null && no_bounds && !may_have_nan);
    case Operation::kIsNan:
      return may_have_nan;
    case Operation::kNotNan:
      return !(floating && summary.contains_nan == true && !summary.contains_null && no_bounds);
    case Operation::kNotEq:
    case Operation::kNotIn:
      // A NaN satisfies both.
      if (may_have_nan) return true;
      break;
    default:
      break;
  }
  if (!summary.lower_bound || !summary.upper_bound) return false;
  return internal::BoundsMayMatch(predicate, internal::ReadBound(type, &*summary.lower_bound, true),
                                  internal::ReadBound(type, &*summary.upper_bound, false));
}

}  // namespace

Result<ManifestEvaluator> ManifestEvaluator::Make(const BoundExpression& filter,
                                                  const spec::PartitionSpec& spec,
                                                  const spec::Schema& schema) {
  ManifestEvaluator evaluator;
  SKADE_ASSIGN_OR_RAISE(evaluator.projected_, ProjectInclusive(filter, spec, schema));
  SKADE_ASSIGN_OR_RAISE(evaluator.partition_type_, spec.PartitionType(schema));
  return evaluator;
}

bool ManifestEvaluator::MayMatch(const spec::ManifestFile& manifest) const {
  const auto& fields = partition_type_->fields();
  if (manifest.partitions.size() < fields.size()) return true;
  auto may_match = [&](const auto& self, const BoundExpression& expression) -> bool {
    switch (expression.op()) {
      case Operation::kTrue:
        return true;
      case Operation::kFalse:
        return false;
      case Operation::kAnd:
        return self(self, *expression.left()) && self(self, *expression.right());
      case Operation::kOr:
        return self(self, *expression.left()) || self(self, *expression.right());
      default:
        break;
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].id == expression.term().field_id) {
        return SummaryMayMatch(expression, manifest.partitions[i], fields[i].type);
      }
    }
    return true;
  };
  return may_match(may_match, *projected_);
}

}  // namespace skade::expr
