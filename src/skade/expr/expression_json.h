// The REST spec's JSON form of expressions (OpenAPI `Expression`): true,
// false, {"type":"and","left":…,"right":…}, {"type":"not","child":…},
// {"type":"lt","term":"id","value":5}, {"type":"in","term":…,"values":[…]},
// {"type":"is-null","term":…}; a term is a column name or
// {"type":"transform","transform":"day","term":"ts"}. Literal values are JSON
// numbers, strings and booleans (dates, timestamps, decimals, uuids as the
// strings the spec's single-value JSON form uses; they convert at binding).
// Stateless; thread-safe.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "skade/expr/bound_expression.h"
#include "skade/expr/expression.h"
#include "skade/spec/schema.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::expr {

/// kInvalidArgument for anything that is not a valid expression, with the
/// JSON path of the fault ("filter.left.term: expected a string or object").
Result<ExpressionPtr> ExpressionFromJson(simdjson::dom::element element);
Result<ExpressionPtr> ParseExpressionJson(std::string_view json);

void WriteExpressionJson(const Expression& expression, JsonWriter& writer);
std::string ExpressionToJson(const Expression& expression);

/// A bound expression in the same JSON form, columns named through `schema`
/// (for the residual filters of REST scan tasks); literals in the spec's
/// single-value JSON form of their type (dates as "2026-11-01", …), so the
/// result binds back to an equal expression.
void WriteBoundExpressionJson(const BoundExpression& expression, const spec::Schema& schema,
                              JsonWriter& writer);

}  // namespace skade::expr
