// Table metadata (spec: "Table Metadata Fields"), format versions 1 to 3.
//
// A plain value. It is built by TableMetadataBuilder or parsed by
// TableMetadataFromJson, which call Finalize() to compute the lookup indexes,
// and is then shared as TableMetadataPtr and never mutated again — which is
// what lets readers use it without locks.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/snapshot.h"
#include "skade/spec/sort_order.h"
#include "skade/spec/statistics.h"

namespace skade::spec {

inline constexpr int kMinFormatVersion = 1;
inline constexpr int kMaxFormatVersion = 3;
inline constexpr int kDefaultFormatVersion = 2;

struct TableMetadata {
  int format_version = kDefaultFormatVersion;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<SchemaPtr> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpecPtr> partition_specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = PartitionSpec::kPartitionDataIdStart - 1;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<SnapshotPtr> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrderPtr> sort_orders;
  int32_t default_sort_order_id = SortOrder::kUnsortedOrderId;
  std::map<std::string, SnapshotRef> refs;
  std::vector<StatisticsFile> statistics;
  std::vector<PartitionStatisticsFile> partition_statistics;
  /// v3 row lineage: the next row id to assign.
  int64_t next_row_id = 0;
  std::vector<EncryptionKey> encryption_keys;

  /// Recomputes the lookup indexes. Call after changing the vectors above.
  void Finalize();

  const SchemaPtr& Schema() const;  // the current schema; null if missing
  SchemaPtr SchemaById(int32_t id) const;
  PartitionSpecPtr Spec() const;  // the default spec
  PartitionSpecPtr SpecById(int32_t id) const;
  SortOrderPtr SortOrder() const;  // the default sort order
  SortOrderPtr SortOrderById(int32_t id) const;
  SnapshotPtr SnapshotById(int64_t id) const;
  SnapshotPtr CurrentSnapshot() const;
  const SnapshotRef* Ref(std::string_view name) const;
  /// The snapshot a branch or tag points at, or null.
  SnapshotPtr SnapshotForRef(std::string_view name) const;

  std::string Property(std::string_view key, std::string_view default_value) const;
  int64_t PropertyAsInt(std::string_view key, int64_t default_value) const;
  bool PropertyAsBool(std::string_view key, bool default_value) const;

  /// Field-by-field equality of the spec content (indexes ignored).
  bool Equals(const TableMetadata& other) const;

 private:
  absl::flat_hash_map<int64_t, SnapshotPtr> snapshot_index_;
  SchemaPtr current_schema_;
};

using TableMetadataPtr = std::shared_ptr<const TableMetadata>;

}  // namespace skade::spec
