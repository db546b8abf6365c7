#include "skade/read/name_mapping.h"

#include <arrow/type.h>
#include <arrow/util/key_value_metadata.h>

#include <algorithm>
#include <string>

#include "skade/data/arrow_schema.h"
#include "skade/util/json_reader.h"
#include "skade/util/strings.h"

namespace skade::read {

namespace {

using MappedField = NameMapping::MappedField;

Result<std::vector<MappedField>> ParseFields(json::Element element, const std::string& path);

Result<MappedField> ParseField(json::Element element, const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(json::Object object, json::AsObject(element, path));
  MappedField field;
  auto id = json::GetOptionalInt32(object, "field-id");
  if (!id) return InvalidArgument(path, ".field-id: ", id.error().message);
  field.field_id = *id;
  auto names = json::GetStringList(object, "names");
  if (!names) return InvalidArgument(path, ".names: ", names.error().message);
  field.names = std::move(*names);
  if (auto nested = json::Find(object, "fields")) {
    SKADE_ASSIGN_OR_RAISE(field.fields, ParseFields(*nested, path + ".fields"));
  }
  return field;
}

Result<std::vector<MappedField>> ParseFields(json::Element element, const std::string& path) {
  SKADE_ASSIGN_OR_RAISE(json::Array array, json::AsArray(element, path));
  std::vector<MappedField> fields;
  size_t index = 0;
  for (json::Element item : array) {
    SKADE_ASSIGN_OR_RAISE(MappedField field, ParseField(item, StrCat(path, "[", index++, "]")));
    fields.push_back(std::move(field));
  }
  return fields;
}

const MappedField* FindByName(const std::vector<MappedField>& fields, const std::string& name) {
  for (const auto& field : fields) {
    if (std::find(field.names.begin(), field.names.end(), name) != field.names.end()) {
      return &field;
    }
  }
  return nullptr;
}

std::shared_ptr<arrow::Field> MapField(const std::shared_ptr<arrow::Field>& field,
                                       const MappedField* mapped);

// `type` with its nested fields mapped under `mapped` (null: no ids).
std::shared_ptr<arrow::DataType> MapType(const std::shared_ptr<arrow::DataType>& type,
                                         const MappedField* mapped) {
  static const std::vector<MappedField> kNone;
  const std::vector<MappedField>& children = mapped != nullptr ? mapped->fields : kNone;
  switch (type->id()) {
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& child : type->fields()) {
        fields.push_back(MapField(child, FindByName(children, child->name())));
      }
      return arrow::struct_(std::move(fields));
    }
    case arrow::Type::LIST:
      return arrow::list(MapField(type->field(0), FindByName(children, "element")));
    case arrow::Type::LARGE_LIST:
      return arrow::large_list(MapField(type->field(0), FindByName(children, "element")));
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return std::make_shared<arrow::MapType>(
          MapField(map.key_field(), FindByName(children, "key")),
          MapField(map.item_field(), FindByName(children, "value")), map.keys_sorted());
    }
    default:
      return type;
  }
}

std::shared_ptr<arrow::Field> MapField(const std::shared_ptr<arrow::Field>& field,
                                       const MappedField* mapped) {
  auto mapped_field = field->WithType(MapType(field->type(), mapped));
  std::shared_ptr<arrow::KeyValueMetadata> metadata =
      field->metadata() ? field->metadata()->Copy() : arrow::key_value_metadata({}, {});
  (void)metadata->Delete(data::kParquetFieldIdKey);
  if (mapped != nullptr && mapped->field_id) {
    metadata->Append(data::kParquetFieldIdKey, std::to_string(*mapped->field_id));
  }
  return mapped_field->WithMetadata(metadata);
}

}  // namespace

Result<NameMapping> NameMapping::Parse(std::string_view text) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(json::Element element, json::Parse(parser, text));
  NameMapping mapping;
  SKADE_ASSIGN_OR_RAISE(mapping.fields_, ParseFields(element, kDefaultNameMappingProperty));
  return mapping;
}

std::shared_ptr<arrow::Schema> NameMapping::Apply(const arrow::Schema& schema) const {
  arrow::FieldVector fields;
  for (const auto& field : schema.fields()) {
    fields.push_back(MapField(field, FindByName(fields_, field->name())));
  }
  return arrow::schema(std::move(fields), schema.metadata());
}

}  // namespace skade::read
