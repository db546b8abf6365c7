#include "skade/spec/table_requirement.h"

#include <array>

#include "skade/util/strings.h"

namespace skade::spec {

namespace {

// Iceberg clients and the REST compatibility kit recognise requirement
// failures by this prefix.
template <typename... Parts>
tl::unexpected<Error> RequirementFailed(const Parts&... parts) {
  return CommitFailed("Requirement failed: ", parts...);
}

tl::unexpected<Error> TableMissing() { return RequirementFailed("table does not exist"); }

template <typename T>
struct TypeName;

#define SKADE_REQUIREMENT_TYPE(Struct, Name)         \
  template <>                                        \
  struct TypeName<Struct> {                          \
    static constexpr std::string_view kValue = Name; \
  };

SKADE_REQUIREMENT_TYPE(AssertCreate, "assert-create")
SKADE_REQUIREMENT_TYPE(AssertTableUuid, "assert-table-uuid")
SKADE_REQUIREMENT_TYPE(AssertRefSnapshotId, "assert-ref-snapshot-id")
SKADE_REQUIREMENT_TYPE(AssertLastAssignedFieldId, "assert-last-assigned-field-id")
SKADE_REQUIREMENT_TYPE(AssertCurrentSchemaId, "assert-current-schema-id")
SKADE_REQUIREMENT_TYPE(AssertLastAssignedPartitionId, "assert-last-assigned-partition-id")
SKADE_REQUIREMENT_TYPE(AssertDefaultSpecId, "assert-default-spec-id")
SKADE_REQUIREMENT_TYPE(AssertDefaultSortOrderId, "assert-default-sort-order-id")
#undef SKADE_REQUIREMENT_TYPE

Status Check(const AssertCreate&, const TableMetadata* current) {
  if (current != nullptr) return RequirementFailed("table already exists");
  return OkStatus();
}

Status Check(const AssertTableUuid& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  if (!EqualsIgnoreCase(r.uuid, current->table_uuid)) {
    return RequirementFailed("UUID does not match: expected ", current->table_uuid, " != ", r.uuid);
  }
  return OkStatus();
}

Status Check(const AssertRefSnapshotId& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  const SnapshotRef* ref = current->Ref(r.ref);
  if (ref != nullptr) {
    std::string_view type = ref->is_branch() ? "branch" : "tag";
    if (!r.snapshot_id) {
      return RequirementFailed(type, " ", r.ref, " was created concurrently");
    }
    if (*r.snapshot_id != ref->snapshot_id) {
      return RequirementFailed(type, " ", r.ref, " has changed: expected id ", *r.snapshot_id,
                               " != ", ref->snapshot_id);
    }
  } else if (r.snapshot_id) {
    return RequirementFailed("branch or tag ", r.ref, " is missing, expected ", *r.snapshot_id);
  }
  return OkStatus();
}

Status Check(const AssertLastAssignedFieldId& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  if (r.last_assigned_field_id != current->last_column_id) {
    return RequirementFailed("last assigned field id changed: expected id ",
                             r.last_assigned_field_id, " != ", current->last_column_id);
  }
  return OkStatus();
}

Status Check(const AssertCurrentSchemaId& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  if (r.current_schema_id != current->current_schema_id) {
    return RequirementFailed("current schema changed: expected id ", r.current_schema_id,
                             " != ", current->current_schema_id);
  }
  return OkStatus();
}

Status Check(const AssertLastAssignedPartitionId& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  if (r.last_assigned_partition_id != current->last_partition_id) {
    return RequirementFailed("last assigned partition id changed: expected id ",
                             r.last_assigned_partition_id, " != ", current->last_partition_id);
  }
  return OkStatus();
}

Status Check(const AssertDefaultSpecId& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  if (r.default_spec_id != current->default_spec_id) {
    return RequirementFailed("default partition spec changed: expected id ", r.default_spec_id,
                             " != ", current->default_spec_id);
  }
  return OkStatus();
}

Status Check(const AssertDefaultSortOrderId& r, const TableMetadata* current) {
  if (current == nullptr) return TableMissing();
  if (r.default_sort_order_id != current->default_sort_order_id) {
    return RequirementFailed("default sort order changed: expected id ", r.default_sort_order_id,
                             " != ", current->default_sort_order_id);
  }
  return OkStatus();
}

using Parser = Result<TableRequirement> (*)(json::Object);

Result<TableRequirement> ParseAssertCreate(json::Object) { return AssertCreate{}; }

Result<TableRequirement> ParseAssertTableUuid(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto uuid, json::GetString(object, "uuid"));
  return AssertTableUuid{std::move(uuid)};
}

Result<TableRequirement> ParseAssertRefSnapshotId(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto ref, json::GetString(object, "ref"));
  // The key is required: null is meaningful ("the ref must not exist").
  if (!json::Has(object, "snapshot-id")) {
    return InvalidArgument("Cannot parse missing field: snapshot-id");
  }
  SKADE_ASSIGN_OR_RAISE(auto snapshot_id, json::GetOptionalInt64(object, "snapshot-id"));
  return AssertRefSnapshotId{std::move(ref), snapshot_id};
}

