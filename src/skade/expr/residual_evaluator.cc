#include "skade/expr/residual_evaluator.h"

#include "skade/expr/projection.h"
#include "skade/expr/row_evaluator.h"

namespace skade::expr {

struct ResidualEvaluator::Node {
  BoundExpressionPtr expression;
  // Predicates: the strict and the inclusive projection.
  BoundExpressionPtr strict;
  BoundExpressionPtr inclusive;
  // And, or: the children.
  std::unique_ptr<Node> left;
  std::unique_ptr<Node> right;
};

Result<ResidualEvaluator> ResidualEvaluator::Make(BoundExpressionPtr filter,
                                                  const spec::PartitionSpec& spec,
                                                  const spec::Schema& schema) {
  auto plan = [&](const auto& self,
                  const BoundExpressionPtr& expression) -> Result<std::unique_ptr<Node>> {
    auto node = std::make_unique<Node>();
    node->expression = expression;
    if (expression->op() == Operation::kAnd || expression->op() == Operation::kOr) {
      SKADE_ASSIGN_OR_RAISE(node->left, self(self, expression->left()));
      SKADE_ASSIGN_OR_RAISE(node->right, self(self, expression->right()));
    } else if (expression->IsPredicate()) {
      SKADE_ASSIGN_OR_RAISE(node->strict, ProjectStrict(*expression, spec, schema));
      SKADE_ASSIGN_OR_RAISE(node->inclusive, ProjectInclusive(*expression, spec, schema));
    }
    return node;
  };
  ResidualEvaluator evaluator;
  SKADE_ASSIGN_OR_RAISE(std::shared_ptr<const Node> root, plan(plan, filter));
  evaluator.filter_ = std::move(filter);
  evaluator.spec_ = std::make_shared<const spec::PartitionSpec>(spec);
  evaluator.plan_ = std::move(root);
  return evaluator;
}

BoundExpressionPtr ResidualEvaluator::ResidualFor(
    const std::vector<spec::Literal>& partition) const {
  if (spec_->IsUnpartitioned() || partition.size() != spec_->fields.size()) return filter_;
  const auto& fields = spec_->fields;
  auto holds = [&](const BoundExpression& projected) {
    return EvaluateRow(projected, [&](int32_t field_id) -> const spec::Literal& {
      size_t i = 0;
      while (i + 1 < fields.size() && fields[i].field_id != field_id) ++i;
      return partition[i];
    });
  };
  auto residual = [&](const auto& self, const Node& node) -> BoundExpressionPtr {
    Operation op = node.expression->op();
    if (op == Operation::kAnd || op == Operation::kOr) {
      BoundExpressionPtr left = self(self, *node.left);
      BoundExpressionPtr right = self(self, *node.right);
      // Nothing simplified below: the filter's own subtree, shared by every
      // task, not a copy per task.
      if (left == node.expression->left() && right == node.expression->right()) {
        return node.expression;
      }
      return op == Operation::kAnd ? BoundExpression::And(left, right)
                                   : BoundExpression::Or(left, right);
    }
    if (!node.expression->IsPredicate()) return node.expression;
    // Every row of the partition matches, or none does.
    if (holds(*node.strict)) return BoundExpression::True();
    if (!holds(*node.inclusive)) return BoundExpression::False();
    return node.expression;
  };
  return residual(residual, *plan_);
}

}  // namespace skade::expr
