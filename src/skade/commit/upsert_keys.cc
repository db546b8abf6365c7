#include <algorithm>

#include "skade/commit/upsert_keys_internal.h"

namespace skade::commit {

Result<std::vector<int32_t>> ResolveKeyFields(const spec::Schema& schema,
                                              const spec::PartitionSpec& spec,
                                              const std::vector<std::string>& names,
                                              int format_version) {
  if (format_version < 2) {
    return InvalidArgument("Cannot upsert into a format version ", format_version,
                           " table: equality deletes need format version 2 or later");
  }
  if (names.empty()) return InvalidArgument("Cannot upsert without key columns");
  std::vector<int32_t> ids;
  for (const std::string& name : names) {
    const spec::NestedField* field = schema.FindFieldByName(name);
    if (field == nullptr || schema.FindParentId(field->id) != -1) {
      return InvalidArgument("Cannot upsert by key column '", name,
                             "': not a top-level column of the table");
    }
    if (std::find(ids.begin(), ids.end(), field->id) != ids.end()) {
      return InvalidArgument("Cannot upsert by key column '", name, "' twice");
    }
    ids.push_back(field->id);
  }
  // The spec's identifier-field rules: required, primitive, not float/double.
  spec::Schema keyed(schema.schema_id(), schema.fields(), ids);
  auto valid = keyed.Validate(format_version);
  if (!valid) return InvalidArgument("Cannot upsert by these key columns: ", valid.error().message);
  for (const auto& field : spec.fields) {
    for (int32_t source : field.AllSourceIds()) {
      if (std::find(ids.begin(), ids.end(), source) == ids.end()) {
        return InvalidArgument("Cannot upsert: the key must include the partition source column '",
                               schema.FindColumnName(source), "'");
      }
    }
  }
  return ids;
}

std::shared_ptr<const spec::Schema> KeySchema(const spec::Schema& schema,
                                              const std::vector<int32_t>& key_field_ids) {
  std::vector<spec::NestedField> fields;
  for (int32_t id : key_field_ids) fields.push_back(*schema.FindFieldById(id));
  return std::make_shared<const spec::Schema>(schema.schema_id(), std::move(fields), key_field_ids);
}

}  // namespace skade::commit
