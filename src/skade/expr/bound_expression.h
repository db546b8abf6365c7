// Filter expressions bound to a schema: columns resolved to field ids,
// literals converted to the column's (or the transform's result) type.
//
// Binding follows Iceberg Java's rules: names resolve case-sensitively or
// not; a literal converts to the term's type (a string to a date, time,
// timestamp, uuid or decimal, and for year/month/hour terms from the forms
// partition paths show: '2026', '2026-11', '2026-11-01-10'; a long to an int
// when it fits; a double to a float), and a comparison with a value outside
// the type's range folds to true or false (`int_col < 1e10` is true for every
// non-null row); `in` literals are de-duplicated and sorted; an `in` of one
// value is `eq`. Predicates that cannot hold for a required column fold too
// (`is null` on a required field is false). `not` is pushed down to the
// predicates, so a bound tree has no kNot. Thread-safe, immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "skade/expr/expression.h"
#include "skade/spec/literal.h"
#include "skade/spec/schema.h"
#include "skade/spec/transform.h"
#include "skade/util/result.h"

namespace skade::expr {

/// A column by field id, optionally under a transform.
struct BoundTerm {
  int32_t field_id = 0;
  /// The column's type.
  spec::TypePtr source_type;
  std::optional<spec::Transform> transform;
  /// The type the predicate's literals have: the transform's result type,
  /// or source_type.
  spec::TypePtr type;
  /// Whether the column may hold nulls.
  bool optional = true;
  bool operator==(const BoundTerm& other) const;
};

class BoundExpression;
using BoundExpressionPtr = std::shared_ptr<const BoundExpression>;

class BoundExpression {
 public:
  static BoundExpressionPtr True();
  static BoundExpressionPtr False();
  /// Simplify constants like Expression::And / Or.
  static BoundExpressionPtr And(BoundExpressionPtr left, BoundExpressionPtr right);
  static BoundExpressionPtr Or(BoundExpressionPtr left, BoundExpressionPtr right);
  /// A predicate; literals typed as term.type (set literals sorted, unique).
  static BoundExpressionPtr Predicate(Operation op, BoundTerm term,
                                      std::vector<spec::Literal> literals = {});

  Operation op() const { return op_; }
  const BoundExpressionPtr& left() const { return left_; }
  const BoundExpressionPtr& right() const { return right_; }
  const BoundTerm& term() const { return term_; }
  const std::vector<spec::Literal>& literals() const { return literals_; }
  bool IsPredicate() const { return IsUnary(op_) || IsLiteral(op_) || IsSet(op_); }
  bool IsTrue() const { return op_ == Operation::kTrue; }
  bool IsFalse() const { return op_ == Operation::kFalse; }

  /// The field ids every predicate refers to, sorted and unique.
  std::vector<int32_t> ReferencedFieldIds() const;

  /// Text for messages and `skade scan --plan`, naming columns through
  /// `schema` when given (else `#<field id>`).
  std::string ToString(const spec::Schema* schema = nullptr) const;

  bool Equals(const BoundExpression& other) const;

 private:
  BoundExpression() = default;

  Operation op_ = Operation::kTrue;
  BoundExpressionPtr left_;
  BoundExpressionPtr right_;
  BoundTerm term_;
  std::vector<spec::Literal> literals_;
};

/// Binds `expression` to `schema`. kInvalidArgument (a message naming the
/// column or value) for an unknown column, a nested (struct/list/map)
/// column, a transform that does not apply to the column, a literal that
/// cannot convert to its type, `starts with` on a non-string, `is nan` on a
/// non-floating column.
Result<BoundExpressionPtr> Bind(const Expression& expression, const spec::Schema& schema,
                                bool case_sensitive = true);

/// Converts a literal as written to `type` (the binding rule above). A value
/// that cannot convert or does not fit is kInvalidArgument (Bind folds the
/// out-of-range comparisons before it gets here).
Result<spec::Literal> ConvertLiteral(const spec::Literal& literal, const spec::TypePtr& type);

/// Three-way comparison of two non-null literals of the same type, in
/// Iceberg's order for that type (signed ints, IEEE doubles with -0 < 0 and
/// NaN greatest, strings as unsigned UTF-8 bytes, binary/fixed unsigned
/// lexicographic, decimals by value, uuids as unsigned bytes): <0, 0, >0.
/// An int and a long, or a float and a double, compare by value.
int CompareLiterals(const spec::Literal& a, const spec::Literal& b);

}  // namespace skade::expr
