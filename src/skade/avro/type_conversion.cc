#include "skade/avro/type_conversion.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::avro {

namespace {

using spec::NestedField;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

constexpr char kFieldIdAttribute[] = "field-id";
constexpr char kElementIdAttribute[] = "element-id";
constexpr char kKeyIdAttribute[] = "key-id";
constexpr char kValueIdAttribute[] = "value-id";
constexpr char kIcebergFieldNameAttribute[] = "iceberg-field-name";
constexpr char kAdjustToUtcAttribute[] = "adjust-to-utc";

Attribute IntAttribute(std::string_view name, int64_t value) {
  return Attribute{std::string(name), StrCat(value)};
}

Attribute StringAttribute(std::string_view name, std::string_view value) {
  std::string json;
  JsonWriter::AppendQuoted(&json, value);
  return Attribute{std::string(name), std::move(json)};
}

NodePtr Logical(AvroType type, std::string logical_type, std::vector<Attribute> attributes = {}) {
  auto node = std::make_shared<Node>();
  node->type = type;
  node->logical_type = std::move(logical_type);
  node->attributes = std::move(attributes);
  return node;
}

NodePtr Fixed(std::string name, int32_t size, std::string logical_type = "",
              std::vector<Attribute> attributes = {}) {
  auto node = std::make_shared<Node>();
  node->type = AvroType::kFixed;
  node->name = std::move(name);
  node->fixed_size = size;
  node->logical_type = std::move(logical_type);
  node->attributes = std::move(attributes);
  return node;
}

NodePtr Optional(NodePtr node) {
  if (node->type == AvroType::kNull) return node;
  auto with_null = std::make_shared<Node>();
  with_null->type = AvroType::kUnion;
  with_null->branches = {Primitive(AvroType::kNull), std::move(node)};
  return with_null;
}

Result<NodePtr> Convert(const Type& type, int32_t enclosing_id, std::string_view record_name);

Result<Field> ConvertField(const NestedField& field) {
  SKADE_ASSIGN_OR_RAISE(NodePtr type, Convert(*field.type, field.id, ""));
  Field out;
  if (IsValidAvroName(field.name)) {
    out.name = field.name;
  } else {
    out.name = SanitizeAvroName(field.name);
  }
  out.doc = field.doc;
  if (!field.required) {
    type = Optional(std::move(type));
    out.default_json = "null";
  }
  out.type = std::move(type);
  if (out.name != field.name) {
    out.attributes.push_back(StringAttribute(kIcebergFieldNameAttribute, field.name));
  }
  out.attributes.push_back(IntAttribute(kFieldIdAttribute, field.id));
  out.field_id = field.id;
  return out;
}

Result<NodePtr> Convert(const Type& type, int32_t enclosing_id, std::string_view record_name) {
  switch (type.id()) {
    case TypeId::kStruct: {
      auto node = std::make_shared<Node>();
      node->type = AvroType::kRecord;
      node->name = record_name.empty() ? StrCat("r", enclosing_id) : std::string(record_name);
      for (const NestedField& field : type.fields()) {
        SKADE_ASSIGN_OR_RAISE(Field converted, ConvertField(field));
        node->fields.push_back(std::move(converted));
      }
      return node;
    }
    case TypeId::kList: {
      const NestedField& element = type.list_element();
      SKADE_ASSIGN_OR_RAISE(NodePtr items, Convert(*element.type, element.id, ""));
      auto node = std::make_shared<Node>();
      node->type = AvroType::kArray;
      node->items = element.required ? std::move(items) : Optional(std::move(items));
      node->attributes.push_back(IntAttribute(kElementIdAttribute, element.id));
      return node;
    }
    case TypeId::kMap: {
      const NestedField& key = type.map_key();
      const NestedField& value = type.map_value();
      SKADE_ASSIGN_OR_RAISE(NodePtr key_node, Convert(*key.type, key.id, ""));
      SKADE_ASSIGN_OR_RAISE(NodePtr value_node, Convert(*value.type, value.id, ""));
      if (!value.required) value_node = Optional(std::move(value_node));
      auto node = std::make_shared<Node>();
      if (key.type->id() == TypeId::kString) {
        node->type = AvroType::kMap;
        node->values = std::move(value_node);
        node->attributes.push_back(IntAttribute(kKeyIdAttribute, key.id));
        node->attributes.push_back(IntAttribute(kValueIdAttribute, value.id));
        return node;
      }
      auto entry = std::make_shared<Node>();
      entry->type = AvroType::kRecord;
      entry->name = StrCat("k", key.id, "_v", value.id);
      Field key_field{"key", std::move(key_node), {}, {}, {IntAttribute(kFieldIdAttribute, key.id)},
                      key.id};
      Field value_field{"value",
                        value_node,
                        {},
                        value.required ? std::nullopt : std::optional<std::string>("null"),
                        {IntAttribute(kFieldIdAttribute, value.id)},
                        value.id};
      entry->fields = {std::move(key_field), std::move(value_field)};
      node->type = AvroType::kArray;
      node->items = std::move(entry);
      node->logical_type = "map";
      return node;
    }
    case TypeId::kVariant: {
      auto node = std::make_shared<Node>();
      node->type = AvroType::kRecord;
      node->name = StrCat("r", enclosing_id);
      node->logical_type = "variant";
      node->fields = {Field{"metadata", Primitive(AvroType::kBytes), {}, {}, {}, {}},
                      Field{"value", Primitive(AvroType::kBytes), {}, {}, {}, {}}};
      return node;
    }
    default:
      return PrimitiveToAvro(type);
  }
}

Result<std::string> AttributeString(const Attribute& attribute) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(json::Element element, json::Parse(parser, attribute.json));
  return json::ToString(element, attribute.name);
}

