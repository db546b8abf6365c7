// Small builders of spec values for the commit-semantics tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skade/spec/new_table_metadata.h"
#include "skade/spec/table_metadata_builder.h"

namespace skade::spec::testing {

inline NestedField Field(int32_t id, std::string name, TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), std::move(type), required, {}, {}, {}};
}

/// id: long (required), data: string, ts: timestamptz.
inline SchemaPtr SimpleSchema(int32_t schema_id = 0) {
  return std::make_shared<const Schema>(
      schema_id,
      std::vector<NestedField>{Field(1, "id", Type::Long(), true), Field(2, "data", Type::String()),
                               Field(3, "ts", Type::TimestampTz())});
}

/// SimpleSchema plus `extra: int` (id 4).
inline SchemaPtr WiderSchema(int32_t schema_id = 0) {
  return std::make_shared<const Schema>(
      schema_id, std::vector<NestedField>{
                     Field(1, "id", Type::Long(), true), Field(2, "data", Type::String()),
                     Field(3, "ts", Type::TimestampTz()), Field(4, "extra", Type::Int())});
}

inline PartitionField PartitionBy(int32_t source_id, int32_t field_id, std::string name,
                                  Transform transform) {
  PartitionField field;
  field.source_id = source_id;
  field.field_id = field_id;
  field.name = std::move(name);
  field.transform = transform;
  return field;
}

inline PartitionSpecPtr Spec(std::vector<PartitionField> fields, int32_t spec_id = 0) {
  auto spec = std::make_shared<PartitionSpec>();
  spec->spec_id = spec_id;
  spec->fields = std::move(fields);
  return spec;
}

inline SortOrderPtr Order(std::vector<SortField> fields, int32_t order_id = 0) {
  auto order = std::make_shared<SortOrder>();
  order->order_id = order_id;
  order->fields = std::move(fields);
  return order;
}

inline SortField SortBy(int32_t source_id, SortDirection direction = SortDirection::kAsc) {
  SortField field;
  field.transform = Transform::Identity();
  field.source_id = source_id;
  field.direction = direction;
  field.null_order = NullOrder::kNullsFirst;
  return field;
}

inline SnapshotPtr MakeSnapshot(int64_t id, std::optional<int64_t> parent, int64_t sequence_number,
                                int64_t timestamp_ms,
                                std::optional<int64_t> first_row_id = std::nullopt,
                                std::optional<int64_t> added_rows = std::nullopt) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->snapshot_id = id;
  snapshot->parent_snapshot_id = parent;
  snapshot->sequence_number = sequence_number;
  snapshot->timestamp_ms = timestamp_ms;
  snapshot->manifest_list = "file:/tmp/t/metadata/snap-" + std::to_string(id) + ".avro";
  snapshot->summary = {{"operation", "append"}};
  snapshot->schema_id = 0;
  snapshot->first_row_id = first_row_id;
  snapshot->added_rows = added_rows;
  return snapshot;
}

inline SnapshotRef Branch(int64_t snapshot_id) {
  SnapshotRef ref;
  ref.snapshot_id = snapshot_id;
  ref.type = SnapshotRefType::kBranch;
  return ref;
}

inline SnapshotRef Tag(int64_t snapshot_id) {
  SnapshotRef ref;
  ref.snapshot_id = snapshot_id;
  ref.type = SnapshotRefType::kTag;
  return ref;
}

/// A new unpartitioned, unsorted table with SimpleSchema.
inline TableMetadataPtr NewTable(int format_version = 2,
                                 std::map<std::string, std::string> properties = {}) {
  auto result = NewTableMetadata(*SimpleSchema(), *PartitionSpec::Unpartitioned(),
                                 *SortOrder::Unsorted(), "file:/tmp/t", properties, format_version);
  EXPECT_TRUE(result.has_value()) << result.error().ToString();
  return *result;
}

/// Applies `updates` on top of `base` and builds; fails the test on error.
inline TableMetadataPtr Commit(const TableMetadataPtr& base,
                               const std::vector<TableUpdate>& updates,
                               std::string base_location = "file:/tmp/t/metadata/v.metadata.json") {
  auto builder = TableMetadataBuilder::BuildFrom(base, std::move(base_location));
  auto applied = builder.ApplyAll(updates);
  EXPECT_TRUE(applied.has_value()) << applied.error().ToString();
  auto built = builder.Build();
  EXPECT_TRUE(built.has_value()) << built.error().ToString();
  return built.has_value() ? *built : nullptr;
}

}  // namespace skade::spec::testing
