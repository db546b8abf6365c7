// Iceberg filter expressions, unbound: what a user or client wrote, with
// columns by name (spec: "Scan Planning"; the REST spec's Expression).
//
// A tree of immutable nodes shared as ExpressionPtr: true, false, and, or,
// not, and predicates on a term — a column (`id`) or a transform of one
// (`day(ts)`, `bucket(16, id)`, `truncate(4, name)`). Literals are kept as
// written (long, double, string, boolean, …) and converted to the column's
// type when the expression is bound (bound_expression.h). Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skade/spec/literal.h"
#include "skade/spec/transform.h"

namespace skade::expr {

enum class Operation {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  // Unary predicates.
  kIsNull,
  kNotNull,
  kIsNan,
  kNotNan,
  // Predicates on one literal.
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kStartsWith,
  kNotStartsWith,
  // Predicates on a set of literals.
  kIn,
  kNotIn,
};

/// The REST spec's name of `op`: "true", "and", "is-null", "lt-eq",
/// "starts-with", "not-in", … .
std::string_view OperationName(Operation op);
/// The operation that holds exactly when `op` does not (kLt → kGtEq,
/// kIn → kNotIn, kAnd → kOr, …), as used to push a `not` down.
Operation Negate(Operation op);
/// `a op b` ⇔ `b Flip(op) a`: kLt → kGt, kLtEq → kGtEq; kEq/kNotEq unchanged.
Operation Flip(Operation op);
bool IsUnary(Operation op);    // kIsNull … kNotNan
bool IsLiteral(Operation op);  // kLt … kNotStartsWith
bool IsSet(Operation op);      // kIn, kNotIn

/// A column by name (dotted for nested fields: "location.lat"), optionally
/// under a transform.
struct Term {
  std::string name;
  std::optional<spec::Transform> transform;
  bool operator==(const Term& other) const = default;
};

class Expression;
using ExpressionPtr = std::shared_ptr<const Expression>;

class Expression {
 public:
  static ExpressionPtr True();
  static ExpressionPtr False();
  /// And/Or simplify constants (And(True, x) → x, Or(True, x) → True, …).
  static ExpressionPtr And(ExpressionPtr left, ExpressionPtr right);
  static ExpressionPtr Or(ExpressionPtr left, ExpressionPtr right);
  /// Not(True) → False, Not(Not(x)) → x.
  static ExpressionPtr Not(ExpressionPtr child);
  /// A predicate. `literals` must be empty for unary operations, hold one
  /// value for literal operations and at least one for set operations (the
  /// parsers check this and report kInvalidArgument; here it is a
  /// precondition). Null literals are not allowed (use kIsNull).
  static ExpressionPtr Predicate(Operation op, Term term, std::vector<spec::Literal> literals = {});

  Operation op() const { return op_; }
  /// kAnd, kOr: both children; kNot: left() only.
  const ExpressionPtr& left() const { return left_; }
  const ExpressionPtr& right() const { return right_; }
  /// Predicates only.
  const Term& term() const { return term_; }
  const std::vector<spec::Literal>& literals() const { return literals_; }
  bool IsPredicate() const { return IsUnary(op_) || IsLiteral(op_) || IsSet(op_); }

  /// The text form (expression_parser.h), which parses back to an equal
  /// expression: `id > 5 and day(ts) = '2026-11-01'`.
  std::string ToString() const;

  /// Structural equality.
  bool Equals(const Expression& other) const;

 private:
  Expression() = default;

  Operation op_ = Operation::kTrue;
  ExpressionPtr left_;
  ExpressionPtr right_;
  Term term_;
  std::vector<spec::Literal> literals_;
};

}  // namespace skade::expr
