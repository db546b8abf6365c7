// An Iceberg schema: a struct of fields with unique ids.
//
// Immutable once built and shared as SchemaPtr; the id and name indexes are
// computed in the constructor. Thread-safe.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace skade::spec {

class Schema {
 public:
  static constexpr int32_t kInitialSchemaId = 0;

  Schema(int32_t schema_id, std::vector<NestedField> fields,
         std::vector<int32_t> identifier_field_ids = {});
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  int32_t schema_id() const { return schema_id_; }
  const std::vector<NestedField>& fields() const { return struct_type_->fields(); }
  const TypePtr& as_struct() const { return struct_type_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }

  /// The field with `id` at any depth, or nullptr.
  const NestedField* FindFieldById(int32_t id) const;
  /// The field with the dotted full name (e.g. "location.lat", "tags.element"),
  /// or nullptr. Case-insensitive when `case_sensitive` is false.
  const NestedField* FindFieldByName(std::string_view name, bool case_sensitive = true) const;
  /// The dotted full name of the field with `id`, or empty.
  std::string FindColumnName(int32_t id) const;
  /// The parent struct/list/map field id of `id`, or -1 for top-level fields.
  int32_t FindParentId(int32_t id) const;

  /// The largest field id at any depth (0 if there are none).
  int32_t HighestFieldId() const { return highest_field_id_; }

  /// Same fields and identifier fields; the schema id is ignored.
  bool SameSchema(const Schema& other) const;

  /// A copy with another schema id.
  std::shared_ptr<const Schema> WithId(int32_t schema_id) const;

  /// Checks unique field ids, unique names per struct, and the identifier
  /// field rules (required primitive, not float/double, not inside a list or
  /// map or optional struct). Types and defaults must be allowed by
  /// `format_version`.
  Status Validate(int format_version) const;

 private:
  void Index(const NestedField& field, const std::string& prefix, int32_t parent_id);

  int32_t schema_id_;
  TypePtr struct_type_;
  std::vector<int32_t> identifier_field_ids_;
  int32_t highest_field_id_ = 0;
  absl::flat_hash_map<int32_t, const NestedField*> by_id_;
  absl::flat_hash_map<int32_t, int32_t> parent_by_id_;
  absl::flat_hash_map<int32_t, std::string> name_by_id_;
  absl::flat_hash_map<std::string, int32_t> id_by_name_;
  absl::flat_hash_map<std::string, int32_t> id_by_lower_name_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace skade::spec
