#include "skade/avro/schema.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <array>

#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::avro {

namespace {

constexpr std::array<std::pair<std::string_view, AvroType>, 8> kPrimitives = {{
    {"null", AvroType::kNull},
    {"boolean", AvroType::kBoolean},
    {"int", AvroType::kInt},
    {"long", AvroType::kLong},
    {"float", AvroType::kFloat},
    {"double", AvroType::kDouble},
    {"bytes", AvroType::kBytes},
    {"string", AvroType::kString},
}};

std::optional<AvroType> PrimitiveByName(std::string_view name) {
  for (const auto& [primitive_name, type] : kPrimitives) {
    if (primitive_name == name) return type;
  }
  return std::nullopt;
}

// Integers in attributes may be written as numbers or, by some writers, as
// strings of digits.
std::optional<int64_t> ParseIntegerJson(std::string_view json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"') {
    json = json.substr(1, json.size() - 2);
  }
  return ParseInt64(json);
}

class SchemaParser {
 public:
  Result<NodePtr> Parse(json::Element element, const std::string& enclosing_space, int depth) {
    if (depth > kMaxSchemaDepth) {
      return InvalidArgument("Avro schema nests deeper than ", kMaxSchemaDepth, " levels");
    }
    switch (element.type()) {
      case simdjson::dom::element_type::STRING: {
        std::string_view name = element.get_string().value_unsafe();
        if (auto primitive = PrimitiveByName(name)) return Primitive(*primitive);
        return Reference(name, enclosing_space);
      }
      case simdjson::dom::element_type::ARRAY:
        return ParseUnion(element.get_array().value_unsafe(), enclosing_space, depth);
      case simdjson::dom::element_type::OBJECT:
        return ParseObject(element.get_object().value_unsafe(), enclosing_space, depth);
      default:
        return InvalidArgument("Invalid Avro schema: expected a string, array or object, got ",
                               json::Minify(element));
    }
  }

 private:
  Result<NodePtr> Reference(std::string_view name, const std::string& enclosing_space) {
    std::string full_name = std::string(name);
    if (name.find('.') == std::string_view::npos && !enclosing_space.empty()) {
      std::string qualified = StrCat(enclosing_space, ".", name);
      if (named_.contains(qualified) || in_progress_.contains(qualified)) full_name = qualified;
    }
    if (in_progress_.contains(full_name)) {
      return InvalidArgument("Recursive Avro schemas are not supported: ", full_name);
    }
    auto it = named_.find(full_name);
    if (it == named_.end()) return InvalidArgument("Unknown Avro type: ", name);
    return it->second;
  }

  Result<NodePtr> ParseUnion(json::Array array, const std::string& space, int depth) {
    auto node = std::make_shared<Node>();
    node->type = AvroType::kUnion;
    for (json::Element branch : array) {
      SKADE_ASSIGN_OR_RAISE(NodePtr parsed, Parse(branch, space, depth + 1));
      node->branches.push_back(std::move(parsed));
    }
    if (node->branches.empty()) return InvalidArgument("Invalid Avro schema: empty union");
    return node;
  }

  // Sets name and namespace of a named type from its object and the
  // enclosing namespace; returns the full name.
  Result<std::string> ParseName(json::Object object, const std::string& enclosing_space,
                                Node* node) {
    SKADE_ASSIGN_OR_RAISE(node->name, json::GetString(object, "name"));
    if (node->name.empty()) return InvalidArgument("Invalid Avro schema: empty type name");
    size_t dot = node->name.rfind('.');
    if (dot != std::string::npos) {
      node->name_space = node->name.substr(0, dot);
    } else {
      SKADE_ASSIGN_OR_RAISE(auto space, json::GetOptionalString(object, "namespace"));
      node->name_space = space ? *space : enclosing_space;
    }
    return node->FullName();
  }

