// JSON forms of the spec model's parts (spec: "Appendix C: JSON
// serialization"): types, schemas, partition specs, sort orders, snapshots,
// refs, statistics files and encryption keys.
//
// Readers take simdjson elements and return kInvalidArgument with a message
// naming the offending field. Writers never fail. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/snapshot.h"
#include "skade/spec/sort_order.h"
#include "skade/spec/statistics.h"
#include "skade/spec/type.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::spec {

void WriteType(JsonWriter& writer, const Type& type);
void WriteNestedField(JsonWriter& writer, const NestedField& field);
void WriteSchema(JsonWriter& writer, const Schema& schema);
void WritePartitionSpec(JsonWriter& writer, const PartitionSpec& spec);
/// The v1 legacy form: just the array of partition fields.
void WritePartitionFields(JsonWriter& writer, const PartitionSpec& spec);
void WriteSortOrder(JsonWriter& writer, const SortOrder& order);
/// `sequence-number` is written only for format version 2 and later.
void WriteSnapshot(JsonWriter& writer, const Snapshot& snapshot, int format_version);
void WriteSnapshotRef(JsonWriter& writer, const SnapshotRef& ref);
void WriteStatisticsFile(JsonWriter& writer, const StatisticsFile& file);
void WritePartitionStatisticsFile(JsonWriter& writer, const PartitionStatisticsFile& file);
void WriteEncryptionKey(JsonWriter& writer, const EncryptionKey& key);

/// A primitive type name or a struct/list/map object. Field defaults are
/// kept as their compact JSON text.
Result<TypePtr> TypeFromJson(json::Element element);
Result<NestedField> NestedFieldFromJson(json::Element element);
/// A missing `schema-id` (old v1 writers) reads as 0. Structural rules
/// (unique ids, identifier fields) are checked by Schema::Validate, not here.
Result<SchemaPtr> SchemaFromJson(json::Element element);
/// A single field must carry its `field-id`.
Result<PartitionField> PartitionFieldFromJson(json::Element element);
/// Fields without `field-id` (old v1 writers) get 1000, 1001, … in order;
/// a spec mixing fields with and without ids is an error. `source-ids` with
/// one entry reads as `source-id`.
Result<PartitionSpecPtr> PartitionSpecFromJson(json::Element element);
/// As PartitionSpecFromJson, for a spec a client sends in a create-table
/// request: `spec-id` may be left out (the REST spec marks it read-only;
/// iceberg-rust omits it), meaning the initial spec id.
Result<PartitionSpecPtr> RequestedPartitionSpecFromJson(json::Element element);
/// Order id 0 must be the unsorted order and the unsorted order must be 0.
Result<SortOrderPtr> SortOrderFromJson(json::Element element);
/// `sequence-number` absent (v1) reads as 0; a non-empty summary without
/// `operation` reads as "overwrite" (as Java does). Ids are exact 64-bit.
Result<SnapshotPtr> SnapshotFromJson(json::Element element);
/// Tags must not carry branch retention; retention values must be positive.
Result<SnapshotRef> SnapshotRefFromJson(json::Element element);
Result<StatisticsFile> StatisticsFileFromJson(json::Element element);
Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(json::Element element);
Result<EncryptionKey> EncryptionKeyFromJson(json::Element element);

/// Whole-document conveniences (parse a complete JSON text with the calling
/// thread's parser, which every *FromJsonString call reuses).
std::string SchemaToJson(const Schema& schema);
Result<SchemaPtr> SchemaFromJsonString(std::string_view text);
std::string PartitionSpecToJson(const PartitionSpec& spec);
Result<PartitionSpecPtr> PartitionSpecFromJsonString(std::string_view text);
std::string SortOrderToJson(const SortOrder& order);
Result<SortOrderPtr> SortOrderFromJsonString(std::string_view text);

}  // namespace skade::spec
