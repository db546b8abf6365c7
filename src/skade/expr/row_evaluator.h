// Evaluates a bound filter on one row of values (by field id): the
// reference semantics the Arrow reader's filter must agree with, and the
// brute force the pruning tests compare against. SQL semantics for null: a
// comparison, `in`, `not in`, `starts with` or `not starts with` on a null
// value is false, and so is its negation (a bound tree has no `not`);
// `is null` / `not null` decide nulls. NaN follows IEEE: every comparison
// with NaN is false except `!=`; `is nan` / `not nan` decide it (the
// metrics evaluator relies on this, as Iceberg Java's does). Thread-safe.
#pragma once

#include <absl/functional/function_ref.h>

#include <cstdint>

#include "skade/expr/bound_expression.h"
#include "skade/spec/literal.h"

namespace skade::expr {

/// `value(field_id)` returns the row's value of that column (a null literal
/// for null). Transforms in the terms are applied to the value.
bool EvaluateRow(const BoundExpression& filter,
                 absl::FunctionRef<const spec::Literal&(int32_t field_id)> value);

}  // namespace skade::expr
