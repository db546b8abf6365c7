// Commit requirements (REST spec: TableRequirement): assertions about the
// current table state that must hold for a commit to apply.
//
// Validate() checks one against the table's *current* metadata; a failure is
// kCommitFailed with the message Iceberg clients expect ("Requirement failed:
// …"). Values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "skade/spec/table_metadata.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::spec {

struct AssertCreate {
  bool operator==(const AssertCreate&) const = default;
};
struct AssertTableUuid {
  std::string uuid;
  bool operator==(const AssertTableUuid&) const = default;
};
/// `snapshot_id` empty means the ref must not exist.
struct AssertRefSnapshotId {
  std::string ref;
  std::optional<int64_t> snapshot_id;
  bool operator==(const AssertRefSnapshotId&) const = default;
};
struct AssertLastAssignedFieldId {
  int32_t last_assigned_field_id = 0;
  bool operator==(const AssertLastAssignedFieldId&) const = default;
};
struct AssertCurrentSchemaId {
  int32_t current_schema_id = 0;
  bool operator==(const AssertCurrentSchemaId&) const = default;
};
struct AssertLastAssignedPartitionId {
  int32_t last_assigned_partition_id = 0;
  bool operator==(const AssertLastAssignedPartitionId&) const = default;
};
struct AssertDefaultSpecId {
  int32_t default_spec_id = 0;
  bool operator==(const AssertDefaultSpecId&) const = default;
};
struct AssertDefaultSortOrderId {
  int32_t default_sort_order_id = 0;
  bool operator==(const AssertDefaultSortOrderId&) const = default;
};

class TableRequirement {
 public:
  using Value =
      std::variant<AssertCreate, AssertTableUuid, AssertRefSnapshotId, AssertLastAssignedFieldId,
                   AssertCurrentSchemaId, AssertLastAssignedPartitionId, AssertDefaultSpecId,
                   AssertDefaultSortOrderId>;

  // Implicit from any of the alternatives, so lists of them read naturally.
  template <typename T>
  requires std::is_constructible_v<Value, T> TableRequirement(T value)
      : value_(std::move(value)) {}  // NOLINT: implicit by design

  const Value& value() const { return value_; }
  /// The JSON `type` discriminator, e.g. "assert-table-uuid".
  std::string_view type() const;

  /// Checks the requirement against `current`, which is null when the table
  /// does not exist; then every requirement but assert-create fails with
  /// "Requirement failed: table does not exist". Failures are kCommitFailed
  /// and not retryable: the client must refresh before it tries again.
  Status Validate(const TableMetadata* current) const;

  bool operator==(const TableRequirement& other) const { return value_ == other.value_; }

 private:
  Value value_;
};

/// Parses one requirement (REST spec field names; the `type` is matched
/// case-insensitively). An unknown or missing `type`, or a missing field, is
/// kInvalidArgument. `assert-ref-snapshot-id` must carry `snapshot-id`,
/// which may be null.
Result<TableRequirement> TableRequirementFromJson(json::Element element);
/// Parses a JSON array of requirements; the first error wins.
Result<std::vector<TableRequirement>> TableRequirementsFromJson(json::Element array);
void WriteTableRequirement(JsonWriter& writer, const TableRequirement& requirement);

}  // namespace skade::spec
