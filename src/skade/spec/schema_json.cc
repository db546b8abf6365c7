// JSON form of schemas (spec: Appendix C, "Schemas").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"

namespace skade::spec {

namespace {

// A schema indexes every field by its full name ("a.b.c"), so long names
// nested deep grow with the square of the depth: this bound, far past any
// real schema, keeps one request from making gigabytes of names.
constexpr size_t kMaxFullNameBytes = size_t{16} << 20;

// Adds the full names' bytes of `fields` (under a parent whose full name
// has `prefix` bytes) to `*total`; false once it passes kMaxFullNameBytes.
bool FullNamesFit(const std::vector<NestedField>& fields, size_t prefix, size_t* total) {
  for (const auto& field : fields) {
    const size_t name = prefix + (prefix > 0 ? 1 : 0) + field.name.size();
    *total += name;
    if (*total > kMaxFullNameBytes) return false;
    if (field.type && !FullNamesFit(field.type->fields(), name, total)) return false;
  }
  return true;
}

}  // namespace

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
  size_t full_name_bytes = 0;
  if (!FullNamesFit(type->fields(), 0, &full_name_bytes)) {
    return InvalidArgument("Cannot create schema: its fields' full names come to more than ",
                           kMaxFullNameBytes, " bytes");
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
