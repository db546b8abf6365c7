#include "skade/spec/new_table_metadata.h"

#include <utility>
#include <vector>

#include "skade/spec/table_metadata_builder.h"
#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"

namespace skade::spec {

namespace {

TypePtr WithFreshIds(const TypePtr& type, int32_t* last_id);

// Iceberg's TypeUtil.assignFreshIds order: a struct's own fields take
// consecutive ids first, then each field's nested type is visited in turn.
std::vector<NestedField> FieldsWithFreshIds(const std::vector<NestedField>& fields,
                                            int32_t* last_id) {
  std::vector<NestedField> out = fields;
  for (auto& field : out) field.id = ++*last_id;
  for (auto& field : out) field.type = WithFreshIds(field.type, last_id);
  return out;
}

TypePtr WithFreshIds(const TypePtr& type, int32_t* last_id) {
  switch (type->id()) {
    case TypeId::kStruct:
      return Type::Struct(FieldsWithFreshIds(type->fields(), last_id));
    case TypeId::kList: {
      NestedField element = type->list_element();
      element.id = ++*last_id;
      element.type = WithFreshIds(element.type, last_id);
      return Type::List(std::move(element));
    }
    case TypeId::kMap: {
      NestedField key = type->map_key();
      NestedField value = type->map_value();
      key.id = ++*last_id;
      value.id = ++*last_id;
      key.type = WithFreshIds(key.type, last_id);
      value.type = WithFreshIds(value.type, last_id);
      return Type::Map(std::move(key), std::move(value));
    }
    default:
      return type;
  }
}

// The id in `fresh` of the column that has `id` in `original`, matched by
// full name.
Result<int32_t> FreshSourceId(const Schema& original, const Schema& fresh, int32_t id,
                              std::string_view what) {
  std::string name = original.FindColumnName(id);
  const NestedField* field = name.empty() ? nullptr : fresh.FindFieldByName(name);
  if (field == nullptr) return InvalidArgument("Cannot find source column for ", what, ": ", id);
  return field->id;
}

Result<std::vector<int32_t>> FreshSourceIds(const Schema& original, const Schema& fresh,
                                            const std::vector<int32_t>& ids,
                                            std::string_view what) {
  std::vector<int32_t> out;
  for (int32_t id : ids) {
    SKADE_ASSIGN_OR_RAISE(int32_t fresh_id, FreshSourceId(original, fresh, id, what));
    out.push_back(fresh_id);
  }
  return out;
}

bool IsReservedProperty(const std::string& key) {
  for (const char* reserved : kReservedProperties) {
    if (key == reserved) return true;
  }
  return false;
}

}  // namespace

Result<TableMetadataPtr> NewTableMetadata(const Schema& schema, const PartitionSpec& spec,
                                          const SortOrder& order, const std::string& location,
                                          const std::map<std::string, std::string>& properties,
                                          std::optional<int> format_version) {
  int version = kDefaultFormatVersion;
  if (format_version) {
    version = *format_version;
  } else if (auto it = properties.find(kFormatVersionProperty); it != properties.end()) {
    auto parsed = ParseInt32(it->second);
    if (!parsed) return InvalidArgument("Invalid format version: ", it->second);
    version = *parsed;
  }
  if (version < kMinFormatVersion || version > kMaxFormatVersion) {
    return InvalidArgument("Unsupported format version: v", version, " (supported: v",
                           kMaxFormatVersion, ")");
  }

  int32_t last_column_id = 0;
  auto fresh_struct = FieldsWithFreshIds(schema.fields(), &last_column_id);
  Schema unkeyed(Schema::kInitialSchemaId, fresh_struct);
  SKADE_ASSIGN_OR_RAISE(
      auto identifier_ids,
      FreshSourceIds(schema, unkeyed, schema.identifier_field_ids(), "identifier field"));
  auto fresh_schema = std::make_shared<const Schema>(Schema::kInitialSchemaId,
                                                     std::move(fresh_struct), identifier_ids);

  auto fresh_spec = std::make_shared<PartitionSpec>();
  for (const auto& field : spec.fields) {
    PartitionField fresh = field;
    SKADE_ASSIGN_OR_RAISE(fresh.source_id,
                          FreshSourceId(schema, *fresh_schema, field.source_id, "partition field"));
    SKADE_ASSIGN_OR_RAISE(fresh.source_ids, FreshSourceIds(schema, *fresh_schema, field.source_ids,
                                                           "partition field"));
    fresh.field_id =
        PartitionSpec::kPartitionDataIdStart + static_cast<int32_t>(fresh_spec->fields.size());
    fresh_spec->fields.push_back(std::move(fresh));
  }

  auto fresh_order = std::make_shared<SortOrder>();
  for (const auto& field : order.fields) {
    SortField fresh = field;
    SKADE_ASSIGN_OR_RAISE(fresh.source_id,
                          FreshSourceId(schema, *fresh_schema, field.source_id, "sort field"));
    SKADE_ASSIGN_OR_RAISE(fresh.source_ids,
                          FreshSourceIds(schema, *fresh_schema, field.source_ids, "sort field"));
    fresh_order->fields.push_back(std::move(fresh));
  }

  // Iceberg writes new tables with zstd Parquet unless told otherwise.
  std::map<std::string, std::string> persisted{{kParquetCompression, "zstd"}};
  for (const auto& [key, value] : properties) {
    if (!IsReservedProperty(key)) persisted[key] = value;
  }

  auto builder = TableMetadataBuilder::BuildFromEmpty(version);
  SKADE_RETURN_NOT_OK(builder.AddSchema(fresh_schema));
  SKADE_RETURN_NOT_OK(builder.SetCurrentSchema(kLastAdded));
  SKADE_RETURN_NOT_OK(builder.AddPartitionSpec(fresh_spec));
  SKADE_RETURN_NOT_OK(builder.SetDefaultSpec(kLastAdded));
  SKADE_RETURN_NOT_OK(builder.AddSortOrder(fresh_order));
  SKADE_RETURN_NOT_OK(builder.SetDefaultSortOrder(kLastAdded));
  SKADE_RETURN_NOT_OK(builder.SetLocation(location));
  SKADE_RETURN_NOT_OK(builder.SetProperties(persisted));
  return builder.Build();
}

}  // namespace skade::spec
