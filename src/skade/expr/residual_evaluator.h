// The residual of a row filter for one partition: what is left to check row
// by row once the partition's values are known (Iceberg Java's
// ResidualEvaluator). A predicate the partition proves true (strict
// projection) becomes true, one it proves false (inclusive projection)
// becomes false, the rest is kept. For an unpartitioned spec the residual is
// the filter. The projections are made once, in Make. Thread-safe after
// construction.
#pragma once

#include <memory>
#include <vector>

#include "skade/expr/bound_expression.h"
#include "skade/spec/literal.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::expr {

class ResidualEvaluator {
 public:
  static Result<ResidualEvaluator> Make(BoundExpressionPtr filter, const spec::PartitionSpec& spec,
                                        const spec::Schema& schema);
  /// `partition` holds one value per field of the spec, in order.
  BoundExpressionPtr ResidualFor(const std::vector<spec::Literal>& partition) const;

 private:
  struct Node;  // the filter with each predicate's projections

  ResidualEvaluator() = default;
  BoundExpressionPtr filter_;
  spec::PartitionSpecPtr spec_;
  std::shared_ptr<const Node> plan_;
};

}  // namespace skade::expr
