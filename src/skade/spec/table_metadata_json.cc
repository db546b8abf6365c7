#include "skade/spec/table_metadata_json.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "skade/spec/json_serde.h"
#include "skade/spec/json_serde_internal.h"
#include "skade/util/gzip.h"

namespace skade::spec {

namespace {

// v1 and v2 spell "no current snapshot" as -1 (v3 writes null instead).
constexpr int64_t kNoSnapshotId = -1;

void WriteSnapshotLogEntry(JsonWriter& writer, const SnapshotLogEntry& entry) {
  writer.StartObject();
  writer.Field("timestamp-ms", entry.timestamp_ms);
  writer.Field("snapshot-id", entry.snapshot_id);
  writer.EndObject();
}

void WriteMetadataLogEntry(JsonWriter& writer, const MetadataLog::Entry& entry) {
  writer.StartObject();
  writer.Field("timestamp-ms", entry.timestamp_ms);
  writer.Field("metadata-file", entry.metadata_file);
  writer.EndObject();
}

// What identifies an element's text: the snapshot object itself (immutable,
// and kept alive by the memo, so its address cannot be reused), or a log
// entry's whole value.
const Snapshot* ReuseKey(const SnapshotPtr& snapshot) { return snapshot.get(); }
std::pair<int64_t, int64_t> ReuseKey(const SnapshotLogEntry& entry) {
  return {entry.timestamp_ms, entry.snapshot_id};
}
std::pair<int64_t, std::string_view> ReuseKey(const MetadataLog::Entry& entry) {
  return {entry.timestamp_ms, entry.metadata_file};
}

}  // namespace

namespace internal {

// The elements of one array as last written ("e0,e1,…" at `start` in the
// document), and the items they were written from.
template <typename Items>
struct SerializedArray {
  Items items;
  size_t start = 0;
  std::vector<size_t> ends;  // ends[i]: one past element i, from `start`

