#include "tool_json.h"

#include <simdjson.h>

#include "skade/util/json_reader.h"
#include "skade/util/strings.h"

namespace skade::data_tools {

namespace {

using spec::NestedField;
using spec::Type;
using spec::TypeId;

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

std::string UnscaledDecimal(std::string_view big_endian) {
  __extension__ typedef __int128 Int128;
  Int128 value =
      big_endian.empty() || (static_cast<unsigned char>(big_endian[0]) & 0x80) == 0 ? 0 : -1;
  for (unsigned char c : big_endian) value = value * 256 + c;
  bool negative = value < 0;
  std::string digits;
  do {
    int digit = static_cast<int>(value % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -digit : digit)));
    value /= 10;
  } while (value != 0);
  return negative ? "-" + digits : digits;
}

Result<spec::TypePtr> ParseType(json::Element element);

Result<NestedField> ParseField(json::Object object, std::string_view id_key, std::string_view name,
                               std::string_view type_key, std::string_view required_key) {
  NestedField field;
  SKADE_ASSIGN_OR_RAISE(field.id, json::GetInt32(object, id_key));
  SKADE_ASSIGN_OR_RAISE(auto type, json::GetRequired(object, type_key));
  SKADE_ASSIGN_OR_RAISE(field.type, ParseType(type));
  SKADE_ASSIGN_OR_RAISE(field.required, json::GetBool(object, required_key));
  field.name = std::string(name);
  return field;
}

Result<spec::TypePtr> ParseType(json::Element element) {
  if (element.is_string()) {
    SKADE_ASSIGN_OR_RAISE(auto name, json::ToString(element, "type"));
    return Type::ParsePrimitive(name);
  }
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "type"));
  SKADE_ASSIGN_OR_RAISE(auto kind, json::GetString(object, "type"));
  if (kind == "struct") {
    SKADE_ASSIGN_OR_RAISE(auto fields, json::GetArray(object, "fields"));
    std::vector<NestedField> out;
    for (auto field_element : fields) {
      SKADE_ASSIGN_OR_RAISE(auto field_object, json::AsObject(field_element, "field"));
      SKADE_ASSIGN_OR_RAISE(auto name, json::GetString(field_object, "name"));
      SKADE_ASSIGN_OR_RAISE(auto field, ParseField(field_object, "id", name, "type", "required"));
      out.push_back(std::move(field));
    }
    return Type::Struct(std::move(out));
  }
  if (kind == "list") {
    SKADE_ASSIGN_OR_RAISE(auto element_field, ParseField(object, "element-id", "element", "element",
                                                         "element-required"));
    return Type::List(std::move(element_field));
  }
  if (kind == "map") {
    SKADE_ASSIGN_OR_RAISE(auto key, ParseField(object, "key-id", "key", "key", "value-required"));
    key.required = true;
    SKADE_ASSIGN_OR_RAISE(auto value,
                          ParseField(object, "value-id", "value", "value", "value-required"));
    return Type::Map(std::move(key), std::move(value));
  }
  return InvalidArgument("Unknown nested type: ", kind);
}

void WriteType(JsonWriter& writer, const Type& type);

void WriteField(JsonWriter& writer, const NestedField& field) {
  writer.StartObject();
  writer.Field("id", field.id);
  writer.Field("name", field.name);
  writer.Field("required", field.required);
  writer.Key("type");
  WriteType(writer, *field.type);
  writer.EndObject();
}

