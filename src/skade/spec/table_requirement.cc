#include "skade/spec/table_requirement.h"

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

}  // namespace

std::string_view TableRequirement::type() const {
  return std::visit([](const auto& r) { return TypeName<std::decay_t<decltype(r)>>::kValue; },
                    value_);
}

Status TableRequirement::Validate(const TableMetadata* current) const {
  return std::visit([current](const auto& r) { return Check(r, current); }, value_);
}

}  // namespace skade::spec