  size_t Begin(size_t i) const { return i == 0 ? 0 : ends[i - 1] + 1; }
};

// Everything WriteTableMetadata reuses from the last serialization of a
// metadata object; immutable once published in a SerializedFormMemo.
struct MetadataJsonParts {
  int format_version = 0;  // snapshots are written per version
  // The document the arrays are in: for a metadata file, the very text the
  // file and the metadata cache hold (TableMetadataToSharedJson).
  std::shared_ptr<const std::string> document;
  SerializedArray<std::vector<SnapshotPtr>> snapshots;
  SerializedArray<std::vector<SnapshotLogEntry>> snapshot_log;
  SerializedArray<MetadataLog> metadata_log;
};

}  // namespace internal

namespace {

// Writes `items` as a JSON array, copying the text of every run of elements
// that `previous` (may be null) already holds in the same order and writing
// the others with `write`; records the result in `out` for the next version.
// The output is byte for byte what writing every element would give: an
// element's text depends only on its reuse key (and the format version,
// which the caller checks).
// `previous_text` is the document `previous` is in; `document_start` is
// where the document being written starts in `writer`. Each run of text
// copied from `previous_text` is appended to `copied`.
template <typename Items, typename Write>
void WriteArrayReusing(JsonWriter& writer, const Items& items,
                       const internal::SerializedArray<Items>* previous,
                       std::string_view previous_text, size_t document_start, Write write,
                       internal::SerializedArray<Items>* out, std::vector<CopySpan>* copied) {
  using Item = typename Items::value_type;
  using Key = decltype(ReuseKey(items.front()));
  writer.StartArray();
  const size_t content_start = writer.str().size();
  out->start = content_start - document_start;
  out->ends.reserve(items.size());
  // An element is looked for where the previous run ended and a few places
  // past it (a log that dropped its oldest entries). The index of every
  // element is built only after more misses than an append makes (one, at
  // its new element; indexing a long history for it cost more than the
  // whole rest of a commit): e.g. after old snapshots were expired.
  constexpr size_t kProbes = 4;
  constexpr int kMissesBeforeIndex = 8;
  absl::flat_hash_map<Key, size_t> index;
  int misses = 0;
  size_t guess = 0;
  auto find = [&](const Item& item) -> std::optional<size_t> {
    if (previous == nullptr) return std::nullopt;
    const auto& known = previous->items;
    for (size_t i = guess; i < std::min(known.size(), guess + kProbes); ++i) {
      if (ReuseKey(known[i]) == ReuseKey(item)) return i;
    }
    if (index.empty()) {
      if (++misses <= kMissesBeforeIndex) return std::nullopt;
      index.reserve(known.size());
      for (size_t i = 0; i < known.size(); ++i) index.try_emplace(ReuseKey(known[i]), i);
    }
    auto it = index.find(ReuseKey(item));
    if (it == index.end()) return std::nullopt;
    return it->second;
  };
  for (size_t j = 0; j < items.size();) {
    const size_t before = writer.str().size() + (j > 0 ? 1 : 0);  // past the comma
    if (auto first = find(items[j])) {
      size_t last = *first;  // inclusive
      while (last + 1 < previous->items.size() && j + (last - *first) + 1 < items.size() &&
             ReuseKey(previous->items[last + 1]) == ReuseKey(items[j + (last - *first) + 1])) {
        ++last;
      }
      const size_t begin = previous->Begin(*first);
      const size_t length = previous->ends[last] - begin;
      copied->push_back({before - document_start, previous->start + begin, length});
      writer.Raw(previous_text.substr(previous->start + begin, length));
      for (size_t i = *first; i <= last; ++i) {
        out->ends.push_back(before - content_start + (previous->ends[i] - begin));
      }
      j += last - *first + 1;
      guess = last + 1;
    } else {
      write(items[j]);
      out->ends.push_back(writer.str().size() - content_start);
      ++j;
    }
  }
  out->items = items;
  writer.EndArray();
}

// Writes the document and returns what the next version can reuse from it
// (all but `document`, which the caller sets to the text written). Where
// it copied the previous document's text goes to `copied`, if given.
std::shared_ptr<internal::MetadataJsonParts> WriteDocument(JsonWriter& writer,
                                                           const TableMetadata& metadata,
                                                           CopiedText* copied = nullptr) {
  const int version = metadata.format_version;
  const auto previous = metadata.serialized_form_memo().parts();
  std::vector<CopySpan> runs;
  const std::string_view previous_text = previous ? *previous->document : std::string_view();
  auto parts = std::make_shared<internal::MetadataJsonParts>();
  parts->format_version = version;
  const size_t document_start = writer.str().size();
  if (previous) writer.Reserve(document_start + previous_text.size() + 4096);
  writer.StartObject();
  writer.Field("format-version", static_cast<int32_t>(version));
  // Optional only in v1, and only for files written before uuids existed.
  if (!metadata.table_uuid.empty()) writer.Field("table-uuid", metadata.table_uuid);
  writer.Field("location", metadata.location);
  if (version >= 2) writer.Field("last-sequence-number", metadata.last_sequence_number);
  writer.Field("last-updated-ms", metadata.last_updated_ms);
  writer.Field("last-column-id", metadata.last_column_id);

  // v1 readers know only the single current schema and default spec.
  SchemaPtr current_schema = metadata.SchemaById(metadata.current_schema_id);
  if (version == 1 && current_schema) {
    writer.Key("schema");
    WriteSchema(writer, *current_schema);
  }
  writer.Field("current-schema-id", metadata.current_schema_id);
  writer.Key("schemas");
  writer.StartArray();
  for (const auto& schema : metadata.schemas) WriteSchema(writer, *schema);
  writer.EndArray();

  PartitionSpecPtr default_spec = metadata.SpecById(metadata.default_spec_id);
  if (version == 1 && default_spec) {
    writer.Key("partition-spec");
    WritePartitionFields(writer, *default_spec);
  }
  writer.Field("default-spec-id", metadata.default_spec_id);
  writer.Key("partition-specs");
  writer.StartArray();
  for (const auto& spec : metadata.partition_specs) WritePartitionSpec(writer, *spec);
  writer.EndArray();
  writer.Field("last-partition-id", metadata.last_partition_id);

  writer.Field("default-sort-order-id", metadata.default_sort_order_id);
  writer.Key("sort-orders");
  writer.StartArray();
  for (const auto& order : metadata.sort_orders) WriteSortOrder(writer, *order);
  writer.EndArray();

  internal::WriteStringMap(writer, "properties", metadata.properties);

  // As Java writes it: -1 for "none" before v3, null from v3 on.
  writer.Key("current-snapshot-id");
  if (metadata.current_snapshot_id) {
    writer.Int(*metadata.current_snapshot_id);
  } else if (version >= 3) {
    writer.Null();
  } else {
    writer.Int(kNoSnapshotId);
  }
  if (version >= 3) writer.Field("next-row-id", metadata.next_row_id);

  if (!metadata.encryption_keys.empty()) {
    writer.Key("encryption-keys");
    writer.StartArray();
    for (const auto& key : metadata.encryption_keys) WriteEncryptionKey(writer, key);
    writer.EndArray();
  }

  writer.Key("refs");
  writer.StartObject();
  for (const auto& [name, ref] : metadata.refs) {
    writer.Key(name);
    WriteSnapshotRef(writer, ref);
  }
  writer.EndObject();

  writer.Key("snapshots");
  WriteArrayReusing(
      writer, metadata.snapshots,
      previous && previous->format_version == version ? &previous->snapshots : nullptr,
      previous_text, document_start,
      [&](const SnapshotPtr& snapshot) { WriteSnapshot(writer, *snapshot, version); },
      &parts->snapshots, &runs);

  writer.Key("statistics");
  writer.StartArray();
  for (const auto& file : metadata.statistics) WriteStatisticsFile(writer, file);
  writer.EndArray();

  writer.Key("partition-statistics");
  writer.StartArray();
  for (const auto& file : metadata.partition_statistics) WritePartitionStatisticsFile(writer, file);
  writer.EndArray();

  writer.Key("snapshot-log");
  WriteArrayReusing(
      writer, metadata.snapshot_log, previous ? &previous->snapshot_log : nullptr, previous_text,
      document_start, [&](const SnapshotLogEntry& entry) { WriteSnapshotLogEntry(writer, entry); },
      &parts->snapshot_log, &runs);
  writer.Key("metadata-log");
  WriteArrayReusing(
      writer, metadata.metadata_log, previous ? &previous->metadata_log : nullptr, previous_text,
      document_start,
      [&](const MetadataLog::Entry& entry) { WriteMetadataLogEntry(writer, entry); },
      &parts->metadata_log, &runs);
  writer.EndObject();
  if (copied != nullptr) {
    *copied = CopiedText{};
    if (previous && !runs.empty()) *copied = CopiedText{previous->document, std::move(runs)};
  }
  return parts;
}

}  // namespace

void WriteTableMetadata(JsonWriter& writer, const TableMetadata& metadata) {
  const size_t document_start = writer.str().size();
  auto parts = WriteDocument(writer, metadata);
  // The writer keeps its text: the memo needs a copy of its own.
  parts->document = std::make_shared<const std::string>(writer.str(), document_start);
  metadata.serialized_form_memo().set_parts(std::move(parts));
}

std::string TableMetadataToJson(const TableMetadata& metadata) {
  JsonWriter writer;
  WriteTableMetadata(writer, metadata);
  return writer.Take();
}

std::shared_ptr<const std::string> TableMetadataToSharedJson(const TableMetadata& metadata,
                                                             CopiedText* copied) {
  JsonWriter writer;
  auto parts = WriteDocument(writer, metadata, copied);
  auto document = std::make_shared<const std::string>(writer.Take());
  parts->document = document;
  metadata.serialized_form_memo().set_parts(std::move(parts));
  return document;
}

TableMetadata WithReferencedSnapshotsOnly(const TableMetadata& metadata) {
  absl::flat_hash_set<int64_t> referenced;
  for (const auto& [name, ref] : metadata.refs) referenced.insert(ref.snapshot_id);
  TableMetadata copy = metadata;
  std::erase_if(copy.snapshots, [&](const SnapshotPtr& snapshot) {
    return !referenced.contains(snapshot->snapshot_id);
  });
  copy.Finalize();
  return copy;
}

std::shared_ptr<const std::string> ReferencedSnapshotsJson(const TableMetadata& metadata) {
  const SerializedFormMemo& memo = metadata.serialized_form_memo();
  if (auto json = memo.refs_json()) return json;
  return memo.set_refs_json(TableMetadataToSharedJson(WithReferencedSnapshotsOnly(metadata)));
}

namespace {

// Parses the optional array `key` (absent or null means empty) with `parse`,
// appending the results to `out`.
template <typename T, typename Parse>
Status ReadList(json::Object object, std::string_view key, Parse parse, std::vector<T>* out) {
  if (!json::Find(object, key)) return OkStatus();
  SKADE_ASSIGN_OR_RAISE(auto array, json::GetArray(object, key));
  out->reserve(array.size());
  for (auto item : array) {
    SKADE_ASSIGN_OR_RAISE(auto value, parse(item));
    out->push_back(std::move(value));
  }
  return OkStatus();
}

Result<SnapshotLogEntry> SnapshotLogEntryFromJson(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "snapshot-log entry"));
  SnapshotLogEntry entry;
  SKADE_ASSIGN_OR_RAISE(entry.timestamp_ms, json::GetInt64(object, "timestamp-ms"));
  SKADE_ASSIGN_OR_RAISE(entry.snapshot_id, json::GetInt64(object, "snapshot-id"));
  return entry;
}