void WriteType(JsonWriter& writer, const Type& type) {
  switch (type.id()) {
    case TypeId::kStruct:
      writer.StartObject();
      writer.Field("type", "struct");
      writer.Key("fields");
      writer.StartArray();
      for (const auto& field : type.fields()) WriteField(writer, field);
      writer.EndArray();
      writer.EndObject();
      return;
    case TypeId::kList:
      writer.StartObject();
      writer.Field("type", "list");
      writer.Field("element-id", type.list_element().id);
      writer.Key("element");
      WriteType(writer, *type.list_element().type);
      writer.Field("element-required", type.list_element().required);
      writer.EndObject();
      return;
    case TypeId::kMap:
      writer.StartObject();
      writer.Field("type", "map");
      writer.Field("key-id", type.map_key().id);
      writer.Key("key");
      WriteType(writer, *type.map_key().type);
      writer.Field("value-id", type.map_value().id);
      writer.Key("value");
      WriteType(writer, *type.map_value().type);
      writer.Field("value-required", type.map_value().required);
      writer.EndObject();
      return;
    default:
      writer.String(type.ToString());
  }
}

void WriteCounts(JsonWriter& writer, std::string_view key, const std::map<int32_t, int64_t>& map) {
  writer.Key(key);
  writer.StartObject();
  for (const auto& [id, count] : map) writer.Field(std::to_string(id), count);
  writer.EndObject();
}

void WriteBounds(JsonWriter& writer, std::string_view key,
                 const std::map<int32_t, std::string>& map) {
  writer.Key(key);
  writer.StartObject();
  for (const auto& [id, bytes] : map) writer.Field(std::to_string(id), Hex(bytes));
  writer.EndObject();
}

}  // namespace

Result<spec::SchemaPtr> ParseSchemaJson(std::string_view text) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto root, json::Parse(parser, text));
  SKADE_ASSIGN_OR_RAISE(auto type, ParseType(root));
  if (type->id() != TypeId::kStruct) return InvalidArgument("A schema must be a struct");
  return std::make_shared<const spec::Schema>(0, type->fields());
}

void WriteSchemaJson(JsonWriter& writer, const spec::Schema& schema) {
  WriteType(writer, *schema.as_struct());
}

void WriteLiteralJson(JsonWriter& writer, const spec::Literal& value) {
  if (value.is_null()) {
    writer.Null();
    return;
  }
  const auto& v = value.value();
  switch (value.type()->id()) {
    case TypeId::kBoolean:
      writer.Bool(std::get<bool>(v));
      return;
    case TypeId::kInt:
    case TypeId::kDate:
      writer.Int(std::get<int32_t>(v));
      return;
    case TypeId::kFloat:
      writer.Double(std::get<float>(v));
      return;
    case TypeId::kDouble:
      writer.Double(std::get<double>(v));
      return;
    case TypeId::kString:
      writer.String(std::get<std::string>(v));
      return;
    case TypeId::kDecimal:
      writer.Raw(UnscaledDecimal(std::get<std::string>(v)));
      return;
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid:
      writer.String(Hex(std::get<std::string>(v)));
      return;
    default:
      writer.Int(std::get<int64_t>(v));
      return;
  }
}

void WriteDataFileJson(JsonWriter& writer, const spec::DataFile& file) {
  writer.StartObject();
  writer.Field("file_path", file.file_path);
  writer.Field("file_format", std::string(spec::FileFormatName(file.file_format)));
  writer.Field("spec_id", file.spec_id);
  writer.Key("partition");
  writer.StartArray();
  for (const auto& value : file.partition) WriteLiteralJson(writer, value);
  writer.EndArray();
  writer.Field("record_count", file.record_count);
  writer.Field("file_size_in_bytes", file.file_size_in_bytes);
  WriteCounts(writer, "column_sizes", file.column_sizes);
  WriteCounts(writer, "value_counts", file.value_counts);
  WriteCounts(writer, "null_value_counts", file.null_value_counts);
  WriteCounts(writer, "nan_value_counts", file.nan_value_counts);
  WriteBounds(writer, "lower_bounds", file.lower_bounds);
  WriteBounds(writer, "upper_bounds", file.upper_bounds);
  writer.Key("split_offsets");
  writer.StartArray();
  for (int64_t offset : file.split_offsets) writer.Int(offset);
  writer.EndArray();
  writer.EndObject();
}

}  // namespace skade::data_tools
