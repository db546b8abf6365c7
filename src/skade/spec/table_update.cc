#include "skade/spec/table_update.h"

#include <array>

#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"
#include "skade/spec/table_metadata.h"
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

// Parsers get the update object, and the same value as an element for the
// readers that take one.
using Parser = Result<TableUpdate> (*)(json::Element, json::Object);

Result<TableUpdate> ParseAssignUuid(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto uuid, json::GetString(object, "uuid"));
  return AssignUuid{std::move(uuid)};
}

Result<TableUpdate> ParseUpgradeFormatVersion(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto version, json::GetInt32(object, "format-version"));
  return UpgradeFormatVersion{version};
}

Result<TableUpdate> ParseAddSchema(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto schema_json, json::GetRequired(object, "schema"));
  SKADE_ASSIGN_OR_RAISE(auto schema, SchemaFromJson(schema_json));
  SKADE_ASSIGN_OR_RAISE(auto last_column_id, json::GetOptionalInt32(object, "last-column-id"));
  return AddSchema{std::move(schema), last_column_id};
}

Result<TableUpdate> ParseSetCurrentSchema(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "schema-id"));
  return SetCurrentSchema{id};
}

// A spec sent by a client may omit `spec-id` (the server assigns it) and
// `field-id`s; an omitted field id is left 0 so the builder assigns it from
// last-partition-id.
Result<TableUpdate> ParseAddPartitionSpec(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto spec_object, json::GetObject(object, "spec"));
  SKADE_ASSIGN_OR_RAISE(auto spec_id, json::GetOptionalInt32(spec_object, "spec-id"));
  SKADE_ASSIGN_OR_RAISE(auto fields, json::GetRequired(spec_object, "fields"));
  SKADE_ASSIGN_OR_RAISE(auto parsed, internal::PartitionSpecFromFields(
                                         spec_id.value_or(PartitionSpec::kInitialSpecId), fields));
  SKADE_ASSIGN_OR_RAISE(auto items, json::AsArray(fields, "fields"));
  auto spec = std::make_shared<PartitionSpec>(*parsed);
  size_t i = 0;
  for (auto field : items) {
    json::Object field_object;
    if (!field.get_object().get(field_object) && !json::Find(field_object, "field-id")) {
      spec->fields[i].field_id = 0;
    }
    ++i;
  }
  return AddPartitionSpec{std::move(spec)};
}

Result<TableUpdate> ParseSetDefaultSpec(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "spec-id"));
  return SetDefaultSpec{id};
}

Result<TableUpdate> ParseAddSortOrder(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto order_json, json::GetRequired(object, "sort-order"));
  SKADE_ASSIGN_OR_RAISE(auto order, SortOrderFromJson(order_json));
  return AddSortOrder{std::move(order)};
}

Result<TableUpdate> ParseSetDefaultSortOrder(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt32(object, "sort-order-id"));
  return SetDefaultSortOrder{id};
}

Result<TableUpdate> ParseAddSnapshot(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto snapshot_json, json::GetRequired(object, "snapshot"));
  SKADE_ASSIGN_OR_RAISE(auto snapshot, SnapshotFromJson(snapshot_json));
  return AddSnapshot{std::move(snapshot)};
}

// The ref's fields (`snapshot-id`, `type`, retention) sit beside `ref-name`.
Result<TableUpdate> ParseSetSnapshotRef(json::Element element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto name, json::GetString(object, "ref-name"));
  SKADE_ASSIGN_OR_RAISE(auto ref, SnapshotRefFromJson(element));
  return SetSnapshotRef{std::move(name), ref};
}

Result<TableUpdate> ParseRemoveSnapshots(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto ids, json::GetInt64List(object, "snapshot-ids"));
  return RemoveSnapshots{std::move(ids)};
}

Result<TableUpdate> ParseRemoveSnapshotRef(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto name, json::GetString(object, "ref-name"));
  return RemoveSnapshotRef{std::move(name)};
}

Result<TableUpdate> ParseSetLocation(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto location, json::GetString(object, "location"));
  return SetLocation{std::move(location)};
}

// Early Java clients wrote `updated` / `removed`; Java still reads both.
Result<TableUpdate> ParseSetProperties(json::Element, json::Object object) {
  std::string_view key =
      json::Has(object, "updates") || !json::Has(object, "updated") ? "updates" : "updated";
  SKADE_ASSIGN_OR_RAISE(auto updates_json, json::GetRequired(object, key));
  SKADE_ASSIGN_OR_RAISE(auto updates, json::ToStringMap(updates_json, key));
  return SetProperties{std::move(updates)};
}

Result<TableUpdate> ParseRemoveProperties(json::Element, json::Object object) {
  std::string_view key =
      json::Has(object, "removals") || !json::Has(object, "removed") ? "removals" : "removed";
  SKADE_ASSIGN_OR_RAISE(auto removals, json::GetStringList(object, key));
  return RemoveProperties{std::move(removals)};
}

