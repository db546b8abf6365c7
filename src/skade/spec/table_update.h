// Metadata updates (REST spec: TableUpdate): the changes a commit applies.
//
// Values; thread-safe. TableMetadataBuilder applies them and records the
// ones that changed something, so every commit path shares one implementation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/snapshot.h"
#include "skade/spec/sort_order.h"
#include "skade/spec/statistics.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::spec {

/// "Use the schema/spec/order added last in this commit".
inline constexpr int32_t kLastAdded = -1;

struct AssignUuid {
  std::string uuid;
  bool operator==(const AssignUuid&) const = default;
};
struct UpgradeFormatVersion {
  int format_version = 0;
  bool operator==(const UpgradeFormatVersion&) const = default;
};
struct AddSchema {
  SchemaPtr schema;
  /// Deprecated in the REST spec: read and written, but not taken by the
  /// builder (as in Iceberg Java), which follows the schema's field ids.
  std::optional<int32_t> last_column_id;
  bool operator==(const AddSchema& other) const;
};
struct SetCurrentSchema {
  int32_t schema_id = kLastAdded;
  bool operator==(const SetCurrentSchema&) const = default;
};
struct AddPartitionSpec {
  PartitionSpecPtr spec;
  bool operator==(const AddPartitionSpec& other) const;
};
struct SetDefaultSpec {
  int32_t spec_id = kLastAdded;
  bool operator==(const SetDefaultSpec&) const = default;
};
struct AddSortOrder {
  SortOrderPtr sort_order;
  bool operator==(const AddSortOrder& other) const;
};
struct SetDefaultSortOrder {
  int32_t sort_order_id = kLastAdded;
  bool operator==(const SetDefaultSortOrder&) const = default;
};
struct AddSnapshot {
  SnapshotPtr snapshot;
  bool operator==(const AddSnapshot& other) const;
};
struct SetSnapshotRef {
  std::string ref_name;
  SnapshotRef ref;
  bool operator==(const SetSnapshotRef&) const = default;
};
struct RemoveSnapshots {
  std::vector<int64_t> snapshot_ids;
  bool operator==(const RemoveSnapshots&) const = default;
};
struct RemoveSnapshotRef {
  std::string ref_name;
  bool operator==(const RemoveSnapshotRef&) const = default;
};
struct SetLocation {
  std::string location;
  bool operator==(const SetLocation&) const = default;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
  bool operator==(const SetProperties&) const = default;
};
struct RemoveProperties {
  std::vector<std::string> removals;
  bool operator==(const RemoveProperties&) const = default;
};
struct SetStatistics {
  StatisticsFile statistics;
  bool operator==(const SetStatistics&) const = default;
};
struct RemoveStatistics {
  int64_t snapshot_id = 0;
  bool operator==(const RemoveStatistics&) const = default;
};
struct SetPartitionStatistics {
  PartitionStatisticsFile partition_statistics;
  bool operator==(const SetPartitionStatistics&) const = default;
};
struct RemovePartitionStatistics {
  int64_t snapshot_id = 0;
  bool operator==(const RemovePartitionStatistics&) const = default;
};
struct RemovePartitionSpecs {
  std::vector<int32_t> spec_ids;
  bool operator==(const RemovePartitionSpecs&) const = default;
};
struct RemoveSchemas {
  std::vector<int32_t> schema_ids;
  bool operator==(const RemoveSchemas&) const = default;
};
struct AddEncryptionKey {
  EncryptionKey encryption_key;
  bool operator==(const AddEncryptionKey&) const = default;
};
struct RemoveEncryptionKey {
  std::string key_id;
  bool operator==(const RemoveEncryptionKey&) const = default;
};

class TableUpdate {
 public:
  using Value =
      std::variant<AssignUuid, UpgradeFormatVersion, AddSchema, SetCurrentSchema, AddPartitionSpec,
                   SetDefaultSpec, AddSortOrder, SetDefaultSortOrder, AddSnapshot, SetSnapshotRef,
                   RemoveSnapshots, RemoveSnapshotRef, SetLocation, SetProperties, RemoveProperties,
                   SetStatistics, RemoveStatistics, SetPartitionStatistics,
                   RemovePartitionStatistics, RemovePartitionSpecs, RemoveSchemas, AddEncryptionKey,
                   RemoveEncryptionKey>;

  // Implicit from any of the alternatives, so lists of them read naturally.
  template <typename T>
  requires std::is_constructible_v<Value, T> TableUpdate(T value)
      : value_(std::move(value)) {}  // NOLINT: implicit by design

  const Value& value() const { return value_; }
  /// The JSON `action` discriminator, e.g. "add-snapshot".
  std::string_view action() const;

  bool operator==(const TableUpdate& other) const { return value_ == other.value_; }

 private:
  Value value_;
};

/// Parses one update (REST spec field names; the `action` is matched
/// case-insensitively). An unknown or missing `action`, or a missing or
/// mistyped field, is kInvalidArgument. Also accepted: the legacy
/// `updated` / `removed` keys of set-/remove-properties; an add-spec `spec`
/// without `spec-id`; partition fields without `field-id`, which parse as 0
/// so that TableMetadataBuilder assigns them.
Result<TableUpdate> TableUpdateFromJson(json::Element element);
/// Parses a JSON array of updates; the first error wins.
Result<std::vector<TableUpdate>> TableUpdatesFromJson(json::Element array);
/// Writes the REST form. The update's schema, spec, order or snapshot must
/// not be null. add-schema always carries `last-column-id` and set-statistics
/// the top-level `snapshot-id`: both deprecated, but older readers need them.
void WriteTableUpdate(JsonWriter& writer, const TableUpdate& update);

}  // namespace skade::spec