// The optional array "metadata-log" (absent or null means empty), each
// path copied once, into the log's one buffer.
Status ReadMetadataLog(json::Object object, MetadataLog* out) {
  if (!json::Find(object, "metadata-log")) return OkStatus();
  SKADE_ASSIGN_OR_RAISE(auto array, json::GetArray(object, "metadata-log"));
  std::vector<MetadataLog::Entry> entries;
  entries.reserve(array.size());
  size_t path_bytes = 0;
  for (auto item : array) {
    SKADE_ASSIGN_OR_RAISE(auto entry, json::AsObject(item, "metadata-log entry"));
    MetadataLog::Entry& parsed = entries.emplace_back();
    SKADE_ASSIGN_OR_RAISE(parsed.timestamp_ms, json::GetInt64(entry, "timestamp-ms"));
    SKADE_ASSIGN_OR_RAISE(parsed.metadata_file, json::GetStringView(entry, "metadata-file"));
    path_bytes += parsed.metadata_file.size();
  }
  out->reserve(entries.size(), path_bytes);
  for (const auto& entry : entries) out->push_back(entry.timestamp_ms, entry.metadata_file);
  return OkStatus();
}

Status ReadSchemas(json::Object object, TableMetadata* metadata) {
  if (json::Find(object, "schemas")) {
    SKADE_ASSIGN_OR_RAISE(metadata->current_schema_id, json::GetInt32(object, "current-schema-id"));
    return ReadList(object, "schemas", SchemaFromJson, &metadata->schemas);
  }
  if (metadata->format_version != 1) {
    return InvalidArgument("schemas must exist in format v", metadata->format_version);
  }
  SKADE_ASSIGN_OR_RAISE(auto legacy, json::GetRequired(object, "schema"));
  SKADE_ASSIGN_OR_RAISE(auto schema, SchemaFromJson(legacy));
  metadata->current_schema_id = schema->schema_id();
  metadata->schemas.push_back(std::move(schema));
  return OkStatus();
}

