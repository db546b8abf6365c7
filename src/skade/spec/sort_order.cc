#include "skade/spec/sort_order.h"

namespace skade::spec {

Status SortOrder::Validate(const Schema& schema) const {
  for (const auto& field : fields) {
    // source-ids is for transforms of several columns, which only unknown
    // (future) transforms may be.
    if (field.transform.kind() != TransformKind::kUnknown && field.source_ids.size() > 1) {
      return InvalidArgument("Transform ", field.transform.ToString(),
                             " of a sort field takes one source column, not ",
                             field.source_ids.size());
    }
    for (int32_t source_id : field.AllSourceIds()) {
      const NestedField* source = schema.FindFieldById(source_id);
      if (source == nullptr) {
        return InvalidArgument("Cannot find source column for sort field: ", source_id);
      }
      // A variant is no primitive (Iceberg Java's VariantType is not).
      if (!source->type->is_primitive() || source->type->id() == TypeId::kVariant) {
        return InvalidArgument("Cannot sort by non-primitive source field: ",
                               source->type->ToString());
      }
      if (!field.transform.CanTransform(*source->type)) {
        return InvalidArgument("Invalid source type ", source->type->ToString(),
                               " for transform: ", field.transform.ToString());
      }
    }
  }
  return OkStatus();
}

std::shared_ptr<const SortOrder> SortOrder::Unsorted() {
  static const auto kOrder = std::make_shared<const SortOrder>();
  return kOrder;
}

}  // namespace skade::spec
