#include "skade/data/arrow_schema.h"

#include <absl/container/flat_hash_set.h>
#include <arrow/extension/uuid.h>
#include <arrow/type.h>
#include <arrow/util/key_value_metadata.h>

#include <string>
#include <vector>

#include "skade/util/strings.h"

namespace skade::data {

namespace {

using spec::NestedField;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

// How many structs, lists and maps may enclose a value. Readers fail on a
// deeper table only after it is committed. Measured: Parquet C++ (skade scan,
// PyArrow, DuckDB) reads 100 schema levels, root and leaf included, and a
// list or map takes two (98 structs, 49 lists); PyIceberg 0.12 loads 64
// structs (a struct takes three levels of metadata JSON, pydantic parses 200,
// Python's recursion runs out first); skade's metadata parser (simdjson)
// stops at 1024 JSON levels. At 32 all of them read every mix of structs,
// lists and maps (tests/interop/test_ingest_schema_and_overwrite.py), with
// room left for the caller's stack, and real schemas stay far shallower.
constexpr int kMaxNestingDepth = 32;

std::shared_ptr<const arrow::KeyValueMetadata> FieldIdMetadata(int32_t id) {
  return arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(id)});
}

std::string ChildPath(std::string_view parent, std::string_view name) {
  return parent.empty() ? std::string(name) : StrCat(parent, ".", name);
}

// An Arrow field on its way to becoming an Iceberg field: ids may still be
// missing (-1) until every id present in the schema is known.
struct PendingField {
  std::string name;
  bool required = false;
  int32_t id = -1;
  TypeId kind = TypeId::kStruct;
  TypePtr primitive;  // set when kind is primitive
  std::vector<PendingField> children;
};

tl::unexpected<Error> CannotWrite(const std::string& path, const arrow::DataType& type,
                                  std::string_view why) {
  return InvalidArgument("Column '", path, "' has Arrow type ", type.ToString(),
                         " which cannot be written to Iceberg: ", why);
}

Result<TypePtr> PrimitiveFromArrow(const arrow::DataType& type, const std::string& path) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return Type::Boolean();
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
      return Type::Int();
    case arrow::Type::INT64:
    case arrow::Type::UINT32:
      return Type::Long();
    case arrow::Type::UINT64:
      return CannotWrite(path, type, "unsigned 64-bit values do not fit in a long");
    case arrow::Type::HALF_FLOAT:
      return CannotWrite(path, type, "Iceberg has no 16-bit float; cast to float32");
    case arrow::Type::FLOAT:
      return Type::Float();
    case arrow::Type::DOUBLE:
      return Type::Double();
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Type&>(type);
      if (decimal.scale() < 0) return CannotWrite(path, type, "negative decimal scale");
      return Type::Decimal(decimal.precision(), decimal.scale());
    }
    case arrow::Type::DECIMAL32:
    case arrow::Type::DECIMAL64:
    case arrow::Type::DECIMAL256:
      return CannotWrite(path, type, "use decimal128 with precision <= 38");
    case arrow::Type::DATE32:
      return Type::Date();
    case arrow::Type::TIME64:
      if (static_cast<const arrow::Time64Type&>(type).unit() == arrow::TimeUnit::MICRO) {
        return Type::Time();
      }
      return CannotWrite(path, type, "Iceberg time is in microseconds; use time64[us]");
    case arrow::Type::TIMESTAMP: {
      const auto& timestamp = static_cast<const arrow::TimestampType&>(type);
      bool has_zone = !timestamp.timezone().empty();
      if (has_zone && !IsUtcTimeZone(timestamp.timezone())) {
        return CannotWrite(path, type, "timestamps with a time zone must be in UTC");
      }
      if (timestamp.unit() == arrow::TimeUnit::NANO) {
        return has_zone ? Type::TimestampTzNs() : Type::TimestampNs();
      }
      return has_zone ? Type::TimestampTz() : Type::Timestamp();
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return Type::String();
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return Type::Binary();
    case arrow::Type::FIXED_SIZE_BINARY:
      return Type::Fixed(static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width());
    case arrow::Type::EXTENSION:
      if (static_cast<const arrow::ExtensionType&>(type).extension_name() == "arrow.uuid") {
        return Type::Uuid();
      }
      return CannotWrite(path, type, "unsupported extension type");
    case arrow::Type::DICTIONARY:
      return CannotWrite(path, type, "dictionary-encoded columns are not supported; decode first");
    case arrow::Type::NA:
      return CannotWrite(path, type, "a column of only nulls has no Iceberg type");
    case arrow::Type::TIME32:
      return CannotWrite(path, type, "Iceberg time is in microseconds; use time64[us]");
    case arrow::Type::DATE64:
      return CannotWrite(path, type, "use date32");
    default:
      return CannotWrite(path, type, "no Iceberg equivalent");
  }
}

