// `--partition-by` expressions: "col", "identity(col)", "year(col)",
// "month(col)", "day(col)", "hour(col)", "void(col)", "bucket(N, col)" /
// "bucket[N](col)", "truncate(W, col)" / "truncate[W](col)".
#pragma once

#include <string>
#include <vector>

#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::cli {

/// Builds a partition spec over `schema` from expressions, with Iceberg's
/// default field names (col, col_bucket, col_trunc, col_year, col_month,
/// col_day, col_hour, col_null) and field ids from 1000. Errors are
/// kInvalidArgument naming the expression.
Result<spec::PartitionSpec> ParsePartitionBy(const std::vector<std::string>& expressions,
                                             const spec::Schema& schema);

}  // namespace skade::cli