Result<int32_t> RequiredId(const Node& node, std::string_view attribute) {
  auto id = node.IntAttribute(attribute);
  if (!id || *id < INT32_MIN || *id > INT32_MAX) {
    return InvalidArgument("Avro ", AvroTypeName(node.type), " has no valid ", attribute);
  }
  return static_cast<int32_t>(*id);
}

// Splits an optional (union with null) schema into its type and whether it
// is required. A null schema (Iceberg's unknown type) is optional.
Result<std::pair<const Node*, bool>> UnwrapOptional(const Node& node) {
  if (node.type == AvroType::kNull) return std::pair<const Node*, bool>(&node, false);
  if (node.type != AvroType::kUnion) return std::pair<const Node*, bool>(&node, true);
  if (node.branches.size() == 1) return std::pair<const Node*, bool>(node.branches[0].get(), true);
  const Node* branch = node.NonNullBranch();
  if (branch == nullptr) {
    return InvalidArgument("Iceberg cannot represent an Avro union of ", node.branches.size(),
                           " non-null types");
  }
  return std::pair<const Node*, bool>(branch, false);
}

Result<TypePtr> TimestampType(const Node& node, bool nanos) {
  bool adjust_to_utc = node.BoolAttribute(kAdjustToUtcAttribute).value_or(true);
  if (nanos) return adjust_to_utc ? Type::TimestampTzNs() : Type::TimestampNs();
  return adjust_to_utc ? Type::TimestampTz() : Type::Timestamp();
}

Result<TypePtr> DecimalType(const Node& node) {
  auto precision = node.IntAttribute("precision");
  auto scale = node.IntAttribute("scale").value_or(0);
  if (!precision || *precision < 1 || *precision > 38 || scale < 0 || scale > *precision) {
    return InvalidArgument("Invalid Avro decimal precision or scale");
  }
  return Type::Decimal(static_cast<int32_t>(*precision), static_cast<int32_t>(scale));
}