tl::unexpected<Error> NestedTooDeep(const std::string& path) {
  return InvalidArgument("Column '", path, "' is nested more than ", kMaxNestingDepth,
                         " levels deep (structs, lists and maps); Parquet readers and PyIceberg "
                         "cannot read a table nested that deep");
}

// `depth`: how many structs, lists and maps enclose `field`.
Result<PendingField> FromArrowField(const arrow::Field& field, const std::string& path, int depth) {
  PendingField out;
  out.name = field.name();
  out.required = !field.nullable();
  SKADE_ASSIGN_OR_RAISE(out.id, FieldIdOf(field));
  const arrow::DataType& type = *field.type();
  const bool nested = type.id() == arrow::Type::STRUCT || type.id() == arrow::Type::LIST ||
                      type.id() == arrow::Type::LARGE_LIST || type.id() == arrow::Type::MAP;
  if (nested && depth >= kMaxNestingDepth) return NestedTooDeep(path);
  switch (type.id()) {
    case arrow::Type::STRUCT:
      out.kind = TypeId::kStruct;
      for (const auto& child : type.fields()) {
        SKADE_ASSIGN_OR_RAISE(auto converted,
                              FromArrowField(*child, ChildPath(path, child->name()), depth + 1));
        out.children.push_back(std::move(converted));
      }
      return out;
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      out.kind = TypeId::kList;
      SKADE_ASSIGN_OR_RAISE(auto element,
                            FromArrowField(*type.field(0), ChildPath(path, "element"), depth + 1));
      element.name = "element";
      out.children.push_back(std::move(element));
      return out;
    }
    case arrow::Type::MAP: {
      out.kind = TypeId::kMap;
      const auto& map = static_cast<const arrow::MapType&>(type);
      SKADE_ASSIGN_OR_RAISE(auto key,
                            FromArrowField(*map.key_field(), ChildPath(path, "key"), depth + 1));
      SKADE_ASSIGN_OR_RAISE(auto value,
                            FromArrowField(*map.item_field(), ChildPath(path, "value"), depth + 1));
      key.name = "key";
      key.required = true;
      value.name = "value";
      out.children.push_back(std::move(key));
      out.children.push_back(std::move(value));
      return out;
    }
    case arrow::Type::FIXED_SIZE_LIST:
    case arrow::Type::LIST_VIEW:
    case arrow::Type::LARGE_LIST_VIEW:
      return CannotWrite(path, type, "use list or large_list");
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW:
      return CannotWrite(path, type, "use string/binary or their large variants");
    default:
      break;
  }
  SKADE_ASSIGN_OR_RAISE(out.primitive, PrimitiveFromArrow(type, path));
  out.kind = out.primitive->id();
  return out;
}

Status CollectIds(const PendingField& field, absl::flat_hash_set<int32_t>* ids, int32_t* max_id) {
  for (const auto& child : field.children) {
    if (child.id >= 0) {
      if (!ids->insert(child.id).second) {
        return InvalidArgument("Field id ", child.id, " is used more than once (field '",
                               child.name, "')");
      }
      *max_id = std::max(*max_id, child.id);
    }
    SKADE_RETURN_NOT_OK(CollectIds(child, ids, max_id));
  }
  return OkStatus();
}

// Iceberg's fresh-id order: all of a struct's (or list's, or map's) direct
// children first, then the nested fields of each child in turn.
void AssignMissingIds(PendingField* field, int32_t* next_id) {
  for (auto& child : field->children) {
    if (child.id < 0) child.id = (*next_id)++;
  }
  for (auto& child : field->children) AssignMissingIds(&child, next_id);
}

NestedField ToNestedField(const PendingField& field) {
  NestedField out;
  out.id = field.id;
  out.name = field.name;
  out.required = field.required;
  switch (field.kind) {
    case TypeId::kStruct: {
      std::vector<NestedField> children;
      for (const auto& child : field.children) children.push_back(ToNestedField(child));
      out.type = Type::Struct(std::move(children));
      break;
    }
    case TypeId::kList:
      out.type = Type::List(ToNestedField(field.children[0]));
      break;
    case TypeId::kMap:
      out.type = Type::Map(ToNestedField(field.children[0]), ToNestedField(field.children[1]));
      break;
    default:
      out.type = field.primitive;
      break;
  }
  return out;
}

}  // namespace

