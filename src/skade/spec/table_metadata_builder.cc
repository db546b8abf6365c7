#include "skade/spec/table_metadata_builder.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "skade/spec/field_defaults.h"
#include "skade/spec/table_properties.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::spec {

namespace {

// Base64 as Java's basic decoder reads it: the standard alphabet, with at
// most two '=' of padding at the end, which may be left out.
bool IsBase64(std::string_view text) {
  size_t end = text.size();
  while (end > 0 && text.size() - end < 2 && text[end - 1] == '=') --end;
  for (size_t i = 0; i < end; ++i) {
    char c = text[i];
    bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!letter && c != '+' && c != '/') return false;
  }
  if (end % 4 == 1) return false;  // no whole byte in the last group
  return end == text.size() || text.size() % 4 == 0;
}

// The clock skew Iceberg Java tolerates between the entries of a snapshot
// log (and between its last entry and last-updated-ms); past it, Java cannot
// load the table.
constexpr int64_t kClockSkewMs = 60'000;

// Schema, spec, sort order and field ids are ints in the spec.
constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();

// The id after `id`, in 64 bits so that it cannot wrap; callers reject
// anything above kMaxId.
int64_t NextId(int32_t id) { return static_cast<int64_t>(id) + 1; }

// Iceberg Java binds every partition spec to the current schema when it
// loads a table (and on set-current-schema): a field whose source column is
// in the schema may not have the name of another column, or Java cannot load
// the table. Fields of dropped columns belong to historical specs: exempt.
Status CheckPartitionNames(const PartitionSpec& spec, const Schema& schema) {
  for (const auto& field : spec.fields) {
    if (schema.FindFieldById(field.source_id) == nullptr) continue;
    const NestedField* same_name = schema.FindFieldByName(field.name);
    if (same_name != nullptr && same_name->id != field.source_id) {
      return InvalidArgument("Cannot make schema ", schema.schema_id(), " current: its column ",
                             field.name, " has the name of a partition field of spec ",
                             spec.spec_id, " that comes from another column; rename the column");
    }
  }
  return OkStatus();
}

template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// As Java's LocationUtil.stripTrailingSlash: "s3://b/t/" → "s3://b/t", but a
// bare scheme ("file://") keeps its slashes.
std::string StripTrailingSlash(std::string location) {
  while (!location.empty() && location.back() == '/' &&
         !std::string_view(location).ends_with("://")) {
    location.pop_back();
  }
  return location;
}

Status CheckRefRetention(const SnapshotRef& ref) {
  if (!ref.is_branch()) {
    if (ref.min_snapshots_to_keep) {
      return InvalidArgument("Tags do not support setting minSnapshotsToKeep");
    }
    if (ref.max_snapshot_age_ms) {
      return InvalidArgument("Tags do not support setting maxSnapshotAgeMs");
    }
  }
  if (ref.min_snapshots_to_keep && *ref.min_snapshots_to_keep <= 0) {
    return InvalidArgument("Min snapshots to keep must be greater than 0");
  }
  if (ref.max_snapshot_age_ms && *ref.max_snapshot_age_ms <= 0) {
    return InvalidArgument("Max snapshot age must be greater than 0 ms");
  }
  if (ref.max_ref_age_ms && *ref.max_ref_age_ms <= 0) {
    return InvalidArgument("Max reference age must be greater than 0");
  }
  return OkStatus();
}

