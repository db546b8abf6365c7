#include "skade/avro/manifest_list_reader.h"

#include <algorithm>

#include "skade/avro/decode_budget.h"
#include "skade/avro/manifest_schema.h"
#include "skade/avro/value_reader.h"
#include "skade/util/strings.h"

namespace skade::avro {

namespace {

namespace f = manifest_list_field;

constexpr std::pair<std::string_view, int32_t> kFieldIdsByName[] = {
    {"manifest_path", f::kManifestPath},
    {"manifest_length", f::kManifestLength},
    {"partition_spec_id", f::kPartitionSpecId},
    {"added_snapshot_id", f::kAddedSnapshotId},
    {"added_files_count", f::kAddedFilesCount},
    {"existing_files_count", f::kExistingFilesCount},
    {"deleted_files_count", f::kDeletedFilesCount},
    {"partitions", f::kPartitions},
    {"contains_null", f::kContainsNull},
    {"lower_bound", f::kLowerBound},
    {"upper_bound", f::kUpperBound},
    {"added_rows_count", f::kAddedRowsCount},
    {"existing_rows_count", f::kExistingRowsCount},
    {"deleted_rows_count", f::kDeletedRowsCount},
    {"sequence_number", f::kSequenceNumber},
    {"min_sequence_number", f::kMinSequenceNumber},
    {"content", f::kContent},
    {"contains_nan", f::kContainsNan},
    {"key_metadata", f::kKeyMetadata},
    {"first_row_id", f::kFirstRowId},
};

std::vector<int32_t> ResolveFieldIds(const Node& record) {
  std::vector<int32_t> ids;
  for (const Field& field : record.fields) {
    int32_t id = -1;
    if (field.field_id) {
      id = *field.field_id;
    } else {
      for (const auto& [name, known_id] : kFieldIdsByName) {
        if (name == field.name) id = known_id;
      }
    }
    ids.push_back(id);
  }
  return ids;
}

struct ReadPlan {
  const Node* manifest_file = nullptr;
  std::vector<int32_t> ids;
  const Node* summary = nullptr;
  std::vector<int32_t> summary_ids;
  bool has_sequence_numbers = false;
};

Result<ReadPlan> MakePlan(const Node& root) {
  ReadPlan plan;
  if (root.type != AvroType::kRecord) return Corruption("Manifest list schema is not a record");
  plan.manifest_file = &root;
  plan.ids = ResolveFieldIds(root);
  for (size_t i = 0; i < root.fields.size(); ++i) {
    if (plan.ids[i] == f::kSequenceNumber) plan.has_sequence_numbers = true;
    if (plan.ids[i] != f::kPartitions) continue;
    const Node* array = root.fields[i].type.get();
    if (array->type == AvroType::kUnion) array = array->NonNullBranch();
    if (array == nullptr || array->type != AvroType::kArray ||
        array->items->type != AvroType::kRecord) {
      return Corruption("Manifest list field partitions is not a list of records");
    }
    plan.summary = array->items.get();
    plan.summary_ids = ResolveFieldIds(*plan.summary);
  }
  for (int32_t id :
       {f::kManifestPath, f::kManifestLength, f::kPartitionSpecId, f::kAddedSnapshotId}) {
    if (std::find(plan.ids.begin(), plan.ids.end(), id) == plan.ids.end()) {
      return Corruption("Manifest list schema has no field with id ", id);
    }
  }
  return plan;
}

template <typename T>
Result<T> Required(Result<std::optional<T>> value, std::string_view name) {
  if (!value) return tl::unexpected(std::move(value).error());
  if (!*value) return Corruption("Manifest list field ", name, " is null");
  return **value;
}

// Counts that v1 lists may leave null read as 0 (see the header).
template <typename T>
Result<T> Count(Result<std::optional<T>> value) {
  if (!value) return tl::unexpected(std::move(value).error());
  return value->value_or(0);
}

Status ReadSummary(Decoder& decoder, const ReadPlan& plan, DecodeBudget& budget,
                   spec::PartitionFieldSummary* summary) {
  const auto& fields = plan.summary->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Node& type = *fields[i].type;
    switch (plan.summary_ids[i]) {
      case f::kContainsNull: {
        SKADE_ASSIGN_OR_RAISE(summary->contains_null,
                              Required(ReadOptionalBoolean(decoder, type), "contains_null"));
        break;
      }
      case f::kContainsNan: {
        SKADE_ASSIGN_OR_RAISE(summary->contains_nan, ReadOptionalBoolean(decoder, type));
        break;
      }
      case f::kLowerBound:
      case f::kUpperBound: {
        SKADE_ASSIGN_OR_RAISE(auto bytes, ReadOptionalBytes(decoder, type));
        if (!bytes) break;
        SKADE_RETURN_NOT_OK(budget.ChargeString(bytes->size()));
        auto& bound =
            plan.summary_ids[i] == f::kLowerBound ? summary->lower_bound : summary->upper_bound;
        bound = std::string(*bytes);
        break;
      }
      default:
        SKADE_RETURN_NOT_OK(SkipValue(decoder, type));
        break;
    }
  }
  return OkStatus();
}

Status ReadPartitions(Decoder& decoder, const ReadPlan& plan, const Node& type,
                      DecodeBudget& budget, std::vector<spec::PartitionFieldSummary>* out) {
  SKADE_ASSIGN_OR_RAISE(const Node* array, ResolveBranch(decoder, type));
  if (array->type == AvroType::kNull) return OkStatus();
  while (true) {
    SKADE_ASSIGN_OR_RAISE(int64_t count, decoder.ReadBlockCount());
    if (count == 0) return OkStatus();
    SKADE_RETURN_NOT_OK(budget.Reserve(out, static_cast<size_t>(count)));
    for (int64_t i = 0; i < count; ++i) {
      SKADE_ASSIGN_OR_RAISE(const Node* record, ResolveBranch(decoder, *array->items));
      if (record != plan.summary) return Corruption("Null partition field summary");
      spec::PartitionFieldSummary summary;
      SKADE_RETURN_NOT_OK(ReadSummary(decoder, plan, budget, &summary));
      out->push_back(std::move(summary));
    }
  }
}

// The strings and partition summaries are charged to `budget` before they
// are kept.
Status ReadManifestFile(Decoder& decoder, const ReadPlan& plan, DecodeBudget& budget,
                        spec::ManifestFile* manifest) {
  const auto& fields = plan.manifest_file->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Node& type = *fields[i].type;
    const std::string& name = fields[i].name;
    switch (plan.ids[i]) {
      case f::kManifestPath: {
        SKADE_ASSIGN_OR_RAISE(auto path, Required(ReadOptionalBytes(decoder, type), name));
        SKADE_RETURN_NOT_OK(budget.ChargeString(path.size()));
        manifest->manifest_path = std::string(path);
        break;
      }
      case f::kManifestLength: {
        SKADE_ASSIGN_OR_RAISE(manifest->manifest_length,
                              Required(ReadOptionalLong(decoder, type), name));
        break;
      }
      case f::kPartitionSpecId: {
        SKADE_ASSIGN_OR_RAISE(manifest->partition_spec_id,
                              Required(ReadOptionalInt(decoder, type), name));
        break;
      }
      case f::kContent: {
        SKADE_ASSIGN_OR_RAISE(auto content, ReadOptionalInt(decoder, type));
        if (content.value_or(0) != 0 && content.value_or(0) != 1) {
          return Corruption("Invalid manifest content ", *content);
        }
        manifest->content = static_cast<spec::ManifestContent>(content.value_or(0));
        break;
      }
      case f::kSequenceNumber: {
        SKADE_ASSIGN_OR_RAISE(manifest->sequence_number, Count(ReadOptionalLong(decoder, type)));
        break;
      }
      case f::kMinSequenceNumber: {
        SKADE_ASSIGN_OR_RAISE(manifest->min_sequence_number,
                              Count(ReadOptionalLong(decoder, type)));
        break;
      }
      case f::kAddedSnapshotId: {
        SKADE_ASSIGN_OR_RAISE(manifest->added_snapshot_id,
                              Required(ReadOptionalLong(decoder, type), name));
        break;
      }
      case f::kAddedFilesCount: {
        SKADE_ASSIGN_OR_RAISE(manifest->added_files_count, Count(ReadOptionalInt(decoder, type)));
        break;
      }
      case f::kExistingFilesCount: {
        SKADE_ASSIGN_OR_RAISE(manifest->existing_files_count,
                              Count(ReadOptionalInt(decoder, type)));
        break;
      }
      case f::kDeletedFilesCount: {
        SKADE_ASSIGN_OR_RAISE(manifest->deleted_files_count, Count(ReadOptionalInt(decoder, type)));
        break;
      }
      case f::kAddedRowsCount: {
        SKADE_ASSIGN_OR_RAISE(manifest->added_rows_count, Count(ReadOptionalLong(decoder, type)));
        break;
      }
      case f::kExistingRowsCount: {
        SKADE_ASSIGN_OR_RAISE(manifest->existing_rows_count,
                              Count(ReadOptionalLong(decoder, type)));
        break;
      }
      case f::kDeletedRowsCount: {
        SKADE_ASSIGN_OR_RAISE(manifest->deleted_rows_count, Count(ReadOptionalLong(decoder, type)));
        break;
      }
      case f::kPartitions:
        SKADE_RETURN_NOT_OK(ReadPartitions(decoder, plan, type, budget, &manifest->partitions));
        break;
      case f::kKeyMetadata: {
        SKADE_ASSIGN_OR_RAISE(auto bytes, ReadOptionalBytes(decoder, type));
        if (!bytes) break;
        SKADE_RETURN_NOT_OK(budget.ChargeString(bytes->size()));
        manifest->key_metadata = std::string(*bytes);
        break;
      }
      case f::kFirstRowId: {
        SKADE_ASSIGN_OR_RAISE(manifest->first_row_id, ReadOptionalLong(decoder, type));
        break;
      }
      default:
        SKADE_RETURN_NOT_OK(SkipValue(decoder, type));
        break;
    }
  }
  return OkStatus();
}

