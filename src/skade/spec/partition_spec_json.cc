// JSON form of partition specs (spec: Appendix C, "Partition Specs").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"

namespace skade::spec {

namespace {

// Parses one field; `field_id` is left empty when the (v1) field has none.
Result<PartitionField> ParsePartitionField(json::Element element,
                                           std::optional<int32_t>* field_id) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "partition field"));
  PartitionField field;
  SKADE_ASSIGN_OR_RAISE(field.name, json::GetString(object, "name"));
  SKADE_ASSIGN_OR_RAISE(auto transform, json::GetString(object, "transform"));
  SKADE_ASSIGN_OR_RAISE(field.transform, Transform::Parse(transform));
  SKADE_RETURN_NOT_OK(internal::ReadSourceIds(object, &field.source_id, &field.source_ids));
  SKADE_ASSIGN_OR_RAISE(*field_id, json::GetOptionalInt32(object, "field-id"));
  if (*field_id) field.field_id = **field_id;
  return field;
}

}  // namespace

void WritePartitionFields(JsonWriter& writer, const PartitionSpec& spec) {
  writer.StartArray();
  for (const auto& field : spec.fields) {
    writer.StartObject();
    writer.Field("name", field.name);
    writer.Field("transform", field.transform.ToString());
    internal::WriteSourceIds(writer, field.source_id, field.source_ids);
    writer.Field("field-id", field.field_id);
    writer.EndObject();
  }
  writer.EndArray();
}

void WritePartitionSpec(JsonWriter& writer, const PartitionSpec& spec) {
  writer.StartObject();
  writer.Field("spec-id", spec.spec_id);
  writer.Key("fields");
  WritePartitionFields(writer, spec);
  writer.EndObject();
}

Result<PartitionField> PartitionFieldFromJson(json::Element element) {
  std::optional<int32_t> field_id;
  SKADE_ASSIGN_OR_RAISE(auto field, ParsePartitionField(element, &field_id));
  if (!field_id) return InvalidArgument("Cannot parse missing int: field-id");
  return field;
}

namespace internal {

Result<PartitionSpecPtr> PartitionSpecFromFields(int32_t spec_id, json::Element fields_json) {
  SKADE_ASSIGN_OR_RAISE(auto array, json::AsArray(fields_json, "partition spec fields"));
  auto spec = std::make_shared<PartitionSpec>();
  spec->spec_id = spec_id;
  size_t with_ids = 0;
  for (auto item : array) {
    std::optional<int32_t> field_id;
    SKADE_ASSIGN_OR_RAISE(auto field, ParsePartitionField(item, &field_id));
    if (field_id) {
      ++with_ids;
    } else {
      // Old v1 writers did not store field ids; they were assigned in order
      // from 1000.
      field.field_id =
          PartitionSpec::kPartitionDataIdStart + static_cast<int32_t>(spec->fields.size());
    }
    spec->fields.push_back(std::move(field));
  }
  if (with_ids != 0 && with_ids != spec->fields.size()) {
    return InvalidArgument(
        "Cannot parse spec with missing field IDs: ", spec->fields.size() - with_ids,
        " missing of ", spec->fields.size(), " fields.");
  }
  return spec;
}

}  // namespace internal

Result<PartitionSpecPtr> PartitionSpecFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "partition spec"));
  SKADE_ASSIGN_OR_RAISE(auto spec_id, json::GetInt32(object, "spec-id"));
  SKADE_ASSIGN_OR_RAISE(auto fields, json::GetRequired(object, "fields"));
  return internal::PartitionSpecFromFields(spec_id, fields);
}

Result<PartitionSpecPtr> RequestedPartitionSpecFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "partition spec"));
  SKADE_ASSIGN_OR_RAISE(auto spec_id, json::GetOptionalInt32(object, "spec-id"));
  SKADE_ASSIGN_OR_RAISE(auto fields, json::GetRequired(object, "fields"));
  return internal::PartitionSpecFromFields(spec_id.value_or(PartitionSpec::kInitialSpecId), fields);
}

}  // namespace skade::spec
