// Prunes data files by their column metrics (Iceberg Java's
// InclusiveMetricsEvaluator): value, null and NaN counts and lower/upper
// bounds. MayMatch is false only when the metrics prove no row matches.
// Bounds may be truncated (strings, binary), so `starts with` and equality
// respect truncation; missing metrics never prune; floating-point bounds
// are not trusted when the file has NaNs (as Java). For delete files it is
// not used. Thread-safe after construction.
#pragma once

#include "skade/expr/bound_expression.h"
#include "skade/spec/data_file.h"
#include "skade/spec/schema.h"

namespace skade::expr {

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
