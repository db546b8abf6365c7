// What lower and upper bounds of a column's (or a partition field's)
// non-null, non-NaN values prove about one predicate: shared by the metrics
// and manifest evaluators. Not part of the public API.
#pragma once

#include <optional>
#include <string_view>

#include "skade/expr/bound_expression.h"
#include "skade/spec/literal.h"

namespace skade::expr::internal {

/// A bound read from its single-value binary form, as a value of `type`;
/// nullopt when absent, unreadable, or a NaN (which older writers let into
/// floating-point bounds, where it proves nothing). A zero floating-point
/// bound widens to -0.0 (`lower`) or +0.0 (upper), since writers differ in
/// which zero they record.
std::optional<spec::Literal> ReadBound(const spec::TypePtr& type, const std::string* bytes,
                                       bool lower);

/// The most values of an `in` or `not in` that BoundsMayMatch compares.
inline constexpr size_t kMaxSetValuesCompared = 200;

/// False when every value in [lower, upper] fails `predicate` (a comparison,
/// `in`, `not in`, `starts with` or `not starts with`); true otherwise, and
/// for the unary operations and sets of more than kMaxSetValuesCompared
/// values. A missing bound bounds nothing. The caller rules out NaN values
/// first: they satisfy `!=` and `not in`.
bool BoundsMayMatch(const BoundExpression& predicate, const std::optional<spec::Literal>& lower,
                    const std::optional<spec::Literal>& upper);

}  // namespace skade::expr::internal
