#include "skade/spec/table_update.h"

#include "skade/util/strings.h"

namespace skade::spec {

namespace {

template <typename T>
struct ActionName;

#define SKADE_UPDATE_ACTION(Struct, Name)            \
  template <>                                        \
  struct ActionName<Struct> {                        \
    static constexpr std::string_view kValue = Name; \
  };

SKADE_UPDATE_ACTION(AssignUuid, "assign-uuid")
SKADE_UPDATE_ACTION(UpgradeFormatVersion, "upgrade-format-version")
SKADE_UPDATE_ACTION(AddSchema, "add-schema")
SKADE_UPDATE_ACTION(SetCurrentSchema, "set-current-schema")
SKADE_UPDATE_ACTION(AddPartitionSpec, "add-spec")
SKADE_UPDATE_ACTION(SetDefaultSpec, "set-default-spec")
SKADE_UPDATE_ACTION(AddSortOrder, "add-sort-order")
SKADE_UPDATE_ACTION(SetDefaultSortOrder, "set-default-sort-order")
SKADE_UPDATE_ACTION(AddSnapshot, "add-snapshot")
SKADE_UPDATE_ACTION(SetSnapshotRef, "set-snapshot-ref")
SKADE_UPDATE_ACTION(RemoveSnapshots, "remove-snapshots")
SKADE_UPDATE_ACTION(RemoveSnapshotRef, "remove-snapshot-ref")
SKADE_UPDATE_ACTION(SetLocation, "set-location")
SKADE_UPDATE_ACTION(SetProperties, "set-properties")
SKADE_UPDATE_ACTION(RemoveProperties, "remove-properties")
SKADE_UPDATE_ACTION(SetStatistics, "set-statistics")
SKADE_UPDATE_ACTION(RemoveStatistics, "remove-statistics")
SKADE_UPDATE_ACTION(SetPartitionStatistics, "set-partition-statistics")
SKADE_UPDATE_ACTION(RemovePartitionStatistics, "remove-partition-statistics")
SKADE_UPDATE_ACTION(RemovePartitionSpecs, "remove-partition-specs")
SKADE_UPDATE_ACTION(RemoveSchemas, "remove-schemas")
SKADE_UPDATE_ACTION(AddEncryptionKey, "add-encryption-key")
SKADE_UPDATE_ACTION(RemoveEncryptionKey, "remove-encryption-key")
#undef SKADE_UPDATE_ACTION

// Equality of shared, immutable pointees: both null, or equal values.
template <typename T, typename Equal>
bool PointeesEqual(const std::shared_ptr<const T>& a, const std::shared_ptr<const T>& b,
                   Equal equal) {
  if (a == b) return true;
  if (!a || !b) return false;
  return equal(*a, *b);
}

}  // namespace

bool AddSchema::operator==(const AddSchema& other) const {
  return last_column_id == other.last_column_id &&
         PointeesEqual(schema, other.schema, [](const Schema& a, const Schema& b) {
           return a.schema_id() == b.schema_id() && a.SameSchema(b);
         });
}

bool AddPartitionSpec::operator==(const AddPartitionSpec& other) const {
  return PointeesEqual(spec, other.spec, [](const PartitionSpec& a, const PartitionSpec& b) {
    return a.spec_id == b.spec_id && a.fields == b.fields;
  });
}

bool AddSortOrder::operator==(const AddSortOrder& other) const {
  return PointeesEqual(sort_order, other.sort_order, [](const SortOrder& a, const SortOrder& b) {
    return a.order_id == b.order_id && a.fields == b.fields;
  });
}

bool AddSnapshot::operator==(const AddSnapshot& other) const {
  return PointeesEqual(snapshot, other.snapshot,
                       [](const Snapshot& a, const Snapshot& b) { return a == b; });
}

std::string_view TableUpdate::action() const {
  return std::visit([](const auto& u) { return ActionName<std::decay_t<decltype(u)>>::kValue; },
                    value_);
}

}  // namespace skade::spec
