// Evaluates a filter projected onto a partition spec against one file's
// partition tuple: false when no row of that partition can match. Thread-safe
// after construction.
#pragma once

#include <vector>

#include "skade/expr/bound_expression.h"
#include "skade/spec/literal.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::expr {

class PartitionEvaluator {
 public:
  static Result<PartitionEvaluator> Make(const BoundExpression& filter,
                                         const spec::PartitionSpec& spec,
                                         const spec::Schema& schema);
  /// `partition` holds one value per field of the spec, in order.
  bool MayMatch(const std::vector<spec::Literal>& partition) const;

 private:
  PartitionEvaluator() = default;
  BoundExpressionPtr projected_;
  std::vector<int32_t> field_ids_;  // partition field id per tuple position
};

}  // namespace skade::expr