Result<TableRequirement> ParseAssertLastAssignedFieldId(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "last-assigned-field-id"));
  return AssertLastAssignedFieldId{id};
}

Result<TableRequirement> ParseAssertCurrentSchemaId(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "current-schema-id"));
  return AssertCurrentSchemaId{id};
}

Result<TableRequirement> ParseAssertLastAssignedPartitionId(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "last-assigned-partition-id"));
  return AssertLastAssignedPartitionId{id};
}

Result<TableRequirement> ParseAssertDefaultSpecId(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "default-spec-id"));
  return AssertDefaultSpecId{id};
}

Result<TableRequirement> ParseAssertDefaultSortOrderId(json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "default-sort-order-id"));
  return AssertDefaultSortOrderId{id};
}

constexpr std::array<std::pair<std::string_view, Parser>, 8> kParsers = {{
    {TypeName<AssertCreate>::kValue, ParseAssertCreate},
    {TypeName<AssertTableUuid>::kValue, ParseAssertTableUuid},
    {TypeName<AssertRefSnapshotId>::kValue, ParseAssertRefSnapshotId},
    {TypeName<AssertLastAssignedFieldId>::kValue, ParseAssertLastAssignedFieldId},
    {TypeName<AssertCurrentSchemaId>::kValue, ParseAssertCurrentSchemaId},
    {TypeName<AssertLastAssignedPartitionId>::kValue, ParseAssertLastAssignedPartitionId},
    {TypeName<AssertDefaultSpecId>::kValue, ParseAssertDefaultSpecId},
    {TypeName<AssertDefaultSortOrderId>::kValue, ParseAssertDefaultSortOrderId},
}};

void WriteFields(JsonWriter&, const AssertCreate&) {}
void WriteFields(JsonWriter& writer, const AssertTableUuid& r) { writer.Field("uuid", r.uuid); }
void WriteFields(JsonWriter& writer, const AssertRefSnapshotId& r) {
  writer.Field("ref", r.ref);
  writer.Key("snapshot-id");
  if (r.snapshot_id) {
    writer.Int(*r.snapshot_id);
  } else {
    writer.Null();
  }
}
void WriteFields(JsonWriter& writer, const AssertLastAssignedFieldId& r) {
  writer.Field("last-assigned-field-id", r.last_assigned_field_id);
}
void WriteFields(JsonWriter& writer, const AssertCurrentSchemaId& r) {
  writer.Field("current-schema-id", r.current_schema_id);
}
void WriteFields(JsonWriter& writer, const AssertLastAssignedPartitionId& r) {
  writer.Field("last-assigned-partition-id", r.last_assigned_partition_id);
}
void WriteFields(JsonWriter& writer, const AssertDefaultSpecId& r) {
  writer.Field("default-spec-id", r.default_spec_id);
}
void WriteFields(JsonWriter& writer, const AssertDefaultSortOrderId& r) {
  writer.Field("default-sort-order-id", r.default_sort_order_id);
}

}  // namespace

std::string_view TableRequirement::type() const {
  return std::visit([](const auto& r) { return TypeName<std::decay_t<decltype(r)>>::kValue; },
                    value_);
}

Status TableRequirement::Validate(const TableMetadata* current) const {
  return std::visit([current](const auto& r) { return Check(r, current); }, value_);
}

Result<TableRequirement> TableRequirementFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "update requirement"));
  if (!json::Find(object, "type")) {
    return InvalidArgument("Cannot parse update requirement. Missing field: type");
  }
  SKADE_ASSIGN_OR_RAISE(auto type, json::GetString(object, "type"));
  std::string lower = AsciiLower(type);
  for (const auto& [name, parse] : kParsers) {
    if (name == lower) return parse(object);
  }
  return InvalidArgument("Cannot parse unknown update requirement type: ", type);
}

Result<std::vector<TableRequirement>> TableRequirementsFromJson(json::Element array) {
  SKADE_ASSIGN_OR_RAISE(auto items, json::AsArray(array, "requirements"));
  std::vector<TableRequirement> requirements;
  for (auto item : items) {
    SKADE_ASSIGN_OR_RAISE(auto requirement, TableRequirementFromJson(item));
    requirements.push_back(std::move(requirement));
  }
  return requirements;
}

void WriteTableRequirement(JsonWriter& writer, const TableRequirement& requirement) {
  writer.StartObject();
  writer.Field("type", requirement.type());
  std::visit([&writer](const auto& r) { WriteFields(writer, r); }, requirement.value());
  writer.EndObject();
}

}  // namespace skade::spec