  Result<NodePtr> ParseObject(json::Object object, const std::string& space, int depth) {
    SKADE_ASSIGN_OR_RAISE(json::Element type_element, json::GetRequired(object, "type"));
    std::string_view type_name;
    if (type_element.get_string().get(type_name)) {
      // {"type": {...}} or {"type": [...]}: the nested schema is the type.
      return Parse(type_element, space, depth + 1);
    }
    auto node = std::make_shared<Node>();
    // Keys each kind interprets itself; everything else is an attribute.
    std::vector<std::string_view> known = {"type", "logicalType"};
    if (auto primitive = PrimitiveByName(type_name)) {
      node->type = *primitive;
    } else if (type_name == "record" || type_name == "error") {
      node->type = AvroType::kRecord;
      known.insert(known.end(), {"name", "namespace", "doc", "fields"});
      SKADE_ASSIGN_OR_RAISE(std::string full_name, ParseName(object, space, node.get()));
      SKADE_ASSIGN_OR_RAISE(node->doc, json::GetOptionalString(object, "doc"));
      in_progress_.insert(full_name);
      SKADE_ASSIGN_OR_RAISE(json::Array fields, json::GetArray(object, "fields"));
      for (json::Element field_element : fields) {
        SKADE_ASSIGN_OR_RAISE(Field field, ParseField(field_element, node->name_space, depth));
        node->fields.push_back(std::move(field));
      }
      in_progress_.erase(full_name);
      // Some writers define the same name twice; the last definition wins.
      named_[full_name] = node;
    } else if (type_name == "enum") {
      node->type = AvroType::kEnum;
      known.insert(known.end(), {"name", "namespace", "doc", "symbols"});
      SKADE_ASSIGN_OR_RAISE(std::string full_name, ParseName(object, space, node.get()));
      SKADE_ASSIGN_OR_RAISE(node->doc, json::GetOptionalString(object, "doc"));
      SKADE_ASSIGN_OR_RAISE(node->symbols, json::GetStringList(object, "symbols"));
      if (node->symbols.empty()) return InvalidArgument("Avro enum without symbols: ", full_name);
      named_[full_name] = node;
    } else if (type_name == "fixed") {
      node->type = AvroType::kFixed;
      known.insert(known.end(), {"name", "namespace", "doc", "size"});
      SKADE_ASSIGN_OR_RAISE(std::string full_name, ParseName(object, space, node.get()));
      SKADE_ASSIGN_OR_RAISE(node->doc, json::GetOptionalString(object, "doc"));
      SKADE_ASSIGN_OR_RAISE(node->fixed_size, json::GetInt32(object, "size"));
      if (node->fixed_size < 0) return InvalidArgument("Negative Avro fixed size: ", full_name);
      named_[full_name] = node;
    } else if (type_name == "array") {
      node->type = AvroType::kArray;
      known.push_back("items");
      SKADE_ASSIGN_OR_RAISE(json::Element items, json::GetRequired(object, "items"));
      SKADE_ASSIGN_OR_RAISE(node->items, Parse(items, space, depth + 1));
    } else if (type_name == "map") {
      node->type = AvroType::kMap;
      known.push_back("values");
      SKADE_ASSIGN_OR_RAISE(json::Element values, json::GetRequired(object, "values"));
      SKADE_ASSIGN_OR_RAISE(node->values, Parse(values, space, depth + 1));
    } else {
      // {"type": "SomeName"}: a reference to a named type.
      return Reference(type_name, space);
    }
    SKADE_ASSIGN_OR_RAISE(auto logical_type, json::GetOptionalString(object, "logicalType"));
    if (logical_type) node->logical_type = std::move(*logical_type);
    for (auto [key, value] : object) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      node->attributes.push_back(Attribute{std::string(key), json::Minify(value)});
    }
    return node;
  }

  Result<Field> ParseField(json::Element element, const std::string& space, int depth) {
    SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(element, "Avro record field"));
    Field field;
    SKADE_ASSIGN_OR_RAISE(field.name, json::GetString(object, "name"));
    SKADE_ASSIGN_OR_RAISE(json::Element type, json::GetRequired(object, "type"));
    SKADE_ASSIGN_OR_RAISE(field.type, Parse(type, space, depth + 1));
    SKADE_ASSIGN_OR_RAISE(field.doc, json::GetOptionalString(object, "doc"));
    for (auto [key, value] : object) {
      if (key == "name" || key == "type" || key == "doc") continue;
      if (key == "default") {
        field.default_json = json::Minify(value);
        continue;
      }
      field.attributes.push_back(Attribute{std::string(key), json::Minify(value)});
      if (key == "field-id") {
        auto id = ParseIntegerJson(field.attributes.back().json);
        if (!id || *id < INT32_MIN || *id > INT32_MAX) {
          return InvalidArgument("Invalid field-id of Avro field ", field.name, ": ",
                                 field.attributes.back().json);
        }
        field.field_id = static_cast<int32_t>(*id);
      }
    }
    return field;
  }

  absl::flat_hash_map<std::string, NodePtr> named_;
  absl::flat_hash_set<std::string> in_progress_;
};