Status ReadPartitionSpecs(json::Object object, TableMetadata* metadata) {
  if (json::Find(object, "partition-specs")) {
    SKADE_ASSIGN_OR_RAISE(metadata->default_spec_id, json::GetInt32(object, "default-spec-id"));
    SKADE_RETURN_NOT_OK(
        ReadList(object, "partition-specs", PartitionSpecFromJson, &metadata->partition_specs));
  } else if (metadata->format_version != 1) {
    return InvalidArgument("partition-specs must exist in format v", metadata->format_version);
  } else {
    SKADE_ASSIGN_OR_RAISE(auto legacy, json::GetRequired(object, "partition-spec"));
    metadata->default_spec_id = PartitionSpec::kInitialSpecId;
    SKADE_ASSIGN_OR_RAISE(auto spec,
                          internal::PartitionSpecFromFields(PartitionSpec::kInitialSpecId, legacy));
    metadata->partition_specs.push_back(std::move(spec));
  }
  SKADE_ASSIGN_OR_RAISE(auto last_partition_id,
                        json::GetOptionalInt32(object, "last-partition-id"));
  if (last_partition_id) {
    metadata->last_partition_id = *last_partition_id;
  } else if (metadata->format_version != 1) {
    return InvalidArgument("last-partition-id must exist in format v", metadata->format_version);
  } else {
    metadata->last_partition_id = PartitionSpec::kPartitionDataIdStart - 1;
    for (const auto& spec : metadata->partition_specs) {
      metadata->last_partition_id =
          std::max(metadata->last_partition_id, spec->LastAssignedFieldId());
    }
  }
  return OkStatus();
}