// The top-level `snapshot-id` is deprecated and always equals the file's.
Result<TableUpdate> ParseSetStatistics(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto statistics_json, json::GetRequired(object, "statistics"));
  SKADE_ASSIGN_OR_RAISE(auto statistics, StatisticsFileFromJson(statistics_json));
  return SetStatistics{std::move(statistics)};
}

Result<TableUpdate> ParseRemoveStatistics(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt64(object, "snapshot-id"));
  return RemoveStatistics{id};
}

Result<TableUpdate> ParseSetPartitionStatistics(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto statistics_json, json::GetRequired(object, "partition-statistics"));
  SKADE_ASSIGN_OR_RAISE(auto statistics, PartitionStatisticsFileFromJson(statistics_json));
  return SetPartitionStatistics{std::move(statistics)};
}

Result<TableUpdate> ParseRemovePartitionStatistics(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto id, json::GetInt64(object, "snapshot-id"));
  return RemovePartitionStatistics{id};
}

Result<TableUpdate> ParseRemovePartitionSpecs(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto ids, json::GetInt32List(object, "spec-ids"));
  return RemovePartitionSpecs{std::move(ids)};
}

Result<TableUpdate> ParseRemoveSchemas(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto ids, json::GetInt32List(object, "schema-ids"));
  return RemoveSchemas{std::move(ids)};
}

Result<TableUpdate> ParseAddEncryptionKey(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto key_json, json::GetRequired(object, "encryption-key"));
  SKADE_ASSIGN_OR_RAISE(auto key, EncryptionKeyFromJson(key_json));
  return AddEncryptionKey{std::move(key)};
}

Result<TableUpdate> ParseRemoveEncryptionKey(json::Element, json::Object object) {
  SKADE_ASSIGN_OR_RAISE(auto key_id, json::GetString(object, "key-id"));
  return RemoveEncryptionKey{std::move(key_id)};
}

template <typename T>
constexpr std::pair<std::string_view, Parser> Entry(Parser parse) {
  return {ActionName<T>::kValue, parse};
}

constexpr std::array<std::pair<std::string_view, Parser>, 23> kParsers = {{
    Entry<AssignUuid>(ParseAssignUuid),
    Entry<UpgradeFormatVersion>(ParseUpgradeFormatVersion),
    Entry<AddSchema>(ParseAddSchema),
    Entry<SetCurrentSchema>(ParseSetCurrentSchema),
    Entry<AddPartitionSpec>(ParseAddPartitionSpec),
    Entry<SetDefaultSpec>(ParseSetDefaultSpec),
    Entry<AddSortOrder>(ParseAddSortOrder),
    Entry<SetDefaultSortOrder>(ParseSetDefaultSortOrder),
    Entry<AddSnapshot>(ParseAddSnapshot),
    Entry<SetSnapshotRef>(ParseSetSnapshotRef),
    Entry<RemoveSnapshots>(ParseRemoveSnapshots),
    Entry<RemoveSnapshotRef>(ParseRemoveSnapshotRef),
    Entry<SetLocation>(ParseSetLocation),
    Entry<SetProperties>(ParseSetProperties),
    Entry<RemoveProperties>(ParseRemoveProperties),
    Entry<SetStatistics>(ParseSetStatistics),
    Entry<RemoveStatistics>(ParseRemoveStatistics),
    Entry<SetPartitionStatistics>(ParseSetPartitionStatistics),
    Entry<RemovePartitionStatistics>(ParseRemovePartitionStatistics),
    Entry<RemovePartitionSpecs>(ParseRemovePartitionSpecs),
    Entry<RemoveSchemas>(ParseRemoveSchemas),
    Entry<AddEncryptionKey>(ParseAddEncryptionKey),
    Entry<RemoveEncryptionKey>(ParseRemoveEncryptionKey),
}};

template <typename Int>
void WriteIntArray(JsonWriter& writer, std::string_view key, const std::vector<Int>& values) {
  writer.Key(key);
  writer.StartArray();
  for (Int value : values) writer.Int(value);
  writer.EndArray();
}

