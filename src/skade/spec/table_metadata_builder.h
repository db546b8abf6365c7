// Applies TableUpdates to table metadata and records the changes — the one
// commit path every writer in skade (C++ API, REST, ingest, coalescer) uses.
//
// Semantics follow the Iceberg spec and the reference implementation
// (Iceberg Java's TableMetadata.Builder): −1 means "last added in this
// commit", identical schemas/specs/orders reuse their ids, sequence-number
// and first-row-id checks, snapshot-log and metadata-log maintenance,
// `write.metadata.previous-versions-max`. Errors: kInvalidArgument for an
// invalid update, kCommitFailed (retryable) for a stale sequence number or
// row id. A failed update changes nothing, so the caller may report it and
// drop the builder. Not thread-safe; one builder per commit attempt.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

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
  /// Starts a commit on top of `base` (not null), whose file is
  /// `base_location` (may be empty for a staged table; then no metadata-log
  /// entry is added).
  static TableMetadataBuilder BuildFrom(TableMetadataPtr base, std::string base_location);
  /// Starts a new table at `format_version` with a fresh random uuid and no
  /// schema, spec or order.
  static TableMetadataBuilder BuildFromEmpty(int format_version = kDefaultFormatVersion);

  /// Applies one update (dispatching on its action).
  Status Apply(const TableUpdate& update);
  /// Applies `updates` in order; stops at the first error.
  Status ApplyAll(const std::vector<TableUpdate>& updates);

  /// Sets the uuid of a new table (or of a v1 table that has none). A
  /// different uuid on an existing table is kInvalidArgument.
  Status AssignUuid(const std::string& uuid);
  /// No-op if equal; a downgrade or a version above 3 is kInvalidArgument.
  /// On a new table before any schema is added this sets the initial version
  /// (the REST create path), so a lower version is accepted there.
  Status UpgradeFormatVersion(int format_version);
  /// Adds `schema` unless an identical one exists (then its id is reused);
  /// a new schema gets max id + 1. last-column-id becomes the larger of the
  /// current value and the schema's highest field id: an add-schema's own
  /// last-column-id is not taken (as in Iceberg Java), since a client's
  /// INT32_MAX would leave no id for the next column.
  Status AddSchema(const SchemaPtr& schema);
  /// `schema_id` kLastAdded means the schema of this commit's last AddSchema.
  Status SetCurrentSchema(int32_t schema_id);
  /// Adds `spec` unless a compatible one exists (PartitionSpec::
  /// CompatibleWith: field ids ignored). Fields whose field_id is 0 (not
  /// given by the client) get last-partition-id + 1, … (v1: 1000 + position,
  /// as v1 requires sequential ids); then PartitionSpec::Validate binds it
  /// to the current schema. Raises last-partition-id.
  Status AddPartitionSpec(const PartitionSpecPtr& spec);
  Status SetDefaultSpec(int32_t spec_id);
  /// The unsorted order always has id 0; other orders reuse an identical
  /// order's id or get max id + 1 (at least 1), after SortOrder::Validate
  /// against the current schema.
  Status AddSortOrder(const SortOrderPtr& order);
  Status SetDefaultSortOrder(int32_t order_id);
  /// Adds a snapshot without moving any ref. kCommitFailed (retryable) when
  /// its sequence number (v2+) or first-row-id (v3) is behind the table.
  Status AddSnapshot(const SnapshotPtr& snapshot);
  /// Sets a branch or tag. Setting `main` moves the current snapshot and
  /// appends a snapshot-log entry.
  Status SetRef(const std::string& name, const SnapshotRef& ref);
  /// Removes the snapshots (unknown ids are ignored), their statistics and
  /// partition statistics, and every ref left pointing at a removed snapshot.
  Status RemoveSnapshots(const std::vector<int64_t>& snapshot_ids);
  /// Removing `main` clears the current snapshot.
  Status RemoveRef(const std::string& name);
  /// Trailing slashes are removed, as Iceberg does.
  Status SetLocation(const std::string& location);
  Status SetProperties(const std::map<std::string, std::string>& updates);
  /// Keys that are not set are ignored.
  Status RemoveProperties(const std::vector<std::string>& removals);
  /// Replaces the statistics file of `statistics.snapshot_id`.
  Status SetStatistics(const StatisticsFile& statistics);
  Status RemoveStatistics(int64_t snapshot_id);
  Status SetPartitionStatistics(const PartitionStatisticsFile& statistics);
  Status RemovePartitionStatistics(int64_t snapshot_id);
  /// The default spec cannot be removed; unknown ids are ignored.
  Status RemovePartitionSpecs(const std::vector<int32_t>& spec_ids);
  /// The current schema cannot be removed; unknown ids are ignored.
  Status RemoveSchemas(const std::vector<int32_t>& schema_ids);
  /// Format version 3 and later. A key id that exists already is a no-op.
  Status AddEncryptionKey(const EncryptionKey& key);
  Status RemoveEncryptionKey(const std::string& key_id);

  /// The updates that changed something, in order, with −1 ids resolved.
  /// Replaying them on the same base gives the same metadata.
  const std::vector<TableUpdate>& changes() const { return changes_; }
  bool HasChanges() const { return !changes_.empty(); }

  /// Validates the result (the default spec must still be compatible with
  /// the current schema, the default order valid for it, refs and the
  /// current snapshot consistent) and produces the new metadata: sets
  /// last-updated-ms, appends the base file to metadata-log (trimmed to
  /// previous-versions-max), and finalizes snapshot-log. Without changes it
  /// returns the base unchanged. Afterwards only changes() and
  /// removed_metadata_log() may be used.
  Result<TableMetadataPtr> Build();

  /// Metadata-log entries that fell out of the log in Build() (to delete
  /// when write.metadata.delete-after-commit.enabled is set).
  const MetadataLog& removed_metadata_log() const { return removed_log_; }

 private:
  TableMetadataBuilder() = default;

  // An identical schema's id, else the next free one (which may exceed the
  // int range; AddSchema rejects that).
  int64_t ReuseOrCreateSchemaId(const Schema& schema) const;
  /// kInvalidArgument for a field of `schema` with an empty name, or whose
  /// type the current schema's field of its id cannot be promoted to.
  Status CheckEvolution(const Schema& schema) const;
  /// kInvalidArgument if another spec's field has `field`'s id with other
  /// sources or another transform (v2+).
  Status CheckPartitionFieldId(const PartitionField& field) const;
  std::optional<int32_t> FindCompatibleSpecId(const PartitionSpec& spec) const;
  bool WasAddedInThisCommit(int64_t snapshot_id) const;
  // The snapshot with `id` in the metadata being built, or null.
  SnapshotPtr FindSnapshot(int64_t id) const;
  bool RemovedSnapshotsInThisCommit() const;
  // The time of this commit, fixed at first use so every entry agrees.
  int64_t CommitTimeMs();
  Status UpdateSnapshotLog();
  void AppendMetadataLog();
  Status ValidateResult() const;

  TableMetadataPtr base_;
  std::string base_location_;
  TableMetadata metadata_;
  std::vector<TableUpdate> changes_;
  MetadataLog removed_log_;
  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_spec_id_;
  std::optional<int32_t> last_added_order_id_;
  std::vector<int64_t> added_snapshot_ids_;
  // The snapshots this commit added, and the ids it removed: with the base's
  // index they answer FindSnapshot without indexing the whole history again.
  absl::flat_hash_map<int64_t, SnapshotPtr> added_snapshots_;
  absl::flat_hash_set<int64_t> removed_snapshot_ids_;
  std::optional<int64_t> commit_time_ms_;
  bool is_new_ = false;
};

}  // namespace skade::spec