Result<TypePtr> ToIcebergPrimitive(const Node& node) {
  const std::string& logical = node.logical_type;
  switch (node.type) {
    case AvroType::kNull:
      return Type::Unknown();
    case AvroType::kBoolean:
      return Type::Boolean();
    case AvroType::kInt:
      return logical == "date" ? Type::Date() : Type::Int();
    case AvroType::kLong:
      if (logical == "time-micros") return Type::Time();
      if (logical == "timestamp-micros") return TimestampType(node, false);
      if (logical == "timestamp-nanos") return TimestampType(node, true);
      if (logical == "local-timestamp-micros") return Type::Timestamp();
      if (logical == "local-timestamp-nanos") return Type::TimestampNs();
      return Type::Long();
    case AvroType::kFloat:
      return Type::Float();
    case AvroType::kDouble:
      return Type::Double();
    case AvroType::kBytes:
      if (logical == "decimal") return DecimalType(node);
      return Type::Binary();
    case AvroType::kString:
    case AvroType::kEnum:
      if (logical == "uuid") return Type::Uuid();
      return Type::String();
    case AvroType::kFixed:
      if (logical == "uuid" && node.fixed_size == 16) return Type::Uuid();
      if (logical == "decimal") return DecimalType(node);
      if (node.fixed_size < 1) return InvalidArgument("Invalid Avro fixed size ", node.fixed_size);
      return Type::Fixed(node.fixed_size);
    default:
      return InvalidArgument("Not a primitive Avro type: ", AvroTypeName(node.type));
  }
}

}  // namespace

int DecimalRequiredBytes(int precision) {
  return static_cast<int>(std::ceil((precision * std::log2(10.0) + 1) / 8));
}

bool IsValidAvroName(std::string_view name) {
  if (name.empty()) return false;
  auto is_letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!is_letter(name[0]) && name[0] != '_') return false;
  for (char c : name.substr(1)) {
    if (!is_letter(c) && !(c >= '0' && c <= '9') && c != '_') return false;
  }
  return true;
}

std::string SanitizeAvroName(std::string_view name) {
  std::string out;
  size_t i = 0;
  while (i < name.size()) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (letter || (digit && i > 0)) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (digit) {
      out.append("_").push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // Other characters become "_x" and their code point in upper-case hex.
    size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (i + length > name.size()) length = 1;
    uint32_t code_point = length == 1 ? c : (c & (0x7F >> length));
    for (size_t k = 1; k < length; ++k) {
      code_point = (code_point << 6) | (static_cast<unsigned char>(name[i + k]) & 0x3F);
    }
    char hex[16];
    auto [end, ec] = std::to_chars(hex, hex + sizeof(hex), code_point, 16);
    out.append("_x");
    for (char* p = hex; p != end; ++p) out.push_back(static_cast<char>(std::toupper(*p)));
    i += length;
  }
  return out;
}

Result<NodePtr> PrimitiveToAvro(const Type& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return Primitive(AvroType::kBoolean);
    case TypeId::kInt:
      return Primitive(AvroType::kInt);
    case TypeId::kLong:
      return Primitive(AvroType::kLong);
    case TypeId::kFloat:
      return Primitive(AvroType::kFloat);
    case TypeId::kDouble:
      return Primitive(AvroType::kDouble);
    case TypeId::kDate:
      return Logical(AvroType::kInt, "date");
    case TypeId::kTime:
      return Logical(AvroType::kLong, "time-micros");
    case TypeId::kTimestamp:
      return Logical(AvroType::kLong, "timestamp-micros", {{kAdjustToUtcAttribute, "false"}});
    case TypeId::kTimestampTz:
      return Logical(AvroType::kLong, "timestamp-micros", {{kAdjustToUtcAttribute, "true"}});
    case TypeId::kTimestampNs:
      return Logical(AvroType::kLong, "timestamp-nanos", {{kAdjustToUtcAttribute, "false"}});
    case TypeId::kTimestampTzNs:
      return Logical(AvroType::kLong, "timestamp-nanos", {{kAdjustToUtcAttribute, "true"}});
    case TypeId::kString:
      return Primitive(AvroType::kString);
    case TypeId::kBinary:
      return Primitive(AvroType::kBytes);
    case TypeId::kUnknown:
      return Primitive(AvroType::kNull);
    case TypeId::kUuid:
      return Fixed("uuid_fixed", 16, "uuid");
    case TypeId::kFixed:
      return Fixed(StrCat("fixed_", type.fixed_length()), type.fixed_length());
    case TypeId::kDecimal:
      return Fixed(StrCat("decimal_", type.decimal_precision(), "_", type.decimal_scale()),
                   DecimalRequiredBytes(type.decimal_precision()), "decimal",
                   {IntAttribute("precision", type.decimal_precision()),
                    IntAttribute("scale", type.decimal_scale())});
    default:
      return Unsupported("Cannot write Iceberg type ", type.ToString(), " to Avro");
  }
}