void WriteFields(JsonWriter& writer, const AssignUuid& u) { writer.Field("uuid", u.uuid); }
void WriteFields(JsonWriter& writer, const UpgradeFormatVersion& u) {
  writer.Field("format-version", u.format_version);
}
// `last-column-id` is deprecated but older servers require it.
void WriteFields(JsonWriter& writer, const AddSchema& u) {
  writer.Key("schema");
  WriteSchema(writer, *u.schema);
  writer.Field("last-column-id", u.last_column_id.value_or(u.schema->HighestFieldId()));
}
void WriteFields(JsonWriter& writer, const SetCurrentSchema& u) {
  writer.Field("schema-id", u.schema_id);
}
void WriteFields(JsonWriter& writer, const AddPartitionSpec& u) {
  writer.Key("spec");
  WritePartitionSpec(writer, *u.spec);
}
void WriteFields(JsonWriter& writer, const SetDefaultSpec& u) {
  writer.Field("spec-id", u.spec_id);
}
void WriteFields(JsonWriter& writer, const AddSortOrder& u) {
  writer.Key("sort-order");
  WriteSortOrder(writer, *u.sort_order);
}
void WriteFields(JsonWriter& writer, const SetDefaultSortOrder& u) {
  writer.Field("sort-order-id", u.sort_order_id);
}
// Snapshots with a sequence number are v2 or later; v1 snapshots have none.
void WriteFields(JsonWriter& writer, const AddSnapshot& u) {
  writer.Key("snapshot");
  WriteSnapshot(writer, *u.snapshot, u.snapshot->sequence_number > 0 ? kMaxFormatVersion : 1);
}
void WriteFields(JsonWriter& writer, const SetSnapshotRef& u) {
  writer.Field("ref-name", u.ref_name);
  writer.Field("snapshot-id", u.ref.snapshot_id);
  writer.Field("type", u.ref.is_branch() ? "branch" : "tag");
  if (u.ref.min_snapshots_to_keep) {
    writer.Field("min-snapshots-to-keep", *u.ref.min_snapshots_to_keep);
  }
  if (u.ref.max_snapshot_age_ms) writer.Field("max-snapshot-age-ms", *u.ref.max_snapshot_age_ms);
  if (u.ref.max_ref_age_ms) writer.Field("max-ref-age-ms", *u.ref.max_ref_age_ms);
}
void WriteFields(JsonWriter& writer, const RemoveSnapshots& u) {
  WriteIntArray(writer, "snapshot-ids", u.snapshot_ids);
}
void WriteFields(JsonWriter& writer, const RemoveSnapshotRef& u) {
  writer.Field("ref-name", u.ref_name);
}
void WriteFields(JsonWriter& writer, const SetLocation& u) { writer.Field("location", u.location); }
void WriteFields(JsonWriter& writer, const SetProperties& u) {
  writer.Key("updates");
  writer.StartObject();
  for (const auto& [key, value] : u.updates) writer.Field(key, value);
  writer.EndObject();
}
void WriteFields(JsonWriter& writer, const RemoveProperties& u) {
  writer.Key("removals");
  writer.StartArray();
  for (const auto& key : u.removals) writer.String(key);
  writer.EndArray();
}
// The deprecated top-level `snapshot-id` is still written for older readers.
void WriteFields(JsonWriter& writer, const SetStatistics& u) {
  writer.Field("snapshot-id", u.statistics.snapshot_id);
  writer.Key("statistics");
  WriteStatisticsFile(writer, u.statistics);
}
void WriteFields(JsonWriter& writer, const RemoveStatistics& u) {
  writer.Field("snapshot-id", u.snapshot_id);
}
void WriteFields(JsonWriter& writer, const SetPartitionStatistics& u) {
  writer.Key("partition-statistics");
  WritePartitionStatisticsFile(writer, u.partition_statistics);
}
void WriteFields(JsonWriter& writer, const RemovePartitionStatistics& u) {
  writer.Field("snapshot-id", u.snapshot_id);
}
void WriteFields(JsonWriter& writer, const RemovePartitionSpecs& u) {
  WriteIntArray(writer, "spec-ids", u.spec_ids);
}
void WriteFields(JsonWriter& writer, const RemoveSchemas& u) {
  WriteIntArray(writer, "schema-ids", u.schema_ids);
}
void WriteFields(JsonWriter& writer, const AddEncryptionKey& u) {
  writer.Key("encryption-key");
  WriteEncryptionKey(writer, u.encryption_key);
}
void WriteFields(JsonWriter& writer, const RemoveEncryptionKey& u) {
  writer.Field("key-id", u.key_id);
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

Result<TableUpdate> TableUpdateFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "metadata update"));
  if (!json::Find(object, "action")) {
    return InvalidArgument("Cannot parse metadata update. Missing field: action");
  }
  SKADE_ASSIGN_OR_RAISE(auto action, json::GetString(object, "action"));
  std::string lower = AsciiLower(action);
  for (const auto& [name, parse] : kParsers) {
    if (name == lower) return parse(element, object);
  }
  return InvalidArgument("Cannot parse unknown update action: ", action);
}

Result<std::vector<TableUpdate>> TableUpdatesFromJson(json::Element array) {
  SKADE_ASSIGN_OR_RAISE(auto items, json::AsArray(array, "updates"));
  std::vector<TableUpdate> updates;
  for (auto item : items) {
    SKADE_ASSIGN_OR_RAISE(auto update, TableUpdateFromJson(item));
    updates.push_back(std::move(update));
  }
  return updates;
}

void WriteTableUpdate(JsonWriter& writer, const TableUpdate& update) {
  writer.StartObject();
  writer.Field("action", update.action());
  std::visit([&writer](const auto& u) { WriteFields(writer, u); }, update.value());
  writer.EndObject();
}

}  // namespace skade::spec
