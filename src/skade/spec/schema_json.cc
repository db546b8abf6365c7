// JSON form of schemas (spec: Appendix C, "Schemas").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"

namespace skade::spec {

void WriteSchema(JsonWriter& writer, const Schema& schema) {
  writer.StartObject();
  writer.Field("type", "struct");
  writer.Field("schema-id", schema.schema_id());
  // Like Java, omit an empty identifier list; readers treat absent as empty.
  if (!schema.identifier_field_ids().empty()) {
    writer.Key("identifier-field-ids");
    writer.StartArray();
    for (int32_t id : schema.identifier_field_ids()) writer.Int(id);
    writer.EndArray();
  }
  writer.Key("fields");
  writer.StartArray();
  for (const auto& field : schema.fields()) WriteNestedField(writer, field);
  writer.EndArray();
  writer.EndObject();
}

Result<SchemaPtr> SchemaFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "schema"));
  SKADE_ASSIGN_OR_RAISE(auto type, TypeFromJson(element));
  if (type->id() != TypeId::kStruct) {
    return InvalidArgument("Cannot create schema, not a struct type: ", type->ToString());
  }
  // Schemas written by old v1 writers have no id; they are schema 0.
  SKADE_ASSIGN_OR_RAISE(auto schema_id, json::GetOptionalInt32(object, "schema-id"));
  std::vector<int32_t> identifier_field_ids;
  if (json::Find(object, "identifier-field-ids")) {
    SKADE_ASSIGN_OR_RAISE(identifier_field_ids, json::GetInt32List(object, "identifier-field-ids"));
  }
  return std::make_shared<const Schema>(schema_id.value_or(Schema::kInitialSchemaId),
                                        type->fields(), std::move(identifier_field_ids));
}

}  // namespace skade::spec