Result<NodePtr> ToAvroSchema(const Type& struct_type, std::string_view record_name) {
  if (struct_type.id() != TypeId::kStruct) {
    return InvalidArgument("Expected a struct type, got ", struct_type.ToString());
  }
  return Convert(struct_type, 0, record_name);
}

Result<TypePtr> ToIcebergType(const Node& node) {
  switch (node.type) {
    case AvroType::kRecord: {
      if (node.logical_type == "variant") return Type::Variant();
      std::vector<NestedField> fields;
      for (const Field& field : node.fields) {
        if (!field.field_id) {
          return InvalidArgument("Avro field ", field.name, " has no field-id");
        }
        SKADE_ASSIGN_OR_RAISE(auto unwrapped, UnwrapOptional(*field.type));
        SKADE_ASSIGN_OR_RAISE(TypePtr type, ToIcebergType(*unwrapped.first));
        NestedField out{
            *field.field_id, field.name, std::move(type), unwrapped.second, field.doc, {}, {}};
        for (const Attribute& attribute : field.attributes) {
          if (attribute.name == kIcebergFieldNameAttribute) {
            SKADE_ASSIGN_OR_RAISE(out.name, AttributeString(attribute));
          }
        }
        fields.push_back(std::move(out));
      }
      return Type::Struct(std::move(fields));
    }
    case AvroType::kArray: {
      if (node.logical_type == "map" && node.items->type == AvroType::kRecord &&
          node.items->fields.size() == 2) {
        const Field& key = node.items->fields[0];
        const Field& value = node.items->fields[1];
        if (!key.field_id || !value.field_id) {
          return InvalidArgument("Avro map entry ", node.items->name, " has no key/value ids");
        }
        SKADE_ASSIGN_OR_RAISE(auto key_type, UnwrapOptional(*key.type));
        SKADE_ASSIGN_OR_RAISE(auto value_type, UnwrapOptional(*value.type));
        SKADE_ASSIGN_OR_RAISE(TypePtr key_iceberg, ToIcebergType(*key_type.first));
        SKADE_ASSIGN_OR_RAISE(TypePtr value_iceberg, ToIcebergType(*value_type.first));
        return Type::Map(
            NestedField{*key.field_id, "key", key_iceberg, true, {}, {}, {}},
            NestedField{*value.field_id, "value", value_iceberg, value_type.second, {}, {}, {}});
      }
      SKADE_ASSIGN_OR_RAISE(int32_t element_id, RequiredId(node, kElementIdAttribute));
      SKADE_ASSIGN_OR_RAISE(auto element, UnwrapOptional(*node.items));
      SKADE_ASSIGN_OR_RAISE(TypePtr element_type, ToIcebergType(*element.first));
      return Type::List(
          NestedField{element_id, "element", element_type, element.second, {}, {}, {}});
    }
    case AvroType::kMap: {
      SKADE_ASSIGN_OR_RAISE(int32_t key_id, RequiredId(node, kKeyIdAttribute));
      SKADE_ASSIGN_OR_RAISE(int32_t value_id, RequiredId(node, kValueIdAttribute));
      SKADE_ASSIGN_OR_RAISE(auto value, UnwrapOptional(*node.values));
      SKADE_ASSIGN_OR_RAISE(TypePtr value_type, ToIcebergType(*value.first));
      return Type::Map(NestedField{key_id, "key", Type::String(), true, {}, {}, {}},
                       NestedField{value_id, "value", value_type, value.second, {}, {}, {}});
    }
    case AvroType::kUnion: {
      SKADE_ASSIGN_OR_RAISE(auto unwrapped, UnwrapOptional(node));
      return ToIcebergType(*unwrapped.first);
    }
    default:
      return ToIcebergPrimitive(node);
  }
}

}  // namespace skade::avro
