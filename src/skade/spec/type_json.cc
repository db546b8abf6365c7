// JSON forms of types and struct fields (spec: Appendix C, "Schemas").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"

namespace skade::spec {

void WriteType(JsonWriter& writer, const Type& type) {
  switch (type.id()) {
    case TypeId::kStruct:
      writer.StartObject();
      writer.Field("type", "struct");
      writer.Key("fields");
      writer.StartArray();
      for (const auto& field : type.fields()) WriteNestedField(writer, field);
      writer.EndArray();
      writer.EndObject();
      return;
    case TypeId::kList: {
      const NestedField& element = type.list_element();
      writer.StartObject();
      writer.Field("type", "list");
      writer.Field("element-id", element.id);
      writer.Key("element");
      WriteType(writer, *element.type);
      writer.Field("element-required", element.required);
      writer.EndObject();
      return;
    }
    case TypeId::kMap: {
      const NestedField& key = type.map_key();
      const NestedField& value = type.map_value();
      writer.StartObject();
      writer.Field("type", "map");
      writer.Field("key-id", key.id);
      writer.Key("key");
      WriteType(writer, *key.type);
      writer.Field("value-id", value.id);
      writer.Key("value");
      WriteType(writer, *value.type);
      writer.Field("value-required", value.required);
      writer.EndObject();
      return;
    }
    default:
      writer.String(type.ToString());
      return;
  }
}

void WriteNestedField(JsonWriter& writer, const NestedField& field) {
  writer.StartObject();
  writer.Field("id", field.id);
  writer.Field("name", field.name);
  writer.Field("required", field.required);
  writer.Key("type");
  WriteType(writer, *field.type);
  if (field.doc) writer.Field("doc", *field.doc);
  if (field.initial_default_json) {
    writer.Key("initial-default");
    writer.Raw(*field.initial_default_json);
  }
  if (field.write_default_json) {
    writer.Key("write-default");
    writer.Raw(*field.write_default_json);
  }
  writer.EndObject();
}

namespace {

Result<TypePtr> StructFromJson(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto array, json::GetArray(object, "fields"));
  std::vector<NestedField> fields;
  fields.reserve(array.size());
  for (auto item : array) {
    SKADE_ASSIGN_OR_RAISE(auto field, NestedFieldFromJson(item));
    fields.push_back(std::move(field));
  }
  return Type::Struct(std::move(fields));
}

Result<TypePtr> ListFromJson(json::Object object) {
  NestedField element;
  SKADE_ASSIGN_OR_RAISE(element.id, json::GetInt32(object, "element-id"));
  SKADE_ASSIGN_OR_RAISE(auto element_json, json::GetRequired(object, "element"));
  SKADE_ASSIGN_OR_RAISE(element.type, TypeFromJson(element_json));
  SKADE_ASSIGN_OR_RAISE(element.required, json::GetBool(object, "element-required"));
  return Type::List(std::move(element));
}

Result<TypePtr> MapFromJson(json::Object object) {
  NestedField key;
  NestedField value;
  SKADE_ASSIGN_OR_RAISE(key.id, json::GetInt32(object, "key-id"));
  SKADE_ASSIGN_OR_RAISE(auto key_json, json::GetRequired(object, "key"));
  SKADE_ASSIGN_OR_RAISE(key.type, TypeFromJson(key_json));
  SKADE_ASSIGN_OR_RAISE(value.id, json::GetInt32(object, "value-id"));
  SKADE_ASSIGN_OR_RAISE(auto value_json, json::GetRequired(object, "value"));
  SKADE_ASSIGN_OR_RAISE(value.type, TypeFromJson(value_json));
  SKADE_ASSIGN_OR_RAISE(value.required, json::GetBool(object, "value-required"));
  return Type::Map(std::move(key), std::move(value));
}

}  // namespace

Result<TypePtr> TypeFromJson(json::Element element) {
  std::string_view name;
  if (!element.get_string().get(name)) return Type::ParsePrimitive(name);
  json::Object object;
  if (!element.get_object().get(object)) {
    auto kind = json::Find(object, "type");
    std::string_view kind_name;
    if (kind && !kind->get_string().get(kind_name)) {
      if (kind_name == "struct") return StructFromJson(object);
      if (kind_name == "list") return ListFromJson(object);
      if (kind_name == "map") return MapFromJson(object);
    }
  }
  return InvalidArgument("Cannot parse type from json: ", internal::Snippet(element));
}

Result<NestedField> NestedFieldFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "struct field"));
  NestedField field;
  SKADE_ASSIGN_OR_RAISE(field.id, json::GetInt32(object, "id"));
  SKADE_ASSIGN_OR_RAISE(field.name, json::GetString(object, "name"));
  SKADE_ASSIGN_OR_RAISE(auto type_json, json::GetRequired(object, "type"));
  SKADE_ASSIGN_OR_RAISE(field.type, TypeFromJson(type_json));
  SKADE_ASSIGN_OR_RAISE(field.required, json::GetBool(object, "required"));
  SKADE_ASSIGN_OR_RAISE(field.doc, json::GetOptionalString(object, "doc"));
  // Defaults are kept as their JSON text: interpreting them needs the
  // single-value rules of each type, which only readers of data files need.
  if (auto value = json::Find(object, "initial-default")) {
    field.initial_default_json = json::Minify(*value);
  }
  if (auto value = json::Find(object, "write-default")) {
    field.write_default_json = json::Minify(*value);
  }
  return field;
}

}  // namespace skade::spec
