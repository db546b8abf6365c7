#include "skade/expr/residual_evaluator.h"

#include "skade/expr/projection.h"
#include "skade/expr/row_evaluator.h"

namespace skade::expr {

namespace {

// The residual of `expression` for one partition tuple of `spec`.
class Residual {
 public:
  Residual(const spec::PartitionSpec& spec, const spec::Schema& schema,
           const std::vector<spec::Literal>& partition)
      : spec_(spec), schema_(schema), partition_(partition) {}

  BoundExpressionPtr Of(const BoundExpressionPtr& expression) const {
    switch (expression->op()) {
      case Operation::kTrue:
      case Operation::kFalse:
        return expression;
      case Operation::kAnd:
        return BoundExpression::And(Of(expression->left()), Of(expression->right()));
      case Operation::kOr:
        return BoundExpression::Or(Of(expression->left()), Of(expression->right()));
      default:
        break;
    }
    // A projection that fails to build proves nothing: keep the predicate.
    auto strict = ProjectStrict(*expression, spec_, schema_);
    if (strict && Holds(**strict)) return BoundExpression::True();
    auto inclusive = ProjectInclusive(*expression, spec_, schema_);
    if (inclusive && !Holds(**inclusive)) return BoundExpression::False();
    return expression;
  }

 private:
  bool Holds(const BoundExpression& projected) const {
    return EvaluateRow(projected, [&](int32_t field_id) -> const spec::Literal& {
      size_t i = 0;
      while (i + 1 < spec_.fields.size() && spec_.fields[i].field_id != field_id) ++i;
      return partition_[i];
    });
  }

  const spec::PartitionSpec& spec_;
  const spec::Schema& schema_;
  const std::vector<spec::Literal>& partition_;
};

}  // namespace

Result<ResidualEvaluator> ResidualEvaluator::Make(BoundExpressionPtr filter,
                                                  const spec::PartitionSpec& spec,
                                                  const spec::Schema& schema) {
  // Checks that the filter projects onto the spec at all.
  SKADE_RETURN_NOT_OK(ProjectStrict(*filter, spec, schema));
  ResidualEvaluator evaluator;
  evaluator.filter_ = std::move(filter);
  evaluator.spec_ = std::make_shared<const spec::PartitionSpec>(spec);
  evaluator.schema_ = &schema;
  return evaluator;
}

BoundExpressionPtr ResidualEvaluator::ResidualFor(
    const std::vector<spec::Literal>& partition) const {
  if (spec_->IsUnpartitioned() || partition.size() != spec_->fields.size()) return filter_;
  return Residual(*spec_, *schema_, partition).Of(filter_);
}

}  // namespace skade::expr
