// Prunes data files by their column metrics (Iceberg Java's
// InclusiveMetricsEvaluator): value, null and NaN counts and lower/upper
// bounds. MayMatch is false only when the metrics prove no row matches.
// Bounds may be truncated (strings, binary), so `starts with` and equality
// respect truncation; missing metrics never prune; floating-point bounds
// are not trusted when the file has NaNs (as Java). For delete files it is
// not used. Thread-safe after construction.
//
// The rules for one predicate on one column are ColumnMayMatch, so that
// finer units than a file (row groups, Parquet pages) are judged the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "skade/expr/bound_expression.h"
#include "skade/spec/data_file.h"
#include "skade/spec/schema.h"

namespace skade::expr {

/// What is known about one column's values in some set of rows (a data file,
/// a row group, a page). Absent counts and null bounds are unknown. Bounds
/// are in Iceberg's single-value binary form of the column's type in the
/// schema the evaluator reads them as, and may be truncated (a lower bound
/// not above, an upper bound not below every non-null, non-NaN value). Not
/// owned.
struct ColumnMetrics {
  std::optional<int64_t> value_count;  // nulls and NaNs included
  std::optional<int64_t> null_count;
  std::optional<int64_t> nan_count;
  const std::string* lower_bound = nullptr;
  const std::string* upper_bound = nullptr;
};

/// False only when `metrics` (of the column `predicate`'s term reads) prove
/// that no row satisfies `predicate`, a single predicate of a bound
/// expression (not and/or/true/false). `schema` is the schema the bounds
/// are read as.
bool ColumnMayMatch(const BoundExpression& predicate, const ColumnMetrics& metrics,
                    const spec::Schema& schema);

class MetricsEvaluator {
 public:
  /// `filter` is bound to `schema` (the schema bounds are read as), which
  /// must outlive the evaluator.
  MetricsEvaluator(BoundExpressionPtr filter, const spec::Schema& schema);
  bool MayMatch(const spec::DataFile& file) const;

 private:
  BoundExpressionPtr filter_;
  const spec::Schema* schema_;
};

}  // namespace skade::expr
