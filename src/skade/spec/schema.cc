#include "skade/spec/schema.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>

#include "skade/util/strings.h"

namespace skade::spec {

Schema::Schema(int32_t schema_id, std::vector<NestedField> fields,
               std::vector<int32_t> identifier_field_ids)
    : schema_id_(schema_id),
      struct_type_(Type::Struct(std::move(fields))),
      identifier_field_ids_(std::move(identifier_field_ids)) {
  for (const auto& field : struct_type_->fields()) Index(field, "", -1);
}

void Schema::Index(const NestedField& field, const std::string& prefix, int32_t parent_id) {
  std::string name = prefix.empty() ? field.name : prefix + "." + field.name;
  by_id_.emplace(field.id, &field);
  parent_by_id_.emplace(field.id, parent_id);
  name_by_id_.emplace(field.id, name);
  id_by_name_.emplace(name, field.id);
  id_by_lower_name_.emplace(AsciiLower(name), field.id);
  highest_field_id_ = std::max(highest_field_id_, field.id);
  if (field.type) {
    for (const auto& child : field.type->fields()) Index(child, name, field.id);
  }
}

const NestedField* Schema::FindFieldById(int32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

const NestedField* Schema::FindFieldByName(std::string_view name, bool case_sensitive) const {
  if (case_sensitive) {
    auto it = id_by_name_.find(std::string(name));
    return it == id_by_name_.end() ? nullptr : FindFieldById(it->second);
  }
  auto it = id_by_lower_name_.find(AsciiLower(name));
  return it == id_by_lower_name_.end() ? nullptr : FindFieldById(it->second);
}

std::string Schema::FindColumnName(int32_t id) const {
  auto it = name_by_id_.find(id);
  return it == name_by_id_.end() ? std::string() : it->second;
}

int32_t Schema::FindParentId(int32_t id) const {
  auto it = parent_by_id_.find(id);
  return it == parent_by_id_.end() ? -1 : it->second;
}

bool Schema::SameSchema(const Schema& other) const {
  return struct_type_->Equals(*other.struct_type_) &&
         identifier_field_ids_ == other.identifier_field_ids_;
}

std::shared_ptr<const Schema> Schema::WithId(int32_t schema_id) const {
  return std::make_shared<const Schema>(schema_id, struct_type_->fields(), identifier_field_ids_);
}

namespace {

Status ValidateStruct(const std::vector<NestedField>& fields, int format_version,
                      absl::flat_hash_set<int32_t>* ids) {
  absl::flat_hash_set<std::string> names;
  for (const auto& field : fields) {
    if (!field.type) return InvalidArgument("Field ", field.name, " has no type");
    if (!ids->insert(field.id).second) {
      return InvalidArgument("Multiple entries with same key: ", field.id);
    }
    if (!names.insert(field.name).second) {
      return InvalidArgument("Invalid schema: multiple fields for name ", field.name);
    }
    if (format_version < 3) {
      if (field.initial_default_json || field.write_default_json) {
        return InvalidArgument(
            "Invalid initial default for ", field.name, ": non-null default (",
            field.initial_default_json.value_or(field.write_default_json.value_or("")),
            ") is not supported until v3");
      }
      if (field.type->is_primitive() && field.type->RequiresV3()) {
        return InvalidArgument("Invalid type for ", field.name, ": ", field.type->ToString(),
                               " is not supported until v3");
      }
    }
    if (field.type->id() == TypeId::kUnknown && field.required) {
      return InvalidArgument("Cannot create required field with unknown type: ", field.name);
    }
    if (field.type->is_nested()) {
      SKADE_RETURN_NOT_OK(ValidateStruct(field.type->fields(), format_version, ids));
    }
  }
  return OkStatus();
}

}  // namespace

Status Schema::Validate(int format_version) const {
  absl::flat_hash_set<int32_t> ids;
  SKADE_RETURN_NOT_OK(ValidateStruct(fields(), format_version, &ids));
  // Names are unique within a struct, but a full name can still be two
  // fields' (a column "a.b" beside a struct "a" with a field "b"): Iceberg
  // Java refuses such a schema, so a table with one could not be read.
  if (id_by_name_.size() != name_by_id_.size()) {
    for (const auto& [id, name] : name_by_id_) {
      auto first = id_by_name_.find(name);
      if (first != id_by_name_.end() && first->second != id) {
        return InvalidArgument("Invalid schema: multiple fields for name ", name, ": ",
                               std::min(id, first->second), " and ", std::max(id, first->second));
      }
    }
  }
  for (int32_t id : identifier_field_ids_) {
    const NestedField* field = FindFieldById(id);
    if (field == nullptr) {
      return InvalidArgument("Cannot add fieldId ", id,
                             " as an identifier field: field does not exist");
    }
    // A variant is no primitive (Iceberg Java's VariantType is not).
    if (!field->type->is_primitive() || field->type->id() == TypeId::kVariant) {
      return InvalidArgument("Cannot add field ", field->name,
                             " as an identifier field: not a primitive type field");
    }
    if (!field->required) {
      return InvalidArgument("Cannot add field ", field->name,
                             " as an identifier field: not a required field");
    }
    if (field->type->id() == TypeId::kFloat || field->type->id() == TypeId::kDouble) {
      return InvalidArgument("Cannot add field ", field->name,
                             " as an identifier field: must not be float or double field");
    }
    for (int32_t parent = FindParentId(id); parent != -1; parent = FindParentId(parent)) {
      const NestedField* p = FindFieldById(parent);
      if (p->type->id() != TypeId::kStruct) {
        return InvalidArgument("Cannot add field ", field->name,
                               " as an identifier field: must not be nested in ",
                               p->type->ToString());
      }
      if (!p->required) {
        return InvalidArgument("Cannot add field ", field->name,
                               " as an identifier field: must not be nested in an optional field ",
                               p->name);
      }
    }
  }
  return OkStatus();
}

}  // namespace skade::spec
