// The pieces of the text form (expression_parser.h) that Expression and
// BoundExpression print and the parser reads. Not part of the public API.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/expr/expression.h"
#include "skade/spec/literal.h"
#include "skade/spec/transform.h"

namespace skade::expr::internal {

/// Words the parser reads as keywords where a column could stand; a column
/// named so is printed quoted.
bool IsKeyword(std::string_view word);

/// A column name as the parser reads it back: bare when every dotted part is
/// an identifier and no keyword, else in double quotes.
std::string ColumnText(std::string_view name);

/// `column` or `day(column)`, `bucket(16, column)`; `column` already printed.
std::string TermText(const std::string& column, const std::optional<spec::Transform>& transform);

/// A literal as the parser reads it: booleans and numbers bare (doubles
/// always with a point or exponent, `nan`, `inf`, `-inf`), every other type
/// as the quoted string of its single-value JSON form.
std::string LiteralText(const spec::Literal& literal);

/// `left and right` / `left or right` (`op`), a side in parentheses where
/// the parser would group it otherwise: an `or` under an `and`, and a side of
/// the same operation (the parser builds chains as balanced trees, so their
/// shape must be spelled out). `left_op` and `right_op` are the sides'
/// operations.
std::string JunctionText(Operation op, Operation left_op, const std::string& left,
                         Operation right_op, const std::string& right);

/// `term op literal(s)` for a predicate operation.
std::string PredicateText(Operation op, const std::string& term,
                          const std::vector<spec::Literal>& literals);

}  // namespace skade::expr::internal