Status ReadSortOrders(json::Object object, TableMetadata* metadata) {
  if (json::Find(object, "sort-orders")) {
    SKADE_ASSIGN_OR_RAISE(metadata->default_sort_order_id,
                          json::GetInt32(object, "default-sort-order-id"));
    return ReadList(object, "sort-orders", SortOrderFromJson, &metadata->sort_orders);
  }
  if (metadata->format_version != 1) {
    return InvalidArgument("sort-orders must exist in format v", metadata->format_version);
  }
  metadata->default_sort_order_id = SortOrder::kUnsortedOrderId;
  metadata->sort_orders.push_back(SortOrder::Unsorted());
  return OkStatus();
}

Status ReadRefs(json::Object object, TableMetadata* metadata) {
  if (json::Find(object, "refs")) {
    SKADE_ASSIGN_OR_RAISE(auto refs, json::GetObject(object, "refs"));
    for (auto field : refs) {
      SKADE_ASSIGN_OR_RAISE(auto ref, SnapshotRefFromJson(field.value));
      if (!metadata->refs.emplace(std::string(field.key), ref).second) {
        return InvalidArgument("Duplicate snapshot ref: ", field.key);
      }
    }
  }
  // Files written before refs existed only have current-snapshot-id: it is
  // the main branch. Java does this only when `refs` is absent; PyIceberg and
  // Rust also when `refs` lacks main, which keeps parse→write→parse stable.
  if (metadata->current_snapshot_id && !metadata->refs.contains(kMainBranch)) {
    metadata->refs.emplace(kMainBranch, SnapshotRef{*metadata->current_snapshot_id});
  }
  return OkStatus();
}

template <typename Ptr, typename GetId>
Status CheckUniqueIds(const std::vector<Ptr>& items, GetId get_id, std::string_view what) {
  absl::flat_hash_set<int64_t> ids;
  for (const auto& item : items) {
    if (!ids.insert(get_id(*item)).second) {
      return InvalidArgument("Duplicate ", what, " id: ", get_id(*item));
    }
  }
  return OkStatus();
}

// The cross-field rules a parsed file must satisfy before anything relies on
// its ids resolving.
Status ValidateReferences(const TableMetadata& metadata) {
  SKADE_RETURN_NOT_OK(CheckUniqueIds(
      metadata.schemas, [](const Schema& s) -> int64_t { return s.schema_id(); }, "schema"));
  SKADE_RETURN_NOT_OK(CheckUniqueIds(
      metadata.partition_specs, [](const PartitionSpec& s) -> int64_t { return s.spec_id; },
      "partition spec"));
  SKADE_RETURN_NOT_OK(CheckUniqueIds(
      metadata.sort_orders, [](const SortOrder& o) -> int64_t { return o.order_id; },
      "sort order"));
  SKADE_RETURN_NOT_OK(CheckUniqueIds(
      metadata.snapshots, [](const Snapshot& s) { return s.snapshot_id; }, "snapshot"));

  if (!metadata.SchemaById(metadata.current_schema_id)) {
    return InvalidArgument("Cannot find schema with current-schema-id=", metadata.current_schema_id,
                           " from schemas");
  }
  for (const auto& schema : metadata.schemas) {
    SKADE_RETURN_NOT_OK(schema->Validate(metadata.format_version));
  }
  if (!metadata.SpecById(metadata.default_spec_id)) {
    return InvalidArgument("Cannot find partition spec with default-spec-id=",
                           metadata.default_spec_id, " from partition-specs");
  }
  if (!metadata.SortOrderById(metadata.default_sort_order_id)) {
    return InvalidArgument("Cannot find sort order with default-sort-order-id=",
                           metadata.default_sort_order_id, " from sort-orders");
  }
  for (const auto& snapshot : metadata.snapshots) {
    if (snapshot->sequence_number > metadata.last_sequence_number) {
      return InvalidArgument("Invalid snapshot with sequence number ", snapshot->sequence_number,
                             " greater than last sequence number ", metadata.last_sequence_number);
    }
  }
  if (metadata.current_snapshot_id && !metadata.SnapshotById(*metadata.current_snapshot_id)) {
    return InvalidArgument("Invalid table metadata: Cannot find current snapshot ",
                           *metadata.current_snapshot_id);
  }
  for (const auto& [name, ref] : metadata.refs) {
    if (!metadata.SnapshotById(ref.snapshot_id)) {
      return InvalidArgument("Snapshot ", ref.snapshot_id, " for reference ", name,
                             " does not exist in the existing snapshots list");
    }
  }
  const SnapshotRef* main = metadata.Ref(kMainBranch);
  if (main && !metadata.current_snapshot_id) {
    return InvalidArgument("Current snapshot is not set, but main branch exists: ",
                           main->snapshot_id);
  }
  if (main && (!main->is_branch() || main->snapshot_id != *metadata.current_snapshot_id)) {
    return InvalidArgument("Current snapshot ID does not match main branch (",
                           *metadata.current_snapshot_id, " != ", main->snapshot_id, ")");
  }
  return OkStatus();
}

