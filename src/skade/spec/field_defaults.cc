#include "skade/spec/field_defaults.h"

#include <simdjson.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <string_view>

#include "skade/spec/literal_json.h"
#include "skade/util/json_reader.h"
#include "skade/util/strings.h"

namespace skade::spec {

namespace {

bool IsHex(std::string_view text) {
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Java compares BigDecimal's scale with the type's: "1.5" is no decimal(9, 2).
bool HasScale(std::string_view text, int32_t scale) {
  size_t point = text.find('.');
  if (point == std::string_view::npos) return scale == 0;
  return point + 1 < text.size() && static_cast<int64_t>(text.size() - point - 1) == scale;
}

bool HasUtcOffset(std::string_view text) {
  return text.ends_with("Z") || text.ends_with("+00:00") || text.ends_with("-00:00");
}

bool ReadsAs(const TypePtr& type, std::string_view text) {
  return LiteralFromJsonString(type, text).has_value();
}

// Whether Java's SingleValueParser reads `value` as a default of `type`.
bool IsReadableDefault(const TypePtr& type, json::Element value) {
  switch (type->id()) {
    case TypeId::kBoolean:
      return value.is_bool();
    case TypeId::kInt: {
      if (!value.is_int64()) return false;
      int64_t number = value.get_int64().value();
      return number >= std::numeric_limits<int32_t>::min() &&
             number <= std::numeric_limits<int32_t>::max();
    }
    case TypeId::kLong:
      return value.is_int64();
    case TypeId::kFloat:
    case TypeId::kDouble:
      return value.type() == simdjson::dom::element_type::DOUBLE;
    default:
      break;
  }
  if (!value.is_string()) return false;
  std::string_view text = value.get_string().value();
  switch (type->id()) {
    case TypeId::kString:
      return true;
    case TypeId::kDecimal:
      return HasScale(text, type->decimal_scale()) && ReadsAs(type, text);
    case TypeId::kUuid:
      return text.size() == 36 && ReadsAs(type, text);
    case TypeId::kDate:
    case TypeId::kTime:
      return ReadsAs(type, text);
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
      return text.find('T') != std::string_view::npos && ReadsAs(type, text);
    case TypeId::kTimestampTz:
    case TypeId::kTimestampTzNs:
      return text.find('T') != std::string_view::npos && HasUtcOffset(text) && ReadsAs(type, text);
    case TypeId::kFixed:
      return static_cast<int64_t>(text.size()) == 2 * int64_t{type->fixed_length()} && IsHex(text);
    case TypeId::kBinary:
      return text.size() % 2 == 0 && IsHex(text);
    default:
      // Nested types, unknown, variant, geometry and geography: null only.
      return false;
  }
}

Status CheckDefault(const NestedField& field, const std::optional<std::string>& json_text,
                    std::string_view which) {
  if (!json_text) return OkStatus();
  simdjson::dom::parser parser;
  auto value = json::Parse(parser, *json_text);
  if (value && (value->is_null() || IsReadableDefault(field.type, *value))) return OkStatus();
  return InvalidArgument("Invalid ", which, " of field ", field.name, " (", field.type->ToString(),
                         "): ", json_text->substr(0, 128), " is not a ", field.type->ToString(),
                         " value as Iceberg writes it");
}

Status CheckFields(const std::vector<NestedField>& fields) {
  for (const auto& field : fields) {
    SKADE_RETURN_NOT_OK(CheckDefault(field, field.initial_default_json, "initial-default"));
    SKADE_RETURN_NOT_OK(CheckDefault(field, field.write_default_json, "write-default"));
    if (field.type->is_nested()) SKADE_RETURN_NOT_OK(CheckFields(field.type->fields()));
  }
  return OkStatus();
}

}  // namespace

Status CheckFieldDefaults(const Schema& schema) { return CheckFields(schema.fields()); }

}  // namespace skade::spec