Result<ManifestListMetadata> ReadMetadata(const ContainerReader& reader, const ReadPlan& plan) {
  ManifestListMetadata metadata;
  auto long_value = [&](std::string_view key) -> Result<std::optional<int64_t>> {
    auto text = reader.Metadata(key);
    if (!text || *text == "null") return std::nullopt;
    auto value = ParseInt64(*text);
    if (!value) return Corruption("Invalid manifest list metadata ", key, ": ", *text);
    return value;
  };
  SKADE_ASSIGN_OR_RAISE(auto format_version, long_value("format-version"));
  if (format_version && (*format_version < 1 || *format_version > 4)) {
    return Corruption("Invalid manifest list format-version ", *format_version);
  }
  metadata.format_version =
      static_cast<int>(format_version.value_or(plan.has_sequence_numbers ? 2 : 1));
  SKADE_ASSIGN_OR_RAISE(metadata.snapshot_id, long_value("snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(metadata.parent_snapshot_id, long_value("parent-snapshot-id"));
  SKADE_ASSIGN_OR_RAISE(metadata.sequence_number, long_value("sequence-number"));
  SKADE_ASSIGN_OR_RAISE(metadata.first_row_id, long_value("first-row-id"));
  return metadata;
}

}  // namespace

Result<ManifestList> ReadManifestList(std::string_view bytes, const ContainerReaderOptions& options,
                                      std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(auto reader, ContainerReader::Open(bytes, options));
  SKADE_ASSIGN_OR_RAISE(ReadPlan plan, MakePlan(*reader->schema()));
  ManifestList list;
  SKADE_ASSIGN_OR_RAISE(list.metadata, ReadMetadata(*reader, plan));
  DecodeBudget budget(options.DecodedBudget(bytes.size()), "manifest list", location);
  SKADE_RETURN_NOT_OK(reader->ForEachDatum(
      [&](int64_t count) { return budget.Reserve(&list.manifests, static_cast<size_t>(count)); },
      [&](Decoder& decoder) -> Status {
        spec::ManifestFile manifest;
        SKADE_RETURN_NOT_OK(ReadManifestFile(decoder, plan, budget, &manifest));
        list.manifests.push_back(std::move(manifest));
        return OkStatus();
      }));
  return list;
}

}  // namespace skade::avro
