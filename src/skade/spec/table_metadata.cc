#include "skade/spec/table_metadata.h"

#include "skade/util/strings.h"

namespace skade::spec {

void TableMetadata::Finalize() {
  auto index = std::make_shared<SnapshotIndex>();
  index->reserve(snapshots.size());
  for (const auto& snapshot : snapshots) index->emplace(snapshot->snapshot_id, snapshot);
  snapshot_index_ = std::move(index);
  current_schema_ = SchemaById(current_schema_id);
}

void TableMetadata::FinalizeAppended(size_t appended) {
  const size_t indexed = snapshot_index_ ? snapshot_index_->size() : 0;
  // Not the copy of a finalized metadata after all, or a tail that is no
  // longer short: index every snapshot.
  if (!snapshot_index_ || appended > snapshots.size() || indexed > snapshots.size() - appended ||
      snapshots.size() - indexed > kMaxUnindexedSnapshots) {
    Finalize();
    return;
  }
  current_schema_ = SchemaById(current_schema_id);
}

const SchemaPtr& TableMetadata::Schema() const { return current_schema_; }

SchemaPtr TableMetadata::SchemaById(int32_t id) const {
  for (const auto& schema : schemas) {
    if (schema->schema_id() == id) return schema;
  }
  return nullptr;
}

PartitionSpecPtr TableMetadata::Spec() const { return SpecById(default_spec_id); }

PartitionSpecPtr TableMetadata::SpecById(int32_t id) const {
  for (const auto& spec : partition_specs) {
    if (spec->spec_id == id) return spec;
  }
  return nullptr;
}

SortOrderPtr TableMetadata::SortOrder() const { return SortOrderById(default_sort_order_id); }

SortOrderPtr TableMetadata::SortOrderById(int32_t id) const {
  for (const auto& order : sort_orders) {
    if (order->order_id == id) return order;
  }
  return nullptr;
}

SnapshotPtr TableMetadata::SnapshotById(int64_t id) const {
  if (!snapshot_index_) return nullptr;
  // The newest first: the current snapshot is usually the last appended.
  for (size_t i = snapshots.size(); i > snapshot_index_->size(); --i) {
    if (snapshots[i - 1]->snapshot_id == id) return snapshots[i - 1];
  }
  auto it = snapshot_index_->find(id);
  return it == snapshot_index_->end() ? nullptr : it->second;
}

SnapshotPtr TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? SnapshotById(*current_snapshot_id) : nullptr;
}

const SnapshotRef* TableMetadata::Ref(std::string_view name) const {
  auto it = refs.find(std::string(name));
  return it == refs.end() ? nullptr : &it->second;
}

SnapshotPtr TableMetadata::SnapshotForRef(std::string_view name) const {
  const SnapshotRef* ref = Ref(name);
  return ref == nullptr ? nullptr : SnapshotById(ref->snapshot_id);
}

std::string TableMetadata::Property(std::string_view key, std::string_view default_value) const {
  auto it = properties.find(std::string(key));
  return it == properties.end() ? std::string(default_value) : it->second;
}

int64_t TableMetadata::PropertyAsInt(std::string_view key, int64_t default_value) const {
  auto it = properties.find(std::string(key));
  if (it == properties.end()) return default_value;
  return ParseInt64(it->second).value_or(default_value);
}

bool TableMetadata::PropertyAsBool(std::string_view key, bool default_value) const {
  auto it = properties.find(std::string(key));
  if (it == properties.end()) return default_value;
  return AsciiLower(it->second) == "true";
}

namespace {

template <typename T>
bool PointeeVectorsEqual(const std::vector<std::shared_ptr<const T>>& a,
                         const std::vector<std::shared_ptr<const T>>& b,
                         bool (*equal)(const T&, const T&)) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!equal(*a[i], *b[i])) return false;
  }
  return true;
}

}  // namespace

bool TableMetadata::Equals(const TableMetadata& other) const {
  auto schema_equal = [](const spec::Schema& a, const spec::Schema& b) {
    return a.schema_id() == b.schema_id() && a.SameSchema(b);
  };
  auto spec_equal = [](const PartitionSpec& a, const PartitionSpec& b) {
    return a.spec_id == b.spec_id && a.fields == b.fields;
  };
  auto order_equal = [](const spec::SortOrder& a, const spec::SortOrder& b) {
    return a.order_id == b.order_id && a.fields == b.fields;
  };
  auto snapshot_equal = [](const Snapshot& a, const Snapshot& b) { return a == b; };
  return format_version == other.format_version && table_uuid == other.table_uuid &&
         location == other.location && last_sequence_number == other.last_sequence_number &&
         last_updated_ms == other.last_updated_ms && last_column_id == other.last_column_id &&
         PointeeVectorsEqual<spec::Schema>(schemas, other.schemas, schema_equal) &&
         current_schema_id == other.current_schema_id &&
         PointeeVectorsEqual<PartitionSpec>(partition_specs, other.partition_specs, spec_equal) &&
         default_spec_id == other.default_spec_id && last_partition_id == other.last_partition_id &&
         properties == other.properties && current_snapshot_id == other.current_snapshot_id &&
         PointeeVectorsEqual<Snapshot>(snapshots, other.snapshots, snapshot_equal) &&
         snapshot_log == other.snapshot_log && metadata_log == other.metadata_log &&
         PointeeVectorsEqual<spec::SortOrder>(sort_orders, other.sort_orders, order_equal) &&
         default_sort_order_id == other.default_sort_order_id && refs == other.refs &&
         statistics == other.statistics && partition_statistics == other.partition_statistics &&
         next_row_id == other.next_row_id && encryption_keys == other.encryption_keys;
}

}  // namespace skade::spec
