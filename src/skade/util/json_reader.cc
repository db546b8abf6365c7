#include "skade/util/json_reader.h"

#include <absl/container/flat_hash_set.h>

#include <limits>
#include <vector>

namespace skade::json {

namespace {

std::string_view TypeName(simdjson::dom::element_type type) {
  using T = simdjson::dom::element_type;
  switch (type) {
    case T::ARRAY:
      return "array";
    case T::OBJECT:
      return "object";
    case T::INT64:
    case T::UINT64:
      return "integer";
    case T::DOUBLE:
      return "number";
    case T::STRING:
      return "string";
    case T::BOOL:
      return "boolean";
    case T::NULL_VALUE:
      return "null";
  }
  return "value";
}

}  // namespace

Result<Element> Parse(simdjson::dom::parser& parser, std::string_view text) {
  Element element;
  auto error = parser.parse(text.data(), text.size(), true).get(element);
  if (error) {
    return InvalidArgument("malformed JSON: ", simdjson::error_message(error));
  }
  return element;
}

Status CheckUniqueKeys(Element element) {
  // Depth-first without recursion: simdjson allows deep documents. Only
  // arrays and objects wait their turn: a long array of numbers costs
  // nothing here.
  std::vector<Element> pending;
  auto visit = [&](Element value) {
    if (value.is_array() || value.is_object()) pending.push_back(value);
  };
  visit(element);
  absl::flat_hash_set<std::string_view> keys;
  while (!pending.empty()) {
    Element next = pending.back();
    pending.pop_back();
    if (Array array; !next.get_array().get(array)) {
      for (Element item : array) visit(item);
    } else if (Object object; !next.get_object().get(object)) {
      keys.clear();
      for (auto field : object) {
        if (!keys.insert(field.key).second) {
          return InvalidArgument("malformed JSON: the key \"", field.key.substr(0, 64),
                                 field.key.size() > 64 ? "…" : "",
                                 "\" appears twice in one object");
        }
        visit(field.value);
      }
    }
  }
  return OkStatus();
}

Result<Object> AsObject(Element element, std::string_view what) {
  Object object;
  if (element.get_object().get(object)) {
    return InvalidArgument("Cannot parse ", what, " from non-object: ", TypeName(element.type()));
  }
  return object;
}

Result<Array> AsArray(Element element, std::string_view what) {
  Array array;
  if (element.get_array().get(array)) {
    return InvalidArgument("Cannot parse ", what, " from non-array: ", TypeName(element.type()));
  }
  return array;
}

std::optional<Element> Find(Object object, std::string_view key) {
  Element element;
  if (object.at_key(key).get(element) || element.is_null()) return std::nullopt;
  return element;
}

bool Has(Object object, std::string_view key) {
  Element element;
  return !object.at_key(key).get(element);
}

Result<Element> GetRequired(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing field: ", key);
  return *element;
}

Result<std::string_view> ToStringView(Element element, std::string_view what) {
  std::string_view value;
  if (element.get_string().get(value)) {
    return InvalidArgument("Cannot parse to a string value: ", what, " (got ",
                           TypeName(element.type()), ")");
  }
  return value;
}

Result<std::string> ToString(Element element, std::string_view what) {
  SKADE_ASSIGN_OR_RAISE(auto value, ToStringView(element, what));
  return std::string(value);
}

Result<int64_t> ToInt64(Element element, std::string_view what) {
  int64_t value;
  if (element.get_int64().get(value)) {
    return InvalidArgument("Cannot parse to a long value: ", what, " (got ",
                           TypeName(element.type()), ")");
  }
  return value;
}

Result<int32_t> ToInt32(Element element, std::string_view what) {
  int64_t value;
  if (element.get_int64().get(value) || value < std::numeric_limits<int32_t>::min() ||
      value > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("Cannot parse to an integer value: ", what);
  }
  return static_cast<int32_t>(value);
}

Result<std::string_view> GetStringView(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing string: ", key);
  return ToStringView(*element, key);
}

Result<std::string> GetString(Object object, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(auto value, GetStringView(object, key));
  return std::string(value);
}

Result<std::optional<std::string>> GetOptionalString(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return std::optional<std::string>();
  SKADE_ASSIGN_OR_RAISE(auto value, ToString(*element, key));
  return std::optional<std::string>(std::move(value));
}

Result<int64_t> GetInt64(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing long: ", key);
  return ToInt64(*element, key);
}

Result<std::optional<int64_t>> GetOptionalInt64(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return std::optional<int64_t>();
  SKADE_ASSIGN_OR_RAISE(auto value, ToInt64(*element, key));
  return std::optional<int64_t>(value);
}

Result<int32_t> GetInt32(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing int: ", key);
  return ToInt32(*element, key);
}

Result<std::optional<int32_t>> GetOptionalInt32(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return std::optional<int32_t>();
  SKADE_ASSIGN_OR_RAISE(auto value, ToInt32(*element, key));
  return std::optional<int32_t>(value);
}

Result<bool> GetBool(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing boolean: ", key);
  bool value;
  if (element->get_bool().get(value)) {
    return InvalidArgument("Cannot parse to a boolean value: ", key);
  }
  return value;
}

Result<std::optional<bool>> GetOptionalBool(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return std::optional<bool>();
  bool value;
  if (element->get_bool().get(value)) {
    return InvalidArgument("Cannot parse to a boolean value: ", key);
  }
  return std::optional<bool>(value);
}

Result<Object> GetObject(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing object: ", key);
  return AsObject(*element, key);
}

Result<Array> GetArray(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return InvalidArgument("Cannot parse missing list: ", key);
  return AsArray(*element, key);
}

Result<std::map<std::string, std::string>> ToStringMap(Element element, std::string_view what) {
  SKADE_ASSIGN_OR_RAISE(auto object, AsObject(element, what));
  std::map<std::string, std::string> out;
  for (auto field : object) {
    std::string_view value;
    if (field.value.get_string().get(value)) {
      return InvalidArgument("Cannot parse ", what, ": value of '", field.key, "' is not a string");
    }
    out.emplace(std::string(field.key), std::string(value));
  }
  return out;
}

Result<std::map<std::string, std::string>> GetStringMap(Object object, std::string_view key) {
  auto element = Find(object, key);
  if (!element) return std::map<std::string, std::string>();
  return ToStringMap(*element, key);
}

Result<std::vector<int32_t>> GetInt32List(Object object, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(auto array, GetArray(object, key));
  std::vector<int32_t> out;
  for (auto item : array) {
    SKADE_ASSIGN_OR_RAISE(auto value, ToInt32(item, key));
    out.push_back(value);
  }
  return out;
}

Result<std::vector<int64_t>> GetInt64List(Object object, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(auto array, GetArray(object, key));
  std::vector<int64_t> out;
  for (auto item : array) {
    SKADE_ASSIGN_OR_RAISE(auto value, ToInt64(item, key));
    out.push_back(value);
  }
  return out;
}

Result<std::vector<std::string>> GetStringList(Object object, std::string_view key) {
  SKADE_ASSIGN_OR_RAISE(auto array, GetArray(object, key));
  std::vector<std::string> out;
  for (auto item : array) {
    SKADE_ASSIGN_OR_RAISE(auto value, ToString(item, key));
    out.push_back(std::move(value));
  }
  return out;
}

std::string Minify(Element element) { return simdjson::minify(element); }

}  // namespace skade::json