Result<TableMetadataPtr> ParseTableMetadata(json::Element element) {
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(element, "metadata"));
  auto metadata = std::make_shared<TableMetadata>();
  SKADE_ASSIGN_OR_RAISE(auto version, json::GetInt32(object, "format-version"));
  if (version < kMinFormatVersion || version > kMaxFormatVersion) {
    return InvalidArgument("Cannot read unsupported version ", version);
  }
  metadata->format_version = version;

  SKADE_ASSIGN_OR_RAISE(auto uuid, json::GetOptionalString(object, "table-uuid"));
  if (!uuid && version != 1) return InvalidArgument("Cannot parse missing string: table-uuid");
  // An empty uuid would read as "no uuid" (v1's absence) once written back.
  if (uuid && uuid->empty()) return InvalidArgument("Invalid table-uuid: empty string");
  metadata->table_uuid = uuid.value_or("");
  SKADE_ASSIGN_OR_RAISE(metadata->location, json::GetString(object, "location"));
  // v1 has no sequence numbers; a stray field there is ignored, as Java does.
  if (version >= 2) {
    SKADE_ASSIGN_OR_RAISE(metadata->last_sequence_number,
                          json::GetInt64(object, "last-sequence-number"));
  }
  SKADE_ASSIGN_OR_RAISE(metadata->last_updated_ms, json::GetInt64(object, "last-updated-ms"));
  SKADE_ASSIGN_OR_RAISE(metadata->last_column_id, json::GetInt32(object, "last-column-id"));

  SKADE_RETURN_NOT_OK(ReadSchemas(object, metadata.get()));
  SKADE_RETURN_NOT_OK(ReadPartitionSpecs(object, metadata.get()));
  SKADE_RETURN_NOT_OK(ReadSortOrders(object, metadata.get()));
  SKADE_ASSIGN_OR_RAISE(metadata->properties, json::GetStringMap(object, "properties"));

  SKADE_ASSIGN_OR_RAISE(auto current, json::GetOptionalInt64(object, "current-snapshot-id"));
  if (current && *current != kNoSnapshotId) metadata->current_snapshot_id = current;
  if (version >= 3) {
    SKADE_ASSIGN_OR_RAISE(metadata->next_row_id, json::GetInt64(object, "next-row-id"));
  }

  SKADE_RETURN_NOT_OK(
      ReadList(object, "encryption-keys", EncryptionKeyFromJson, &metadata->encryption_keys));
  SKADE_RETURN_NOT_OK(ReadList(object, "snapshots", SnapshotFromJson, &metadata->snapshots));
  SKADE_RETURN_NOT_OK(ReadRefs(object, metadata.get()));
  SKADE_RETURN_NOT_OK(
      ReadList(object, "statistics", StatisticsFileFromJson, &metadata->statistics));
  SKADE_RETURN_NOT_OK(ReadList(object, "partition-statistics", PartitionStatisticsFileFromJson,
                               &metadata->partition_statistics));
  SKADE_RETURN_NOT_OK(
      ReadList(object, "snapshot-log", SnapshotLogEntryFromJson, &metadata->snapshot_log));
  SKADE_RETURN_NOT_OK(ReadMetadataLog(object, &metadata->metadata_log));

  metadata->Finalize();
  SKADE_RETURN_NOT_OK(ValidateReferences(*metadata));
  return metadata;
}

}  // namespace

Result<TableMetadataPtr> TableMetadataFromJson(std::string_view text) {
  if (IsGzip(text)) {
    SKADE_ASSIGN_OR_RAISE(auto inflated, Gunzip(text));
    SKADE_ASSIGN_OR_RAISE(auto element, internal::ParseDocument(inflated));
    return ParseTableMetadata(element);
  }
  SKADE_ASSIGN_OR_RAISE(auto element, internal::ParseDocument(text));
  return ParseTableMetadata(element);
}

Result<TableMetadataPtr> TableMetadataFromElement(json::Element element) {
  return ParseTableMetadata(element);
}

}  // namespace skade::spec