class SchemaWriter {
 public:
  void Write(const Node& node) {
    switch (node.type) {
      case AvroType::kUnion:
        writer_.StartArray();
        for (const NodePtr& branch : node.branches) Write(*branch);
        writer_.EndArray();
        return;
      case AvroType::kRecord:
      case AvroType::kEnum:
      case AvroType::kFixed:
        if (!defined_.insert(node.FullName()).second) {
          writer_.String(node.FullName());
          return;
        }
        break;
      default:
        if (node.logical_type.empty() && node.attributes.empty() && node.type != AvroType::kArray &&
            node.type != AvroType::kMap) {
          writer_.String(AvroTypeName(node.type));
          return;
        }
        break;
    }
    writer_.StartObject();
    writer_.Field("type", AvroTypeName(node.type));
    if (!node.name.empty()) {
      writer_.Field("name", node.name);
      if (!node.name_space.empty() && node.name.find('.') == std::string::npos) {
        writer_.Field("namespace", node.name_space);
      }
    }
    if (node.doc) writer_.Field("doc", *node.doc);
    switch (node.type) {
      case AvroType::kRecord:
        writer_.Key("fields");
        writer_.StartArray();
        for (const Field& field : node.fields) WriteField(field);
        writer_.EndArray();
        break;
      case AvroType::kEnum:
        writer_.Key("symbols");
        writer_.StartArray();
        for (const std::string& symbol : node.symbols) writer_.String(symbol);
        writer_.EndArray();
        break;
      case AvroType::kFixed:
        writer_.Field("size", node.fixed_size);
        break;
      case AvroType::kArray:
        writer_.Key("items");
        Write(*node.items);
        break;
      case AvroType::kMap:
        writer_.Key("values");
        Write(*node.values);
        break;
      default:
        break;
    }
    if (!node.logical_type.empty()) writer_.Field("logicalType", node.logical_type);
    WriteAttributes(node.attributes);
    writer_.EndObject();
  }

  std::string Take() { return writer_.Take(); }

 private:
  void WriteField(const Field& field) {
    writer_.StartObject();
    writer_.Field("name", field.name);
    writer_.Key("type");
    Write(*field.type);
    if (field.doc) writer_.Field("doc", *field.doc);
    if (field.default_json) {
      writer_.Key("default");
      writer_.Raw(*field.default_json);
    }
    WriteAttributes(field.attributes);
    writer_.EndObject();
  }

  void WriteAttributes(const std::vector<Attribute>& attributes) {
    for (const Attribute& attribute : attributes) {
      writer_.Key(attribute.name);
      writer_.Raw(attribute.json);
    }
  }

  JsonWriter writer_;
  absl::flat_hash_set<std::string> defined_;
};

}  // namespace

std::string_view AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull:
      return "null";
    case AvroType::kBoolean:
      return "boolean";
    case AvroType::kInt:
      return "int";
    case AvroType::kLong:
      return "long";
    case AvroType::kFloat:
      return "float";
    case AvroType::kDouble:
      return "double";
    case AvroType::kBytes:
      return "bytes";
    case AvroType::kString:
      return "string";
    case AvroType::kRecord:
      return "record";
    case AvroType::kEnum:
      return "enum";
    case AvroType::kArray:
      return "array";
    case AvroType::kMap:
      return "map";
    case AvroType::kUnion:
      return "union";
    case AvroType::kFixed:
      return "fixed";
  }
  return "null";
}

std::string Node::FullName() const {
  if (name_space.empty() || name.find('.') != std::string::npos) return name;
  return StrCat(name_space, ".", name);
}

const Attribute* Node::FindAttribute(std::string_view attribute_name) const {
  for (const Attribute& attribute : attributes) {
    if (attribute.name == attribute_name) return &attribute;
  }
  return nullptr;
}

std::optional<int64_t> Node::IntAttribute(std::string_view attribute_name) const {
  const Attribute* attribute = FindAttribute(attribute_name);
  if (attribute == nullptr) return std::nullopt;
  return ParseIntegerJson(attribute->json);
}

std::optional<bool> Node::BoolAttribute(std::string_view attribute_name) const {
  const Attribute* attribute = FindAttribute(attribute_name);
  if (attribute == nullptr) return std::nullopt;
  if (attribute->json == "true" || attribute->json == "\"true\"") return true;
  if (attribute->json == "false" || attribute->json == "\"false\"") return false;
  return std::nullopt;
}

const Node* Node::NonNullBranch() const {
  if (type != AvroType::kUnion || branches.size() != 2) return nullptr;
  int null_index = NullBranchIndex();
  if (null_index < 0) return nullptr;
  return branches[1 - null_index].get();
}

int Node::NullBranchIndex() const {
  for (size_t i = 0; i < branches.size(); ++i) {
    if (branches[i]->type == AvroType::kNull) return static_cast<int>(i);
  }
  return -1;
}

NodePtr Primitive(AvroType type) {
  static const auto kNodes = [] {
    std::array<NodePtr, kPrimitives.size()> nodes;
    for (size_t i = 0; i < kPrimitives.size(); ++i) {
      auto node = std::make_shared<Node>();
      node->type = kPrimitives[i].second;
      nodes[i] = std::move(node);
    }
    return nodes;
  }();
  return kNodes[static_cast<size_t>(type)];
}

Result<NodePtr> ParseSchema(std::string_view json) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(json::Element root, json::Parse(parser, json));
  SchemaParser schema_parser;
  return schema_parser.Parse(root, "", 0);
}

std::string SchemaToJson(const Node& node) {
  SchemaWriter writer;
  writer.Write(node);
  return writer.Take();
}

}  // namespace skade::avro
