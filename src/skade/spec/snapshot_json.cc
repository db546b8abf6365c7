// JSON form of snapshots and snapshot references (spec: Appendix C, "Table
// Metadata and Snapshots").
#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"
#include "skade/util/strings.h"

namespace skade::spec {

void WriteSnapshot(JsonWriter& writer, const Snapshot& snapshot, int format_version) {
  writer.StartObject();
  if (format_version >= 2) writer.Field("sequence-number", snapshot.sequence_number);
  writer.Field("snapshot-id", snapshot.snapshot_id);
  if (snapshot.parent_snapshot_id) {
    writer.Field("parent-snapshot-id", *snapshot.parent_snapshot_id);
  }
  writer.Field("timestamp-ms", snapshot.timestamp_ms);
  if (!snapshot.summary.empty()) {
    writer.Key("summary");
    writer.StartObject();
    // Readers that stream the summary expect the operation first.
    auto operation = snapshot.summary.find("operation");
    if (operation != snapshot.summary.end()) writer.Field("operation", operation->second);
    for (const auto& [key, value] : snapshot.summary) {
      if (key != "operation") writer.Field(key, value);
    }
    writer.EndObject();
  }
  if (!snapshot.manifest_list.empty()) {
    writer.Field("manifest-list", snapshot.manifest_list);
  } else {
    writer.Key("manifests");
    writer.StartArray();
    for (const auto& manifest : snapshot.manifests) writer.String(manifest);
    writer.EndArray();
  }
  if (snapshot.schema_id) writer.Field("schema-id", *snapshot.schema_id);
  if (snapshot.first_row_id) writer.Field("first-row-id", *snapshot.first_row_id);
  if (snapshot.added_rows) writer.Field("added-rows", *snapshot.added_rows);
  if (snapshot.key_id) writer.Field("key-id", *snapshot.key_id);
  writer.EndObject();
}

Result<SnapshotPtr> SnapshotFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "snapshot"));
  auto snapshot = std::make_shared<Snapshot>();
  SKADE_ASSIGN_OR_RAISE(auto sequence_number, json::GetOptionalInt64(object, "sequence-number"));
  snapshot->sequence_number = sequence_number.value_or(0);
  SKADE_ASSIGN_OR_RAISE(snapshot->snapshot_id, json::GetInt64(object, "snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(snapshot->parent_snapshot_id,
                        json::GetOptionalInt64(object, "parent-snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(snapshot->timestamp_ms, json::GetInt64(object, "timestamp-ms"));
  if (auto summary = json::Find(object, "summary")) {
    SKADE_ASSIGN_OR_RAISE(snapshot->summary, json::ToStringMap(*summary, "summary"));
    // As Java does: a summary without an operation is read as an overwrite,
    // the most conservative operation for readers.
    if (!snapshot->summary.empty() && !snapshot->summary.contains("operation")) {
      snapshot->summary.emplace("operation", kOperationOverwrite);
    }
  }
  if (json::Find(object, "manifest-list")) {
    SKADE_ASSIGN_OR_RAISE(snapshot->manifest_list, json::GetString(object, "manifest-list"));
    if (snapshot->manifest_list.empty()) {
      return InvalidArgument("Invalid snapshot ", snapshot->snapshot_id, ": empty manifest-list");
    }
  } else if (json::Find(object, "manifests")) {
    SKADE_ASSIGN_OR_RAISE(snapshot->manifests, json::GetStringList(object, "manifests"));
  } else {
    return InvalidArgument("Cannot parse missing string: manifest-list");
  }
  SKADE_ASSIGN_OR_RAISE(snapshot->schema_id, json::GetOptionalInt32(object, "schema-id"));
  SKADE_ASSIGN_OR_RAISE(snapshot->first_row_id, json::GetOptionalInt64(object, "first-row-id"));
  SKADE_ASSIGN_OR_RAISE(snapshot->added_rows, json::GetOptionalInt64(object, "added-rows"));
  SKADE_ASSIGN_OR_RAISE(snapshot->key_id, json::GetOptionalString(object, "key-id"));
  return snapshot;
}

void WriteSnapshotRef(JsonWriter& writer, const SnapshotRef& ref) {
  writer.StartObject();
  writer.Field("snapshot-id", ref.snapshot_id);
  writer.Field("type", ref.is_branch() ? "branch" : "tag");
  if (ref.min_snapshots_to_keep) writer.Field("min-snapshots-to-keep", *ref.min_snapshots_to_keep);
  if (ref.max_snapshot_age_ms) writer.Field("max-snapshot-age-ms", *ref.max_snapshot_age_ms);
  if (ref.max_ref_age_ms) writer.Field("max-ref-age-ms", *ref.max_ref_age_ms);
  writer.EndObject();
}

Result<SnapshotRef> SnapshotRefFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "snapshot reference"));
  SnapshotRef ref;
  SKADE_ASSIGN_OR_RAISE(ref.snapshot_id, json::GetInt64(object, "snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(auto type, json::GetString(object, "type"));
  if (EqualsIgnoreCase(type, "branch")) {
    ref.type = SnapshotRefType::kBranch;
  } else if (EqualsIgnoreCase(type, "tag")) {
    ref.type = SnapshotRefType::kTag;
  } else {
    return InvalidArgument("Invalid snapshot ref type: ", type);
  }
  SKADE_ASSIGN_OR_RAISE(ref.min_snapshots_to_keep,
                        json::GetOptionalInt32(object, "min-snapshots-to-keep"));
  SKADE_ASSIGN_OR_RAISE(ref.max_snapshot_age_ms,
                        json::GetOptionalInt64(object, "max-snapshot-age-ms"));
  SKADE_ASSIGN_OR_RAISE(ref.max_ref_age_ms, json::GetOptionalInt64(object, "max-ref-age-ms"));
  if (!ref.is_branch() && (ref.min_snapshots_to_keep || ref.max_snapshot_age_ms)) {
    return InvalidArgument(
        "Tags do not support setting min-snapshots-to-keep or max-snapshot-age-ms");
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
  return ref;
}

}  // namespace skade::spec
