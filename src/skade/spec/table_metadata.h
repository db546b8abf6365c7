// Table metadata (spec: "Table Metadata Fields"), format versions 1 to 3.
//
// A plain value. It is built by TableMetadataBuilder or parsed by
// TableMetadataFromJson, which call Finalize() to compute the lookup indexes,
// and is then shared as TableMetadataPtr and never mutated again — which is
// what lets readers use it without locks.
//
// Besides the spec's fields it carries a SerializedFormMemo: the serialized
// forms table_metadata_json.cc keeps so that a table's history is not
// written again on every commit. It is not part of the value (Equals ignores
// it) and never changes what is serialized, only how fast.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/metadata_log.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/snapshot.h"
#include "skade/spec/sort_order.h"
#include "skade/spec/statistics.h"

namespace skade::spec {

inline constexpr int kMinFormatVersion = 1;
inline constexpr int kMaxFormatVersion = 3;
inline constexpr int kDefaultFormatVersion = 2;

namespace internal {
struct MetadataJsonParts;  // table_metadata_json.cc
}  // namespace internal

/// What the serializer remembers about a metadata object (see
/// table_metadata_json.h). Two kinds, copied differently:
/// - the reusable parts (the JSON of every snapshot, snapshot-log and
///   metadata-log entry last written, with what each was written from) are
///   copied with the metadata: a builder's copy of the base starts with the
///   base's parts, and the serializer uses an element's text only where the
///   copy still holds that very snapshot (the same object, which is
///   immutable) or an equal log entry, so a stale part is never used;
/// - the refs-only JSON is a result for this object alone and starts empty
///   in every copy (a copy is about to change).
/// Thread-safe: both are atomic shared pointers, set at most once per
/// serialization and read without locks.
class SerializedFormMemo {
 public:
  SerializedFormMemo() = default;
  SerializedFormMemo(const SerializedFormMemo& other) : parts_(other.parts_.load()) {}
  SerializedFormMemo& operator=(const SerializedFormMemo& other) {
    if (this != &other) {
      parts_.store(other.parts_.load());
      refs_json_.store(nullptr);
    }
    return *this;
  }

  std::shared_ptr<const internal::MetadataJsonParts> parts() const { return parts_.load(); }
  void set_parts(std::shared_ptr<const internal::MetadataJsonParts> parts) const {
    parts_.store(std::move(parts));
  }
  std::shared_ptr<const std::string> refs_json() const { return refs_json_.load(); }
  /// Keeps `json` unless another thread set one first; returns the one kept.
  std::shared_ptr<const std::string> set_refs_json(std::shared_ptr<const std::string> json) const {
    std::shared_ptr<const std::string> expected;
    if (refs_json_.compare_exchange_strong(expected, json)) return json;
    return expected;
  }

 private:
  mutable std::atomic<std::shared_ptr<const internal::MetadataJsonParts>> parts_;
  mutable std::atomic<std::shared_ptr<const std::string>> refs_json_;
};

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
  MetadataLog metadata_log;
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

  /// The serializer's memo (table_metadata_json.cc); not part of the value.
  const SerializedFormMemo& serialized_form_memo() const { return serialized_form_memo_; }

 private:
  friend class TableMetadataBuilder;
  using SnapshotIndex = absl::flat_hash_map<int64_t, SnapshotPtr>;

  // Finalize() for a copy of a finalized metadata whose snapshots only had
  // `appended` snapshots added at the end since: keeps the copied index, and
  // SnapshotById scans the snapshots past it, until there are more than
  // kMaxUnindexedSnapshots of them (TableMetadataBuilder). An append then
  // costs no copy of an index of the whole history.
  void FinalizeAppended(size_t appended);
  static constexpr size_t kMaxUnindexedSnapshots = 32;

  // Indexes the first size() snapshots; the ones after those were appended
  // since it was built. Shared by copies (an index is never changed
  // once built), so copying a table's metadata does not copy it.
  std::shared_ptr<const SnapshotIndex> snapshot_index_;
  SchemaPtr current_schema_;
  SerializedFormMemo serialized_form_memo_;
};

using TableMetadataPtr = std::shared_ptr<const TableMetadata>;

}  // namespace skade::spec
