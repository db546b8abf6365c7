// Applies TableUpdates to table metadata and records the changes — the one
// commit path every writer in skade (C++ API, REST, ingest, coalescer) uses.
//
// Semantics follow the Iceberg spec and the reference implementation (see
// ../shared/specs/REST-CHECKLIST.md §2): −1 means "last added in this
// commit", identical schemas/specs/orders reuse their ids, sequence-number
// and first-row-id checks, snapshot-log and metadata-log maintenance,
// `write.metadata.previous-versions-max`. Errors: kInvalidArgument for an
// invalid update, kCommitFailed (retryable) for a stale sequence number or
// row id. Not thread-safe; one builder per commit attempt.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "skade/spec/table_metadata.h"
#include "skade/spec/table_update.h"
#include "skade/util/result.h"

namespace skade::spec {

class TableMetadataBuilder {
 public:
  /// Starts a commit on top of `base`, whose file is `base_location` (may be
  /// empty for a staged table; then no metadata-log entry is added).
  static TableMetadataBuilder BuildFrom(TableMetadataPtr base, std::string base_location);
  /// Starts a new table at `format_version` with no schema, spec or order.
  static TableMetadataBuilder BuildFromEmpty(int format_version = kDefaultFormatVersion);

  /// Applies one update (dispatching on its action).
  Status Apply(const TableUpdate& update);
  Status ApplyAll(const std::vector<TableUpdate>& updates);

  Status AssignUuid(const std::string& uuid);
  Status UpgradeFormatVersion(int format_version);
  Status AddSchema(const SchemaPtr& schema, std::optional<int32_t> last_column_id = std::nullopt);
  Status SetCurrentSchema(int32_t schema_id);
  Status AddPartitionSpec(const PartitionSpecPtr& spec);
  Status SetDefaultSpec(int32_t spec_id);
  Status AddSortOrder(const SortOrderPtr& order);
  Status SetDefaultSortOrder(int32_t order_id);
  Status AddSnapshot(const SnapshotPtr& snapshot);
  Status SetRef(const std::string& name, const SnapshotRef& ref);
  Status RemoveSnapshots(const std::vector<int64_t>& snapshot_ids);
  Status RemoveRef(const std::string& name);
  Status SetLocation(const std::string& location);
  Status SetProperties(const std::map<std::string, std::string>& updates);
  Status RemoveProperties(const std::vector<std::string>& removals);
  Status SetStatistics(const StatisticsFile& statistics);
  Status RemoveStatistics(int64_t snapshot_id);
  Status SetPartitionStatistics(const PartitionStatisticsFile& statistics);
  Status RemovePartitionStatistics(int64_t snapshot_id);
  Status RemovePartitionSpecs(const std::vector<int32_t>& spec_ids);
  Status RemoveSchemas(const std::vector<int32_t>& schema_ids);
  Status AddEncryptionKey(const EncryptionKey& key);
  Status RemoveEncryptionKey(const std::string& key_id);

  /// The updates that changed something, in order, with −1 ids resolved.
  const std::vector<TableUpdate>& changes() const { return changes_; }
  bool HasChanges() const { return !changes_.empty(); }

  /// Validates the result and produces the new metadata: sets
  /// last-updated-ms, appends the base file to metadata-log (trimmed to
  /// previous-versions-max), and finalizes snapshot-log. The builder must
  /// not be used afterwards.
  Result<TableMetadataPtr> Build();

  /// Metadata-log entries that fell out of the log in Build() (to delete
  /// when write.metadata.delete-after-commit.enabled is set).
  const std::vector<MetadataLogEntry>& removed_metadata_log() const { return removed_log_; }

 private:
  TableMetadataBuilder() = default;

  TableMetadataPtr base_;
  std::string base_location_;
  TableMetadata metadata_;
  std::vector<TableUpdate> changes_;
  std::vector<MetadataLogEntry> removed_log_;
  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_spec_id_;
  std::optional<int32_t> last_added_order_id_;
  std::vector<int64_t> added_snapshot_ids_;
  bool is_new_ = false;
};

/// Metadata for a new table as Iceberg's `newTableMetadata` builds it: fresh
/// field ids for the schema (1…n), spec fields re-bound to them with ids from
/// 1000, the sort order re-bound, reserved properties removed, and
/// `format-version` taken from `properties` when present (default 2).
/// Errors are kInvalidArgument.
Result<TableMetadataPtr> NewTableMetadata(const Schema& schema, const PartitionSpec& spec,
                                          const SortOrder& order, const std::string& location,
                                          const std::map<std::string, std::string>& properties,
                                          std::optional<int> format_version = std::nullopt);

}  // namespace skade::spec
