#include "skade/expr/partition_evaluator.h"

#include "skade/expr/projection.h"
#include "skade/expr/row_evaluator.h"

namespace skade::expr {

Result<PartitionEvaluator> PartitionEvaluator::Make(const BoundExpression& filter,
                                                    const spec::PartitionSpec& spec,
                                                    const spec::Schema& schema) {
  PartitionEvaluator evaluator;
  SKADE_ASSIGN_OR_RAISE(evaluator.projected_, ProjectInclusive(filter, spec, schema));
  for (const auto& field : spec.fields) evaluator.field_ids_.push_back(field.field_id);
  return evaluator;
}

bool PartitionEvaluator::MayMatch(const std::vector<spec::Literal>& partition) const {
  // A tuple that does not fit the spec proves nothing.
  if (partition.size() != field_ids_.size()) return true;
  return EvaluateRow(*projected_, [&](int32_t field_id) -> const spec::Literal& {
    size_t i = 0;
    while (i + 1 < field_ids_.size() && field_ids_[i] != field_id) ++i;
    return partition[i];
  });
}

}  // namespace skade::expr
