#include "skade/expr/expression.h"

#include <cmath>

#include "skade/expr/bound_expression.h"
#include "skade/expr/expression_text_internal.h"
#include "skade/util/strings.h"

namespace skade::expr {

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return "true";
    case Operation::kFalse:
      return "false";
    case Operation::kAnd:
      return "and";
    case Operation::kOr:
      return "or";
    case Operation::kNot:
      return "not";
    case Operation::kIsNull:
      return "is-null";
    case Operation::kNotNull:
      return "not-null";
    case Operation::kIsNan:
      return "is-nan";
    case Operation::kNotNan:
      return "not-nan";
    case Operation::kLt:
      return "lt";
    case Operation::kLtEq:
      return "lt-eq";
    case Operation::kGt:
      return "gt";
    case Operation::kGtEq:
      return "gt-eq";
    case Operation::kEq:
      return "eq";
    case Operation::kNotEq:
      return "not-eq";
    case Operation::kStartsWith:
      return "starts-with";
    case Operation::kNotStartsWith:
      return "not-starts-with";
    case Operation::kIn:
      return "in";
    case Operation::kNotIn:
      return "not-in";
  }
  return "unknown";
}

Operation Negate(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return Operation::kFalse;
    case Operation::kFalse:
      return Operation::kTrue;
    case Operation::kAnd:
      return Operation::kOr;
    case Operation::kOr:
      return Operation::kAnd;
    case Operation::kNot:
      return Operation::kNot;
    case Operation::kIsNull:
      return Operation::kNotNull;
    case Operation::kNotNull:
      return Operation::kIsNull;
    case Operation::kIsNan:
      return Operation::kNotNan;
    case Operation::kNotNan:
      return Operation::kIsNan;
    case Operation::kLt:
      return Operation::kGtEq;
    case Operation::kLtEq:
      return Operation::kGt;
    case Operation::kGt:
      return Operation::kLtEq;
    case Operation::kGtEq:
      return Operation::kLt;
    case Operation::kEq:
      return Operation::kNotEq;
    case Operation::kNotEq:
      return Operation::kEq;
    case Operation::kStartsWith:
      return Operation::kNotStartsWith;
    case Operation::kNotStartsWith:
      return Operation::kStartsWith;
    case Operation::kIn:
      return Operation::kNotIn;
    case Operation::kNotIn:
      return Operation::kIn;
  }
  return op;
}

Operation Flip(Operation op) {
  switch (op) {
    case Operation::kLt:
      return Operation::kGt;
    case Operation::kLtEq:
      return Operation::kGtEq;
    case Operation::kGt:
      return Operation::kLt;
    case Operation::kGtEq:
      return Operation::kLtEq;
    default:
      return op;
  }
}

bool IsUnary(Operation op) { return op >= Operation::kIsNull && op <= Operation::kNotNan; }
bool IsLiteral(Operation op) { return op >= Operation::kLt && op <= Operation::kNotStartsWith; }
bool IsSet(Operation op) { return op == Operation::kIn || op == Operation::kNotIn; }

ExpressionPtr Expression::True() {
  static const ExpressionPtr kTrue(new Expression());
  return kTrue;
}

ExpressionPtr Expression::False() {
  static const ExpressionPtr kFalse = [] {
    auto* e = new Expression();
    e->op_ = Operation::kFalse;
    return ExpressionPtr(e);
  }();
  return kFalse;
}

ExpressionPtr Expression::And(ExpressionPtr left, ExpressionPtr right) {
  if (left->op() == Operation::kFalse || right->op() == Operation::kTrue) return left;
  if (right->op() == Operation::kFalse || left->op() == Operation::kTrue) return right;
  auto* e = new Expression();
  e->op_ = Operation::kAnd;
  e->left_ = std::move(left);
  e->right_ = std::move(right);
  return ExpressionPtr(e);
}

ExpressionPtr Expression::Or(ExpressionPtr left, ExpressionPtr right) {
  if (left->op() == Operation::kTrue || right->op() == Operation::kFalse) return left;
  if (right->op() == Operation::kTrue || left->op() == Operation::kFalse) return right;
  auto* e = new Expression();
  e->op_ = Operation::kOr;
  e->left_ = std::move(left);
  e->right_ = std::move(right);
  return ExpressionPtr(e);
}

ExpressionPtr Expression::Not(ExpressionPtr child) {
  if (child->op() == Operation::kTrue) return False();
  if (child->op() == Operation::kFalse) return True();
  if (child->op() == Operation::kNot) return child->left();
  auto* e = new Expression();
  e->op_ = Operation::kNot;
  e->left_ = std::move(child);
  return ExpressionPtr(e);
}

ExpressionPtr Expression::Predicate(Operation op, Term term, std::vector<spec::Literal> literals) {
  auto* e = new Expression();
  e->op_ = op;
  e->term_ = std::move(term);
  e->literals_ = std::move(literals);
  return ExpressionPtr(e);
}

std::string Expression::ToString() const {
  switch (op_) {
    case Operation::kTrue:
      return "true";
    case Operation::kFalse:
      return "false";
    case Operation::kAnd:
    case Operation::kOr:
      return internal::JunctionText(op_, left_->op_, left_->ToString(), right_->op_,
                                    right_->ToString());
    case Operation::kNot: {
      bool junction = left_->op_ == Operation::kAnd || left_->op_ == Operation::kOr;
      return junction ? StrCat("not (", left_->ToString(), ")") : StrCat("not ", left_->ToString());
    }
    default:
      return internal::PredicateText(
          op_, internal::TermText(internal::ColumnText(term_.name), term_.transform), literals_);
  }
}

bool Expression::Equals(const Expression& other) const {
  if (op_ != other.op_) return false;
  switch (op_) {
    case Operation::kTrue:
    case Operation::kFalse:
      return true;
    case Operation::kAnd:
    case Operation::kOr:
      return left_->Equals(*other.left_) && right_->Equals(*other.right_);
    case Operation::kNot:
      return left_->Equals(*other.left_);
    default:
      if (!(term_ == other.term_) || literals_.size() != other.literals_.size()) return false;
      for (size_t i = 0; i < literals_.size(); ++i) {
        // By CompareLiterals, so that NaN equals NaN.
        if (!spec::TypeEquals(literals_[i].type(), other.literals_[i].type()) ||
            CompareLiterals(literals_[i], other.literals_[i]) != 0) {
          return false;
        }
      }
      return true;
  }
}

}  // namespace skade::expr