bool IsUtcTimeZone(std::string_view timezone) {
  // The aliases PyIceberg accepts.
  return timezone == "UTC" || timezone == "Etc/UTC" || timezone == "+00:00" || timezone == "Z";
}

Result<int32_t> FieldIdOf(const arrow::Field& field) {
  const auto& metadata = field.metadata();
  if (metadata == nullptr) return -1;
  int index = metadata->FindKey(kParquetFieldIdKey);
  if (index < 0) return -1;
  auto id = ParseInt32(metadata->value(index));
  if (!id || *id < 0) {
    return InvalidArgument("Field '", field.name(), "' has an invalid ", kParquetFieldIdKey, ": ",
                           metadata->value(index));
  }
  return *id;
}

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const spec::Type& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return arrow::boolean();
    case TypeId::kInt:
      return arrow::int32();
    case TypeId::kLong:
      return arrow::int64();
    case TypeId::kFloat:
      return arrow::float32();
    case TypeId::kDouble:
      return arrow::float64();
    case TypeId::kDecimal:
      return arrow::decimal128(type.decimal_precision(), type.decimal_scale());
    case TypeId::kDate:
      return arrow::date32();
    case TypeId::kTime:
      return arrow::time64(arrow::TimeUnit::MICRO);
    case TypeId::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO);
    case TypeId::kTimestampTz:
      return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case TypeId::kTimestampNs:
      return arrow::timestamp(arrow::TimeUnit::NANO);
    case TypeId::kTimestampTzNs:
      return arrow::timestamp(arrow::TimeUnit::NANO, "UTC");
    case TypeId::kString:
      return arrow::utf8();
    case TypeId::kUuid:
      return arrow::extension::uuid();
    case TypeId::kFixed:
      return arrow::fixed_size_binary(type.fixed_length());
    case TypeId::kBinary:
      return arrow::binary();
    case TypeId::kStruct: {
      arrow::FieldVector fields;
      for (const auto& field : type.fields()) {
        SKADE_ASSIGN_OR_RAISE(auto converted, ToArrowField(field));
        fields.push_back(std::move(converted));
      }
      return arrow::struct_(std::move(fields));
    }
    case TypeId::kList: {
      SKADE_ASSIGN_OR_RAISE(auto element, ToArrowField(type.list_element()));
      return arrow::list(std::move(element));
    }
    case TypeId::kMap: {
      SKADE_ASSIGN_OR_RAISE(auto key, ToArrowField(type.map_key()));
      SKADE_ASSIGN_OR_RAISE(auto value, ToArrowField(type.map_value()));
      return std::static_pointer_cast<arrow::DataType>(
          std::make_shared<arrow::MapType>(std::move(key), std::move(value)));
    }
    case TypeId::kUnknown:
    case TypeId::kVariant:
    case TypeId::kGeometry:
    case TypeId::kGeography:
      break;
  }
  return Unsupported("Iceberg type ", type.ToString(), " has no Arrow equivalent in skade");
}

Result<std::shared_ptr<arrow::Field>> ToArrowField(const spec::NestedField& field) {
  auto type = ToArrowType(*field.type);
  if (!type) {
    return MakeError(type.error().kind, "Field '", field.name, "': ", type.error().message);
  }
  return arrow::field(field.name, std::move(*type), !field.required, FieldIdMetadata(field.id));
}

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const spec::Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& field : schema.fields()) {
    SKADE_ASSIGN_OR_RAISE(auto converted, ToArrowField(field));
    fields.push_back(std::move(converted));
  }
  return arrow::schema(std::move(fields));
}

Result<spec::SchemaPtr> FromArrowSchema(const arrow::Schema& schema, int32_t schema_id) {
  PendingField root;
  for (const auto& field : schema.fields()) {
    SKADE_ASSIGN_OR_RAISE(auto converted, FromArrowField(*field, field->name(), 0));
    root.children.push_back(std::move(converted));
  }
  absl::flat_hash_set<int32_t> ids;
  int32_t max_id = 0;
  SKADE_RETURN_NOT_OK(CollectIds(root, &ids, &max_id));
  int32_t next_id = max_id + 1;
  AssignMissingIds(&root, &next_id);
  return std::make_shared<const spec::Schema>(schema_id, ToNestedField(root).type->fields());
}

}  // namespace skade::data
