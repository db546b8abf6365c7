#include "skade/spec/type.h"

#include <algorithm>

#include "skade/util/strings.h"

namespace skade::spec {

bool NestedField::operator==(const NestedField& other) const {
  return id == other.id && name == other.name && required == other.required && doc == other.doc &&
         initial_default_json == other.initial_default_json &&
         write_default_json == other.write_default_json && TypeEquals(type, other.type);
}

#define SKADE_PRIMITIVE(Name, Id)                     \
  TypePtr Type::Name() {                              \
    static const TypePtr kType(new Type(TypeId::Id)); \
    return kType;                                     \
  }

SKADE_PRIMITIVE(Boolean, kBoolean)
SKADE_PRIMITIVE(Int, kInt)
SKADE_PRIMITIVE(Long, kLong)
SKADE_PRIMITIVE(Float, kFloat)
SKADE_PRIMITIVE(Double, kDouble)
SKADE_PRIMITIVE(Date, kDate)
SKADE_PRIMITIVE(Time, kTime)
SKADE_PRIMITIVE(Timestamp, kTimestamp)
SKADE_PRIMITIVE(TimestampTz, kTimestampTz)
SKADE_PRIMITIVE(TimestampNs, kTimestampNs)
SKADE_PRIMITIVE(TimestampTzNs, kTimestampTzNs)
SKADE_PRIMITIVE(String, kString)
SKADE_PRIMITIVE(Uuid, kUuid)
SKADE_PRIMITIVE(Binary, kBinary)
SKADE_PRIMITIVE(Unknown, kUnknown)
SKADE_PRIMITIVE(Variant, kVariant)
#undef SKADE_PRIMITIVE

TypePtr Type::Decimal(int32_t precision, int32_t scale) {
  auto type = new Type(TypeId::kDecimal);
  type->precision_ = precision;
  type->scale_ = scale;
  return TypePtr(type);
}

TypePtr Type::Fixed(int32_t length) {
  auto type = new Type(TypeId::kFixed);
  type->precision_ = length;
  return TypePtr(type);
}

TypePtr Type::Geometry(std::string crs) {
  auto type = new Type(TypeId::kGeometry);
  type->crs_ = std::move(crs);
  return TypePtr(type);
}

TypePtr Type::Geography(std::string crs, std::string algorithm) {
  auto type = new Type(TypeId::kGeography);
  type->crs_ = std::move(crs);
  type->algorithm_ = std::move(algorithm);
  return TypePtr(type);
}

TypePtr Type::Struct(std::vector<NestedField> fields) {
  auto type = new Type(TypeId::kStruct);
  type->fields_ = std::move(fields);
  return TypePtr(type);
}

TypePtr Type::List(NestedField element) {
  auto type = new Type(TypeId::kList);
  if (element.name.empty()) element.name = "element";
  type->fields_.push_back(std::move(element));
  return TypePtr(type);
}

TypePtr Type::Map(NestedField key, NestedField value) {
  auto type = new Type(TypeId::kMap);
  if (key.name.empty()) key.name = "key";
  if (value.name.empty()) value.name = "value";
  key.required = true;
  type->fields_.push_back(std::move(key));
  type->fields_.push_back(std::move(value));
  return TypePtr(type);
}

namespace {

// Splits "name(args)" into the arguments between the parentheses.
bool ParseParenArgs(std::string_view text, std::string_view prefix,
                    std::vector<std::string>* args) {
  if (!ConsumePrefix(&text, prefix)) return false;
  text = StripWhitespace(text);
  if (!ConsumePrefix(&text, "(") || !ConsumeSuffix(&text, ")")) return false;
  args->clear();
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      args->emplace_back(StripWhitespace(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return true;
}

}  // namespace

Result<TypePtr> Type::ParsePrimitive(std::string_view raw) {
  std::string_view name = StripWhitespace(raw);
  std::string lower = AsciiLower(name);
  if (lower == "boolean") return Boolean();
  if (lower == "int" || lower == "integer") return Int();
  if (lower == "long") return Long();
  if (lower == "float") return Float();
  if (lower == "double") return Double();
  if (lower == "date") return Date();
  if (lower == "time") return Time();
  if (lower == "timestamp") return Timestamp();
  if (lower == "timestamptz") return TimestampTz();
  if (lower == "timestamp_ns") return TimestampNs();
  if (lower == "timestamptz_ns") return TimestampTzNs();
  if (lower == "string") return String();
  if (lower == "uuid") return Uuid();
  if (lower == "binary") return Binary();
  if (lower == "unknown") return Unknown();
  if (lower == "variant") return Variant();
  if (lower == "geometry") return Geometry("");
  if (lower == "geography") return Geography("", "");
  std::vector<std::string> args;
  if (ParseParenArgs(lower, "decimal", &args)) {
    auto precision = args.size() == 2 ? ParseInt32(args[0]) : std::nullopt;
    auto scale = args.size() == 2 ? ParseInt32(args[1]) : std::nullopt;
    if (!precision || !scale || *precision < 1 || *precision > 38 || *scale < 0 ||
        *scale > *precision) {
      return InvalidArgument("Invalid decimal type: ", name);
    }
    return Decimal(*precision, *scale);
  }
  std::string_view rest = lower;
  if (ConsumePrefix(&rest, "fixed")) {
    rest = StripWhitespace(rest);
    if (ConsumePrefix(&rest, "[") && ConsumeSuffix(&rest, "]")) {
      auto length = ParseInt32(StripWhitespace(rest));
      if (length && *length > 0) return Fixed(*length);
    }
    return InvalidArgument("Invalid fixed type: ", name);
  }
  // CRS and algorithm keep their original case, so parse them from `name`.
  if (ParseParenArgs(lower, "geometry", &args)) {
    std::vector<std::string> original;
    ParseParenArgs(std::string("geometry") + std::string(name.substr(8)), "geometry", &original);
    if (original.size() != 1) return InvalidArgument("Invalid geometry type: ", name);
    return Geometry(original[0]);
  }
  if (ParseParenArgs(lower, "geography", &args)) {
    std::vector<std::string> original;
    ParseParenArgs(std::string("geography") + std::string(name.substr(9)), "geography", &original);
    if (original.empty() || original.size() > 2) {
      return InvalidArgument("Invalid geography type: ", name);
    }
    // Iceberg Java reads only these edge algorithms, and only after a CRS.
    constexpr std::string_view kAlgorithms[] = {"spherical", "vincenty", "thomas", "andoyer",
                                                "karney"};
    if (original.size() == 2 &&
        (original[0].empty() || std::find(std::begin(kAlgorithms), std::end(kAlgorithms),
                                          AsciiLower(original[1])) == std::end(kAlgorithms))) {
      return InvalidArgument("Invalid geography type: ", name, " (a CRS, then an edge algorithm: ",
                             "spherical, vincenty, thomas, andoyer or karney)");
    }
    return Geography(original[0], original.size() == 2 ? original[1] : "");
  }
  return InvalidArgument("Cannot parse type string to primitive: ", name);
}

std::string Type::ToString() const {
  switch (id_) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt:
      return "int";
    case TypeId::kLong:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return StrCat("decimal(", precision_, ", ", scale_, ")");
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampTz:
      return "timestamptz";
    case TypeId::kTimestampNs:
      return "timestamp_ns";
    case TypeId::kTimestampTzNs:
      return "timestamptz_ns";
    case TypeId::kString:
      return "string";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kFixed:
      return StrCat("fixed[", precision_, "]");
    case TypeId::kBinary:
      return "binary";
    case TypeId::kUnknown:
      return "unknown";
    case TypeId::kVariant:
      return "variant";
    case TypeId::kGeometry:
      return crs_.empty() ? "geometry" : StrCat("geometry(", crs_, ")");
    case TypeId::kGeography:
      if (crs_.empty() && algorithm_.empty()) return "geography";
      if (algorithm_.empty()) return StrCat("geography(", crs_, ")");
      return StrCat("geography(", crs_, ", ", algorithm_, ")");
    case TypeId::kStruct:
      return "struct";
    case TypeId::kList:
      return "list";
    case TypeId::kMap:
      return "map";
  }
  return "unknown";
}

bool Type::RequiresV3() const {
  switch (id_) {
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kUnknown:
    case TypeId::kVariant:
    case TypeId::kGeometry:
    case TypeId::kGeography:
      return true;
    default:
      break;
  }
  for (const auto& field : fields_) {
    if (field.type->RequiresV3() || field.initial_default_json || field.write_default_json) {
      return true;
    }
  }
  return false;
}

bool Type::Equals(const Type& other) const {
  return id_ == other.id_ && precision_ == other.precision_ && scale_ == other.scale_ &&
         crs_ == other.crs_ && algorithm_ == other.algorithm_ && fields_ == other.fields_;
}

bool TypeEquals(const TypePtr& a, const TypePtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b);
}

bool CanPromote(const Type& from, const Type& to, int format_version) {
  if (!from.is_primitive() || !to.is_primitive()) return from.id() == to.id();
  if (from.Equals(to)) return true;
  switch (from.id()) {
    case TypeId::kInt:
      return to.id() == TypeId::kLong;
    case TypeId::kFloat:
      return to.id() == TypeId::kDouble;
    case TypeId::kDecimal:
      return to.id() == TypeId::kDecimal && to.decimal_scale() == from.decimal_scale() &&
             to.decimal_precision() >= from.decimal_precision();
    case TypeId::kDate:
      return format_version >= 3 &&
             (to.id() == TypeId::kTimestamp || to.id() == TypeId::kTimestampNs);
    case TypeId::kUnknown:
      return format_version >= 3;
    default:
      return false;
  }
}

}  // namespace skade::spec