template <typename T>
bool Contains(const std::vector<T>& values, const T& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace

TableMetadataBuilder TableMetadataBuilder::BuildFrom(TableMetadataPtr base,
                                                     std::string base_location) {
  TableMetadataBuilder builder;
  builder.metadata_ = *base;
  builder.base_ = std::move(base);
  builder.base_location_ = std::move(base_location);
  return builder;
}

TableMetadataBuilder TableMetadataBuilder::BuildFromEmpty(int format_version) {
  TableMetadataBuilder builder;
  builder.metadata_.format_version = format_version;
  builder.metadata_.table_uuid = NewUuid();
  builder.is_new_ = true;
  return builder;
}

Status TableMetadataBuilder::Apply(const TableUpdate& update) {
  return std::visit(
      Overloaded{
          [&](const spec::AssignUuid& u) { return AssignUuid(u.uuid); },
          [&](const spec::UpgradeFormatVersion& u) {
            return UpgradeFormatVersion(u.format_version);
          },
          [&](const spec::AddSchema& u) { return AddSchema(u.schema); },
          [&](const spec::SetCurrentSchema& u) { return SetCurrentSchema(u.schema_id); },
          [&](const spec::AddPartitionSpec& u) { return AddPartitionSpec(u.spec); },
          [&](const spec::SetDefaultSpec& u) { return SetDefaultSpec(u.spec_id); },
          [&](const spec::AddSortOrder& u) { return AddSortOrder(u.sort_order); },
          [&](const spec::SetDefaultSortOrder& u) { return SetDefaultSortOrder(u.sort_order_id); },
          [&](const spec::AddSnapshot& u) { return AddSnapshot(u.snapshot); },
          [&](const spec::SetSnapshotRef& u) { return SetRef(u.ref_name, u.ref); },
          [&](const spec::RemoveSnapshots& u) { return RemoveSnapshots(u.snapshot_ids); },
          [&](const spec::RemoveSnapshotRef& u) { return RemoveRef(u.ref_name); },
          [&](const spec::SetLocation& u) { return SetLocation(u.location); },
          [&](const spec::SetProperties& u) { return SetProperties(u.updates); },
          [&](const spec::RemoveProperties& u) { return RemoveProperties(u.removals); },
          [&](const spec::SetStatistics& u) { return SetStatistics(u.statistics); },
          [&](const spec::RemoveStatistics& u) { return RemoveStatistics(u.snapshot_id); },
          [&](const spec::SetPartitionStatistics& u) {
            return SetPartitionStatistics(u.partition_statistics);
          },
          [&](const spec::RemovePartitionStatistics& u) {
            return RemovePartitionStatistics(u.snapshot_id);
          },
          [&](const spec::RemovePartitionSpecs& u) { return RemovePartitionSpecs(u.spec_ids); },
          [&](const spec::RemoveSchemas& u) { return RemoveSchemas(u.schema_ids); },
          [&](const spec::AddEncryptionKey& u) { return AddEncryptionKey(u.encryption_key); },
          [&](const spec::RemoveEncryptionKey& u) { return RemoveEncryptionKey(u.key_id); },
      },
      update.value());
}

Status TableMetadataBuilder::ApplyAll(const std::vector<TableUpdate>& updates) {
  for (const auto& update : updates) SKADE_RETURN_NOT_OK(Apply(update));
  return OkStatus();
}

Status TableMetadataBuilder::AssignUuid(const std::string& uuid) {
  if (uuid.empty()) return InvalidArgument("Cannot set uuid to null");
  if (EqualsIgnoreCase(uuid, metadata_.table_uuid)) return OkStatus();
  // Readers parse it as a UUID (PyIceberg refuses the table otherwise).
  if (!IsUuid(uuid)) return InvalidArgument("Cannot set uuid: not a UUID: ", uuid.substr(0, 64));
  // An existing table's identity never changes; only v1 tables may lack one.
  if (!is_new_ && !metadata_.table_uuid.empty()) {
    return InvalidArgument("Cannot reassign uuid of an existing table: ", metadata_.table_uuid,
                           " != ", uuid);
  }
  metadata_.table_uuid = uuid;
  changes_.push_back(spec::AssignUuid{uuid});
  return OkStatus();
}

Status TableMetadataBuilder::UpgradeFormatVersion(int format_version) {
  if (format_version > kMaxFormatVersion) {
    return InvalidArgument("Cannot upgrade table to unsupported format version: v", format_version,
                           " (supported: v", kMaxFormatVersion, ")");
  }
  if (format_version < kMinFormatVersion) {
    return InvalidArgument("Unsupported format version: v", format_version);
  }
  if (format_version == metadata_.format_version) return OkStatus();
  // A create request names its version with this update; until a schema
  // exists nothing depends on the version, so it may still go down.
  bool initial = is_new_ && metadata_.schemas.empty() && metadata_.snapshots.empty();
  if (format_version < metadata_.format_version && !initial) {
    return InvalidArgument("Cannot downgrade v", metadata_.format_version, " table to v",
                           format_version);
  }
  if (metadata_.format_version < 3 && format_version >= 3) metadata_.next_row_id = 0;
  metadata_.format_version = format_version;
  changes_.push_back(spec::UpgradeFormatVersion{format_version});
  return OkStatus();
}

namespace {

// Calls `visit` on every field of `fields`, nested ones too.
template <typename Visit>
Status ForEachField(const std::vector<NestedField>& fields, const Visit& visit) {
  for (const NestedField& field : fields) {
    SKADE_RETURN_NOT_OK(visit(field));
    if (!field.type->is_primitive()) SKADE_RETURN_NOT_OK(ForEachField(field.type->fields(), visit));
  }
  return OkStatus();
}

}  // namespace

Status TableMetadataBuilder::CheckEvolution(const Schema& schema) const {
  // Without a current snapshot no data file is read with the new schema: a
  // new table, or a replace (Iceberg Java's buildReplacement keeps a
  // column's id by its name whatever its new type, after removing main).
  const SchemaPtr current = metadata_.current_snapshot_id.has_value()
                                ? metadata_.SchemaById(metadata_.current_schema_id)
                                : nullptr;
  return ForEachField(schema.fields(), [&](const NestedField& field) -> Status {
    // Spark refuses to write a table with one ("Empty name").
    if (field.name.empty()) {
      return InvalidArgument("Invalid schema: field ", field.id, " has an empty name");
    }
    const NestedField* was = current ? current->FindFieldById(field.id) : nullptr;
    // Data files written before keep the old type: readers promote it only
    // as the spec allows, and fail on anything else.
    if (was != nullptr && !CanPromote(*was->type, *field.type, metadata_.format_version)) {
      return InvalidArgument("Cannot change column ", schema.FindColumnName(field.id), " (field ",
                             field.id, ") from ", was->type->ToString(), " to ",
                             field.type->ToString(),
                             ": not a type promotion the Iceberg spec allows for a v",
                             metadata_.format_version, " table");
    }
    return OkStatus();
  });
}

int64_t TableMetadataBuilder::ReuseOrCreateSchemaId(const Schema& schema) const {
  int64_t new_id = metadata_.current_schema_id;
  for (const auto& existing : metadata_.schemas) {
    if (existing->SameSchema(schema)) return existing->schema_id();
    new_id = std::max(new_id, NextId(existing->schema_id()));
  }
  return new_id;
}

Status TableMetadataBuilder::AddSchema(const SchemaPtr& schema) {
  if (!schema) return InvalidArgument("Cannot add a null schema");
  SKADE_RETURN_NOT_OK(schema->Validate(metadata_.format_version));
  SKADE_RETURN_NOT_OK(CheckFieldDefaults(*schema));
  SKADE_RETURN_NOT_OK(CheckEvolution(*schema));
  int32_t new_last_column_id = std::max(metadata_.last_column_id, schema->HighestFieldId());
  int64_t next_schema_id = ReuseOrCreateSchemaId(*schema);
  if (next_schema_id > kMaxId) {
    return InvalidArgument("Cannot add a schema: schema id ", kMaxId, " is the largest possible");
  }
  auto schema_id = static_cast<int32_t>(next_schema_id);
  SchemaPtr existing = metadata_.SchemaById(schema_id);
  // Re-adding a known schema is how a client says "use this one": −1 then
  // refers to it, but nothing changed unless last-column-id moved.
  last_added_schema_id_ = schema_id;
  if (existing && new_last_column_id == metadata_.last_column_id) return OkStatus();

  SchemaPtr added = existing;
  if (!added) {
    added = schema->schema_id() == schema_id ? schema : schema->WithId(schema_id);
    metadata_.schemas.push_back(added);
  }
  metadata_.last_column_id = new_last_column_id;
  changes_.push_back(spec::AddSchema{added, new_last_column_id});
  return OkStatus();
}

Status TableMetadataBuilder::SetCurrentSchema(int32_t schema_id) {
  if (schema_id == kLastAdded) {
    if (!last_added_schema_id_) {
      return InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    schema_id = *last_added_schema_id_;
  }
  if (metadata_.SchemaById(schema_id) == nullptr) {
    return InvalidArgument("Cannot set current schema to unknown schema: ", schema_id);
  }
  if (schema_id == metadata_.current_schema_id) return OkStatus();
  for (const auto& spec : metadata_.partition_specs) {
    SKADE_RETURN_NOT_OK(CheckPartitionNames(*spec, *metadata_.SchemaById(schema_id)));
  }
  metadata_.current_schema_id = schema_id;
  changes_.push_back(spec::SetCurrentSchema{schema_id});
  return OkStatus();
}

Status TableMetadataBuilder::CheckPartitionFieldId(const PartitionField& field) const {
  // v1 numbers each spec's fields from 1000 again.
  if (metadata_.format_version == 1) return OkStatus();
  for (const auto& existing : metadata_.partition_specs) {
    for (const PartitionField& other : existing->fields) {
      // A v1 spec keeps a dropped field as void under its id, and Iceberg
      // Java carries it into later specs: void matches any transform.
      const bool void_either =
          other.transform == Transform::Void() || field.transform == Transform::Void();
      if (other.field_id == field.field_id &&
          (other.AllSourceIds() != field.AllSourceIds() ||
           !(other.transform == field.transform || void_either))) {
        // Iceberg Java then refuses to read the table ("Conflicting
        // partition fields").
        return InvalidArgument("Cannot add partition field ", field.name, ": field id ",
                               field.field_id, " is field ", other.name, " of spec ",
                               existing->spec_id,
                               " with another source or transform (from v2, a partition field id "
                               "means one field in every spec)");
      }
    }
  }
  return OkStatus();
}

std::optional<int32_t> TableMetadataBuilder::FindCompatibleSpecId(const PartitionSpec& spec) const {
  for (const auto& existing : metadata_.partition_specs) {
    if (existing->CompatibleWith(spec)) return existing->spec_id;
  }
  return std::nullopt;
}

Status TableMetadataBuilder::AddPartitionSpec(const PartitionSpecPtr& spec) {
  if (!spec) return InvalidArgument("Cannot add a null partition spec");
  if (auto existing_id = FindCompatibleSpecId(*spec)) {
    last_added_spec_id_ = *existing_id;
    return OkStatus();
  }
  SchemaPtr schema = metadata_.SchemaById(metadata_.current_schema_id);
  if (!schema) return InvalidArgument("Cannot add a partition spec to a table without a schema");

  auto added = std::make_shared<PartitionSpec>(*spec);
  int64_t spec_id = PartitionSpec::kInitialSpecId;
  for (const auto& existing : metadata_.partition_specs) {
    spec_id = std::max(spec_id, NextId(existing->spec_id));
  }
  if (spec_id > kMaxId) {
    return InvalidArgument("Cannot add a partition spec: spec id ", kMaxId,
                           " is the largest possible");
  }
  added->spec_id = static_cast<int32_t>(spec_id);
  int64_t next_field_id = metadata_.last_partition_id;
  for (size_t i = 0; i < added->fields.size(); ++i) {
    PartitionField& field = added->fields[i];
    if (field.field_id != 0) {
      SKADE_RETURN_NOT_OK(CheckPartitionFieldId(field));
      continue;
    }
    int64_t field_id = metadata_.format_version == 1
                           ? PartitionSpec::kPartitionDataIdStart + static_cast<int64_t>(i)
                           : ++next_field_id;
    if (field_id > kMaxId) {
      return InvalidArgument("Cannot add a partition spec: partition field id ", kMaxId,
                             " is the largest possible");
    }
    field.field_id = static_cast<int32_t>(field_id);
  }
  SKADE_RETURN_NOT_OK(added->Validate(*schema));
  if (metadata_.format_version == 1 && !added->HasSequentialIds()) {
    return InvalidArgument("Spec does not use sequential IDs that are required in v1");
  }

  metadata_.last_partition_id = std::max(metadata_.last_partition_id, added->LastAssignedFieldId());
  metadata_.partition_specs.push_back(added);
  last_added_spec_id_ = added->spec_id;
  changes_.push_back(spec::AddPartitionSpec{std::move(added)});
  return OkStatus();
}

Status TableMetadataBuilder::SetDefaultSpec(int32_t spec_id) {
  if (spec_id == kLastAdded) {
    if (!last_added_spec_id_) {
      return InvalidArgument("Cannot set last added spec: no spec has been added");
    }
    spec_id = *last_added_spec_id_;
  }
  if (metadata_.SpecById(spec_id) == nullptr) {
    return InvalidArgument("Cannot set default partition spec to unknown spec: ", spec_id);
  }
  if (spec_id == metadata_.default_spec_id) return OkStatus();
  metadata_.default_spec_id = spec_id;
  changes_.push_back(spec::SetDefaultSpec{spec_id});
  return OkStatus();
}

Status TableMetadataBuilder::AddSortOrder(const SortOrderPtr& order) {
  if (!order) return InvalidArgument("Cannot add a null sort order");
  int64_t next_order_id = SortOrder::kInitialSortOrderId;
  if (order->IsUnsorted()) {
    next_order_id = SortOrder::kUnsortedOrderId;
  } else {
    for (const auto& existing : metadata_.sort_orders) {
      if (existing->SameOrder(*order)) {
        next_order_id = existing->order_id;
        break;
      }
      next_order_id = std::max(next_order_id, NextId(existing->order_id));
    }
  }
  if (next_order_id > kMaxId) {
    return InvalidArgument("Cannot add a sort order: sort order id ", kMaxId,
                           " is the largest possible");
  }
  auto order_id = static_cast<int32_t>(next_order_id);
  if (metadata_.SortOrderById(order_id) != nullptr) {
    last_added_order_id_ = order_id;
    return OkStatus();
  }

  SortOrderPtr added = SortOrder::Unsorted();
  if (!order->IsUnsorted()) {
    SchemaPtr schema = metadata_.SchemaById(metadata_.current_schema_id);
    if (!schema) return InvalidArgument("Cannot add a sort order to a table without a schema");
    SKADE_RETURN_NOT_OK(order->Validate(*schema));
    auto fresh = std::make_shared<SortOrder>(*order);
    fresh->order_id = order_id;
    added = std::move(fresh);
  }
  metadata_.sort_orders.push_back(added);
  last_added_order_id_ = order_id;
  changes_.push_back(spec::AddSortOrder{std::move(added)});
  return OkStatus();
}

Status TableMetadataBuilder::SetDefaultSortOrder(int32_t order_id) {
  if (order_id == kLastAdded) {
    if (!last_added_order_id_) {
      return InvalidArgument("Cannot set last added sort order: no sort order has been added");
    }
    order_id = *last_added_order_id_;
  }
  if (metadata_.SortOrderById(order_id) == nullptr) {
    return InvalidArgument("Cannot set default sort order to unknown order: ", order_id);
  }
  if (order_id == metadata_.default_sort_order_id) return OkStatus();
  metadata_.default_sort_order_id = order_id;
  changes_.push_back(spec::SetDefaultSortOrder{order_id});
  return OkStatus();
}

Status TableMetadataBuilder::AddSnapshot(const SnapshotPtr& snapshot) {
  if (!snapshot) return InvalidArgument("Cannot add a null snapshot");
  if (metadata_.schemas.empty()) {
    return InvalidArgument("Attempting to add a snapshot before a schema is added");
  }
  if (metadata_.partition_specs.empty()) {
    return InvalidArgument("Attempting to add a snapshot before a partition spec is added");
  }
  if (metadata_.sort_orders.empty()) {
    return InvalidArgument("Attempting to add a snapshot before a sort order is added");
  }
  if (FindSnapshot(snapshot->snapshot_id)) {
    return InvalidArgument("Snapshot already exists for id: ", snapshot->snapshot_id);
  }
  // -1 is "no snapshot" in a metadata file (current-snapshot-id): a table
  // whose main named it could not be read back, by skade or Iceberg Java.
  if (snapshot->snapshot_id == -1) {
    return InvalidArgument("Cannot add a snapshot with id -1, which means no snapshot");
  }
  if (snapshot->parent_snapshot_id == snapshot->snapshot_id) {
    return InvalidArgument("Cannot add snapshot ", snapshot->snapshot_id, ": it is its own parent");
  }
  // The REST spec's enum: PyIceberg cannot load a table with another.
  if (const std::string operation = snapshot->operation();
      !operation.empty() && operation != kOperationAppend && operation != kOperationReplace &&
      operation != kOperationOverwrite && operation != kOperationDelete) {
    return InvalidArgument("Cannot add snapshot ", snapshot->snapshot_id, ": unknown operation '",
                           operation.substr(0, 64), "' (append, replace, overwrite or delete)");
  }
  // Mistakes no retry mends are bad requests, not conflicts: a client that
  // retries 409s would loop on them.
  if (metadata_.format_version > 1 && snapshot->manifest_list.empty()) {
    return InvalidArgument("Cannot add snapshot ", snapshot->snapshot_id,
                           ": a v2+ snapshot needs a manifest-list (inline manifests are v1's)");
  }
  if (metadata_.format_version > 1 && snapshot->sequence_number <= 0) {
    return InvalidArgument("Cannot add snapshot ", snapshot->snapshot_id, ": sequence-number ",
                           snapshot->sequence_number, " (a v2+ snapshot needs one above 0)");
  }
  if (snapshot->timestamp_ms < 0) {
    return InvalidArgument("Cannot add snapshot ", snapshot->snapshot_id, ": timestamp-ms ",
                           snapshot->timestamp_ms, " is before 1970");
  }
  // A stale sequence number or row id means the writer built on an old
  // version: it must refresh and retry, so these are commit conflicts.
  // Not for a snapshot without a parent (a replace): as in Iceberg Java,
  // concurrent replace transactions may share one (the RCK's
  // testConcurrentReplaceTransactions); Build() refuses a log it leaves
  // behind a retained snapshot.
  if (metadata_.format_version > 1 && snapshot->sequence_number <= metadata_.last_sequence_number &&
      snapshot->parent_snapshot_id.has_value()) {
    return MakeRetryableError(ErrorKind::kCommitFailed, "Cannot add snapshot with sequence number ",
                              snapshot->sequence_number, " older than last sequence number ",
                              metadata_.last_sequence_number);
  }
  if (metadata_.format_version >= 3) {
    if (!snapshot->first_row_id) {
      return InvalidArgument("Cannot add a snapshot: first-row-id is null");
    }
    if (!snapshot->added_rows) {
      return InvalidArgument("Cannot add a snapshot: added-rows is null");
    }
    if (*snapshot->added_rows < 0) {
      return InvalidArgument("Cannot add a snapshot: added-rows is negative: ",
                             *snapshot->added_rows);
    }
    if (*snapshot->first_row_id < metadata_.next_row_id) {
      return MakeRetryableError(ErrorKind::kCommitFailed,
                                "Cannot add a snapshot, first-row-id is behind table "
                                "next-row-id: ",
                                *snapshot->first_row_id, " < ", metadata_.next_row_id);
    }
    // Row ids are int64 in every file that carries them; a wrapped one would
    // hand out ids that are already taken.
    int64_t next_row_id = 0;
    if (__builtin_add_overflow(metadata_.next_row_id, *snapshot->added_rows, &next_row_id)) {
      return InvalidArgument("Cannot add a snapshot: next-row-id ", metadata_.next_row_id,
                             " plus added-rows ", *snapshot->added_rows, " overflows");
    }
    int64_t row_id_end = 0;
    if (__builtin_add_overflow(*snapshot->first_row_id, *snapshot->added_rows, &row_id_end)) {
      return InvalidArgument("Cannot add a snapshot: first-row-id ", *snapshot->first_row_id,
                             " plus added-rows ", *snapshot->added_rows, " overflows");
    }
    metadata_.next_row_id = next_row_id;
  }

  // Every later commit would log a time before this one (from a clock that
  // is right) and so be refused: the writer's clock is the one to fix.
  if (snapshot->timestamp_ms > CommitTimeMs() + kClockSkewMs) {
    return InvalidArgument("Cannot add snapshot ", snapshot->snapshot_id, ": its timestamp-ms ",
                           snapshot->timestamp_ms, " is ", snapshot->timestamp_ms - CommitTimeMs(),
                           " ms ahead of the catalog's clock; check the writer's clock");
  }

  metadata_.last_sequence_number = snapshot->sequence_number;
  metadata_.snapshots.push_back(snapshot);
  added_snapshots_.emplace(snapshot->snapshot_id, snapshot);
  added_snapshot_ids_.push_back(snapshot->snapshot_id);
  changes_.push_back(spec::AddSnapshot{snapshot});
  return OkStatus();
}

bool TableMetadataBuilder::WasAddedInThisCommit(int64_t snapshot_id) const {
  return Contains(added_snapshot_ids_, snapshot_id);
}

SnapshotPtr TableMetadataBuilder::FindSnapshot(int64_t id) const {
  if (auto added = added_snapshots_.find(id); added != added_snapshots_.end()) {
    return added->second;
  }
  if (!base_ || removed_snapshot_ids_.contains(id)) return nullptr;
  return base_->SnapshotById(id);
}

int64_t TableMetadataBuilder::CommitTimeMs() {
  if (!commit_time_ms_) commit_time_ms_ = NowMillis();
  return *commit_time_ms_;
}

Status TableMetadataBuilder::SetRef(const std::string& name, const SnapshotRef& ref) {
  if (name.empty()) return InvalidArgument("Invalid ref name: empty");
  auto existing = metadata_.refs.find(name);
  if (existing != metadata_.refs.end() && existing->second == ref) return OkStatus();
  SKADE_RETURN_NOT_OK(CheckRefRetention(ref));
  SnapshotPtr snapshot = FindSnapshot(ref.snapshot_id);
  if (!snapshot) {
    return InvalidArgument("Cannot set ", name, " to unknown snapshot: ", ref.snapshot_id);
  }
  if (name == kMainBranch && !ref.is_branch()) {
    return InvalidArgument("Cannot set ", kMainBranch, " to a tag, it must be a branch");
  }

  if (name == kMainBranch) {
    metadata_.current_snapshot_id = ref.snapshot_id;
    // A snapshot committed now became current when it was made; moving main
    // to an older one (a rollback) happens at commit time.
    int64_t time_of_change =
        WasAddedInThisCommit(ref.snapshot_id) ? snapshot->timestamp_ms : CommitTimeMs();
    // Iceberg Java refuses to load a snapshot log that goes back in time by
    // more than the skew it tolerates. A snapshot that old was made before
    // the table's latest change, or by a slow clock: refresh and retry.
    if (!metadata_.snapshot_log.empty() &&
        time_of_change < metadata_.snapshot_log.back().timestamp_ms - kClockSkewMs) {
      return MakeRetryableError(ErrorKind::kCommitFailed, "Cannot set ", kMainBranch,
                                " to snapshot ", ref.snapshot_id, ": its timestamp-ms ",
                                time_of_change, " is more than a minute before the table's ",
                                "latest change (", metadata_.snapshot_log.back().timestamp_ms,
                                "); a writer whose clock is behind must fix it");
    }
    metadata_.snapshot_log.push_back(SnapshotLogEntry{time_of_change, ref.snapshot_id});
  }
  metadata_.refs[name] = ref;
  changes_.push_back(spec::SetSnapshotRef{name, ref});
  return OkStatus();
}

Status TableMetadataBuilder::RemoveSnapshots(const std::vector<int64_t>& snapshot_ids) {
  absl::flat_hash_set<int64_t> to_remove(snapshot_ids.begin(), snapshot_ids.end());
  std::vector<int64_t> removed;
  std::vector<SnapshotPtr> retained;
  retained.reserve(metadata_.snapshots.size());
  for (const auto& snapshot : metadata_.snapshots) {
    if (to_remove.contains(snapshot->snapshot_id)) {
      removed.push_back(snapshot->snapshot_id);
      added_snapshots_.erase(snapshot->snapshot_id);
      removed_snapshot_ids_.insert(snapshot->snapshot_id);
    } else {
      retained.push_back(snapshot);
    }
  }
  if (removed.empty()) return OkStatus();
  metadata_.snapshots = std::move(retained);
  changes_.push_back(spec::RemoveSnapshots{removed});

  for (int64_t id : removed) {
    SKADE_RETURN_NOT_OK(RemoveStatistics(id));
    SKADE_RETURN_NOT_OK(RemovePartitionStatistics(id));
  }
  std::vector<std::string> dangling;
  for (const auto& [ref_name, ref] : metadata_.refs) {
    if (!FindSnapshot(ref.snapshot_id)) dangling.push_back(ref_name);
  }
  for (const auto& ref_name : dangling) SKADE_RETURN_NOT_OK(RemoveRef(ref_name));
  return OkStatus();
}

bool TableMetadataBuilder::RemovedSnapshotsInThisCommit() const {
  return std::any_of(changes_.begin(), changes_.end(), [](const TableUpdate& update) {
    return std::holds_alternative<spec::RemoveSnapshots>(update.value());
  });
}

Status TableMetadataBuilder::RemoveRef(const std::string& name) {
  bool changed = metadata_.refs.erase(name) > 0;
  // Metadata from writers that predate refs may have a current snapshot but
  // no main ref; removing main still clears it.
  if (name == kMainBranch && metadata_.current_snapshot_id) {
    metadata_.current_snapshot_id.reset();
    changed = true;
  }
  if (changed) changes_.push_back(spec::RemoveSnapshotRef{name});
  return OkStatus();
}

Status TableMetadataBuilder::SetLocation(const std::string& location) {
  std::string stripped = StripTrailingSlash(location);
  if (stripped.empty()) return InvalidArgument("Invalid table location: empty");
  if (stripped == metadata_.location) return OkStatus();
  metadata_.location = stripped;
  changes_.push_back(spec::SetLocation{std::move(stripped)});
  return OkStatus();
}

Status TableMetadataBuilder::SetProperties(const std::map<std::string, std::string>& updates) {
  std::map<std::string, std::string> changed;
  for (const auto& [key, value] : updates) {
    SKADE_RETURN_NOT_OK(CheckPropertyValue(key, value));
    auto [it, inserted] = metadata_.properties.try_emplace(key, value);
    if (inserted || it->second != value) {
      it->second = value;
      changed.emplace(key, value);
    }
  }
  if (!changed.empty()) changes_.push_back(spec::SetProperties{std::move(changed)});
  return OkStatus();
}

Status TableMetadataBuilder::RemoveProperties(const std::vector<std::string>& removals) {
  std::vector<std::string> removed;
  for (const auto& key : removals) {
    if (metadata_.properties.erase(key) > 0) removed.push_back(key);
  }
  if (!removed.empty()) changes_.push_back(spec::RemoveProperties{std::move(removed)});
  return OkStatus();
}

Status TableMetadataBuilder::SetStatistics(const StatisticsFile& statistics) {
  auto& files = metadata_.statistics;
  auto it = std::find_if(files.begin(), files.end(), [&](const StatisticsFile& file) {
    return file.snapshot_id == statistics.snapshot_id;
  });
  if (it != files.end()) {
    if (*it == statistics) return OkStatus();
    *it = statistics;
  } else {
    files.push_back(statistics);
  }
  changes_.push_back(spec::SetStatistics{statistics});
  return OkStatus();
}

Status TableMetadataBuilder::RemoveStatistics(int64_t snapshot_id) {
  auto& files = metadata_.statistics;
  auto removed = std::erase_if(
      files, [&](const StatisticsFile& file) { return file.snapshot_id == snapshot_id; });
  if (removed > 0) changes_.push_back(spec::RemoveStatistics{snapshot_id});
  return OkStatus();
}

Status TableMetadataBuilder::SetPartitionStatistics(const PartitionStatisticsFile& statistics) {
  auto& files = metadata_.partition_statistics;
  auto it = std::find_if(files.begin(), files.end(), [&](const PartitionStatisticsFile& file) {
    return file.snapshot_id == statistics.snapshot_id;
  });
  if (it != files.end()) {
    if (*it == statistics) return OkStatus();
    *it = statistics;
  } else {
    files.push_back(statistics);
  }
  changes_.push_back(spec::SetPartitionStatistics{statistics});
  return OkStatus();
}

Status TableMetadataBuilder::RemovePartitionStatistics(int64_t snapshot_id) {
  auto& files = metadata_.partition_statistics;
  auto removed = std::erase_if(
      files, [&](const PartitionStatisticsFile& file) { return file.snapshot_id == snapshot_id; });
  if (removed > 0) changes_.push_back(spec::RemovePartitionStatistics{snapshot_id});
  return OkStatus();
}

Status TableMetadataBuilder::RemovePartitionSpecs(const std::vector<int32_t>& spec_ids) {
  if (Contains(spec_ids, metadata_.default_spec_id)) {
    return InvalidArgument("Cannot remove the default partition spec");
  }
  std::vector<int32_t> removed;
  std::erase_if(metadata_.partition_specs, [&](const PartitionSpecPtr& spec) {
    if (!Contains(spec_ids, spec->spec_id)) return false;
    removed.push_back(spec->spec_id);
    return true;
  });
  if (removed.empty()) return OkStatus();
  if (last_added_spec_id_ && Contains(removed, *last_added_spec_id_)) last_added_spec_id_.reset();
  changes_.push_back(spec::RemovePartitionSpecs{std::move(removed)});
  return OkStatus();
}

Status TableMetadataBuilder::RemoveSchemas(const std::vector<int32_t>& schema_ids) {
  if (Contains(schema_ids, metadata_.current_schema_id)) {
    return InvalidArgument("Cannot remove the current schema");
  }
  // Reading a snapshot as of its time takes its schema; removed, the id
  // could be handed out again and the snapshot read with another's columns.
  for (const auto& snapshot : metadata_.snapshots) {
    if (snapshot->schema_id && Contains(schema_ids, *snapshot->schema_id)) {
      return InvalidArgument("Cannot remove schema ", *snapshot->schema_id, ": snapshot ",
                             snapshot->snapshot_id, " was written with it");
    }
  }
  std::vector<int32_t> removed;
  std::erase_if(metadata_.schemas, [&](const SchemaPtr& schema) {
    if (!Contains(schema_ids, schema->schema_id())) return false;
    removed.push_back(schema->schema_id());
    return true;
  });
  if (removed.empty()) return OkStatus();
  if (last_added_schema_id_ && Contains(removed, *last_added_schema_id_)) {
    last_added_schema_id_.reset();
  }
  changes_.push_back(spec::RemoveSchemas{std::move(removed)});
  return OkStatus();
}

Status TableMetadataBuilder::AddEncryptionKey(const EncryptionKey& key) {
  if (metadata_.format_version < 3) {
    return InvalidArgument("Cannot add encryption key to a v", metadata_.format_version,
                           " table: encryption keys require v3");
  }
  if (key.key_id.empty()) return InvalidArgument("Invalid encryption key: empty key-id");
  if (!IsBase64(key.encrypted_key_metadata)) {
    return InvalidArgument("Invalid encryption key ", key.key_id,
                           ": encrypted-key-metadata is not base64");
  }
  for (const auto& existing : metadata_.encryption_keys) {
    if (existing.key_id == key.key_id) return OkStatus();
  }
  metadata_.encryption_keys.push_back(key);
  changes_.push_back(spec::AddEncryptionKey{key});
  return OkStatus();
}

Status TableMetadataBuilder::RemoveEncryptionKey(const std::string& key_id) {
  auto removed = std::erase_if(metadata_.encryption_keys,
                               [&](const EncryptionKey& key) { return key.key_id == key_id; });
  if (removed > 0) changes_.push_back(spec::RemoveEncryptionKey{key_id});
  return OkStatus();
}

// Drops log entries for snapshots that were set on main and replaced within
// this commit, and after snapshot removal everything up to the last entry of
// a removed snapshot: a gap would make time travel answer with the wrong
// snapshot for the time the removed one was current.
Status TableMetadataBuilder::UpdateSnapshotLog() {
  absl::flat_hash_set<int64_t> intermediate;
  for (const auto& change : changes_) {
    const auto* set_ref = std::get_if<spec::SetSnapshotRef>(&change.value());
    if (set_ref == nullptr || set_ref->ref_name != kMainBranch) continue;
    int64_t id = set_ref->ref.snapshot_id;
    if (WasAddedInThisCommit(id) && id != metadata_.current_snapshot_id) intermediate.insert(id);
  }
  bool removed_snapshots = RemovedSnapshotsInThisCommit();
  if (intermediate.empty() && !removed_snapshots) return OkStatus();

  std::vector<SnapshotLogEntry> log;
  for (const auto& entry : metadata_.snapshot_log) {
    if (FindSnapshot(entry.snapshot_id)) {
      if (!intermediate.contains(entry.snapshot_id)) log.push_back(entry);
    } else if (removed_snapshots) {
      log.clear();
    }
  }
  if (metadata_.current_snapshot_id && FindSnapshot(*metadata_.current_snapshot_id) &&
      !log.empty() && log.back().snapshot_id != *metadata_.current_snapshot_id) {
    return InvalidArgument("Cannot set invalid snapshot log: latest entry is not the current ",
                           "snapshot");
  }
  metadata_.snapshot_log = std::move(log);
  return OkStatus();
}

void TableMetadataBuilder::AppendMetadataLog() {
  if (!base_ || base_location_.empty()) return;
  int64_t max_size = std::max<int64_t>(
      1, metadata_.PropertyAsInt(kPreviousVersionsMax, kPreviousVersionsMaxDefault));
  auto& log = metadata_.metadata_log;
  if (static_cast<int64_t>(log.size()) >= max_size) {
    const auto drop = static_cast<size_t>(static_cast<int64_t>(log.size()) - max_size + 1);
    removed_log_ = log.Oldest(drop);
    log.DropOldest(drop);
  }
  log.push_back(base_->last_updated_ms, base_location_);
}

Status TableMetadataBuilder::ValidateResult() const {
  const TableMetadata& m = metadata_;
  if (m.format_version < kMinFormatVersion || m.format_version > kMaxFormatVersion) {
    return InvalidArgument("Unsupported format version: v", m.format_version, " (supported: v",
                           kMaxFormatVersion, ")");
  }
  if (m.format_version > 1 && m.table_uuid.empty()) {
    return InvalidArgument("UUID is required in format v", m.format_version);
  }
  if (m.location.empty()) return InvalidArgument("Invalid table metadata: missing location");
  SchemaPtr schema = m.SchemaById(m.current_schema_id);
  if (!schema) {
    return InvalidArgument("Invalid table metadata: current schema ", m.current_schema_id,
                           " does not exist");
  }
  PartitionSpecPtr spec = m.SpecById(m.default_spec_id);
  if (!spec) {
    return InvalidArgument("Invalid table metadata: default partition spec ", m.default_spec_id,
                           " does not exist");
  }
  SKADE_RETURN_NOT_OK(spec->CheckCompatible(*schema));
  SortOrderPtr order = m.SortOrderById(m.default_sort_order_id);
  if (!order) {
    return InvalidArgument("Invalid table metadata: default sort order ", m.default_sort_order_id,
                           " does not exist");
  }
  SKADE_RETURN_NOT_OK(order->Validate(*schema));

  if (m.format_version == 1 && m.last_sequence_number != 0) {
    return InvalidArgument("Sequence number must be 0 in v1: ", m.last_sequence_number);
  }
  for (const auto& snapshot : m.snapshots) {
    if (snapshot->sequence_number > m.last_sequence_number) {
      return InvalidArgument("Invalid snapshot with sequence number ", snapshot->sequence_number,
                             " greater than last sequence number ", m.last_sequence_number);
    }
  }
  for (const auto& [name, ref] : m.refs) {
    if (!FindSnapshot(ref.snapshot_id)) {
      return InvalidArgument("Snapshot for reference ", name,
                             " does not exist in the existing snapshots list");
    }
  }
  const SnapshotRef* main = m.Ref(kMainBranch);
  if (m.current_snapshot_id) {
    if (!FindSnapshot(*m.current_snapshot_id)) {
      return InvalidArgument("Invalid table metadata: Cannot find current version");
    }
    if (main != nullptr && main->snapshot_id != *m.current_snapshot_id) {
      return InvalidArgument("Current snapshot ID does not match main branch (",
                             *m.current_snapshot_id, " != ", main->snapshot_id, ")");
    }
  } else if (main != nullptr) {
    return InvalidArgument("Current snapshot is not set, but main branch exists: ",
                           main->snapshot_id);
  }
  return OkStatus();
}

Result<TableMetadataPtr> TableMetadataBuilder::Build() {
  if (base_ && changes_.empty()) return base_;
  SKADE_RETURN_NOT_OK(UpdateSnapshotLog());
  SKADE_RETURN_NOT_OK(ValidateResult());
  AppendMetadataLog();

  // Clocks differ between writers: never go back before an entry we log.
  int64_t last_updated_ms = CommitTimeMs();
  if (!metadata_.snapshot_log.empty()) {
    last_updated_ms = std::max(last_updated_ms, metadata_.snapshot_log.back().timestamp_ms);
  }
  if (!metadata_.metadata_log.empty()) {
    last_updated_ms = std::max(last_updated_ms, metadata_.metadata_log.back().timestamp_ms);
  }
  metadata_.last_updated_ms = last_updated_ms;
  if (base_ && !RemovedSnapshotsInThisCommit()) {
    metadata_.FinalizeAppended(added_snapshot_ids_.size());
  } else {
    metadata_.Finalize();
  }
  return std::make_shared<const TableMetadata>(std::move(metadata_));
}

}  // namespace skade::spec
