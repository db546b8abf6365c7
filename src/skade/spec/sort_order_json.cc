// JSON form of sort orders (spec: Appendix C, "Sort Orders").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"
#include "skade/util/strings.h"

namespace skade::spec {

namespace {

Result<SortField> SortFieldFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "sort field"));
  SortField field;
  SKADE_ASSIGN_OR_RAISE(auto transform, json::GetString(object, "transform"));
  SKADE_ASSIGN_OR_RAISE(field.transform, Transform::Parse(transform));
  SKADE_RETURN_NOT_OK(internal::ReadSourceIds(object, &field.source_id, &field.source_ids));
  SKADE_ASSIGN_OR_RAISE(auto direction, json::GetString(object, "direction"));
  if (EqualsIgnoreCase(direction, "asc")) {
    field.direction = SortDirection::kAsc;
  } else if (EqualsIgnoreCase(direction, "desc")) {
    field.direction = SortDirection::kDesc;
  } else {
    return InvalidArgument("Invalid sort direction: ", direction);
  }
  SKADE_ASSIGN_OR_RAISE(auto null_order, json::GetString(object, "null-order"));
  if (EqualsIgnoreCase(null_order, "nulls-first")) {
    field.null_order = NullOrder::kNullsFirst;
  } else if (EqualsIgnoreCase(null_order, "nulls-last")) {
    field.null_order = NullOrder::kNullsLast;
  } else {
    return InvalidArgument("Unexpected null order: ", null_order);
  }
  return field;
}

}  // namespace

void WriteSortOrder(JsonWriter& writer, const SortOrder& order) {
  writer.StartObject();
  writer.Field("order-id", order.order_id);
  writer.Key("fields");
  writer.StartArray();
  for (const auto& field : order.fields) {
    writer.StartObject();
    writer.Field("transform", field.transform.ToString());
    internal::WriteSourceIds(writer, field.source_id, field.source_ids);
    writer.Field("direction", field.direction == SortDirection::kAsc ? "asc" : "desc");
    writer.Field("null-order",
                 field.null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last");
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
}

Result<SortOrderPtr> SortOrderFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "sort order"));
  auto order = std::make_shared<SortOrder>();
  SKADE_ASSIGN_OR_RAISE(order->order_id, json::GetInt32(object, "order-id"));
  SKADE_ASSIGN_OR_RAISE(auto fields, json::GetArray(object, "fields"));
  for (auto item : fields) {
    SKADE_ASSIGN_OR_RAISE(auto field, SortFieldFromJson(item));
    order->fields.push_back(std::move(field));
  }
  // Order id 0 means "unsorted" everywhere in the spec, so the two must agree.
  if (order->order_id == SortOrder::kUnsortedOrderId && !order->fields.empty()) {
    return InvalidArgument("Sort order ID 0 is reserved for unsorted order");
  }
  if (order->order_id != SortOrder::kUnsortedOrderId && order->fields.empty()) {
    return InvalidArgument("Unsorted order ID must be 0");
  }
  return order;
}

}  // namespace skade::spec
