// Evaluates a bound residual filter on the columns of a record batch, with
// exactly the semantics of expr::EvaluateRow (SQL nulls, IEEE NaN): a
// vectorized loop per predicate for the common column types (int, long,
// date, time, timestamps, float, double, string, boolean) without a
// transform, and EvaluateRow itself, value by value, for the rest
// (transforms, decimals, binary, fixed, uuid).
//
// Stateless; thread-safe.
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "skade/expr/bound_expression.h"
#include "skade/util/result.h"

namespace skade::read {

/// The column of a field id, in the Arrow form ToArrowType gives its
/// Iceberg type, `rows` long (nulls where a parent struct is null).
using ColumnById = std::function<Result<std::shared_ptr<arrow::Array>>(int32_t field_id)>;

/// Sets keep[i] to 1 for the rows `filter` accepts and 0 for the others
/// (keep is resized to `rows`). Errors come from `columns` or from a column
/// whose Arrow type does not hold its Iceberg type (kInvalidArgument).
Status EvaluateFilter(const expr::BoundExpression& filter, const ColumnById& columns, int64_t rows,
                      std::vector<uint8_t>* keep);

}  // namespace skade::read
