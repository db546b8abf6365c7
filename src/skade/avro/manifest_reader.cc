#include "skade/avro/manifest_reader.h"

#include <algorithm>

#include "skade/avro/decode_budget.h"
#include "skade/avro/literal_codec.h"
#include "skade/avro/manifest_schema.h"
#include "skade/avro/type_conversion.h"
#include "skade/avro/value_reader.h"
#include "skade/spec/partition_spec.h"
#include "skade/util/strings.h"

namespace skade::avro {

namespace {

namespace f = manifest_field;
using spec::DataFile;
using spec::DataFileContent;
using spec::ManifestEntry;
using spec::ManifestEntryStatus;

// Field ids of the manifest_entry and data_file fields, for files written
// without `field-id` attributes.
constexpr std::pair<std::string_view, int32_t> kFieldIdsByName[] = {
    {"status", f::kStatus},
    {"snapshot_id", f::kSnapshotId},
    {"data_file", f::kDataFile},
    {"sequence_number", f::kSequenceNumber},
    {"file_sequence_number", f::kFileSequenceNumber},
    {"file_path", f::kFilePath},
    {"file_format", f::kFileFormat},
    {"partition", f::kPartition},
    {"record_count", f::kRecordCount},
    {"file_size_in_bytes", f::kFileSizeInBytes},
    {"block_size_in_bytes", f::kBlockSizeInBytes},
    {"column_sizes", f::kColumnSizes},
    {"value_counts", f::kValueCounts},
    {"null_value_counts", f::kNullValueCounts},
    {"lower_bounds", f::kLowerBounds},
    {"upper_bounds", f::kUpperBounds},
    {"key_metadata", f::kKeyMetadata},
    {"split_offsets", f::kSplitOffsets},
    {"content", f::kContent},
    {"equality_ids", f::kEqualityIds},
    {"nan_value_counts", f::kNanValueCounts},
    {"sort_order_id", f::kSortOrderId},
    {"first_row_id", f::kFirstRowId},
    {"referenced_data_file", f::kReferencedDataFile},
    {"content_offset", f::kContentOffset},
    {"content_size_in_bytes", f::kContentSizeInBytes},
};

int32_t ResolveFieldId(const Field& field) {
  if (field.field_id) return *field.field_id;
  for (const auto& [name, id] : kFieldIdsByName) {
    if (name == field.name) return id;
  }
  return -1;
}

// The record a field holds, looking through a union with null.
Result<const Node*> RecordOf(const Field& field) {
  const Node* node = field.type.get();
  if (node->type == AvroType::kUnion) node = node->NonNullBranch();
  if (node == nullptr || node->type != AvroType::kRecord) {
    return Corruption("Manifest field ", field.name, " is not a record");
  }
  return node;
}

// How to read one file: the records and, for each field, what it is.
struct ReadPlan {
  const Node* entry = nullptr;
  std::vector<int32_t> entry_ids;
  const Node* data_file = nullptr;
  std::vector<int32_t> data_file_ids;
  const Node* partition = nullptr;
  // For each partition record field, its index in partition_type (or -1).
  std::vector<int> partition_slots;
  spec::TypePtr partition_type;
  bool has_sequence_numbers = false;
  bool skip_column_sizes = false;
};

Result<spec::TypePtr> PartitionTypeFromFile(const Node& partition) {
  std::vector<spec::NestedField> fields;
  for (size_t i = 0; i < partition.fields.size(); ++i) {
    const Field& field = partition.fields[i];
    const Node* type = field.type.get();
    if (type->type == AvroType::kUnion && type->NonNullBranch() != nullptr) {
      type = type->NonNullBranch();
    }
    auto iceberg_type = ToIcebergType(*type);
    if (!iceberg_type) {
      return Corruption("Partition field ", field.name, ": ", iceberg_type.error().message);
    }
    int32_t id = field.field_id.value_or(
        static_cast<int32_t>(spec::PartitionSpec::kPartitionDataIdStart + i));
    fields.push_back(spec::NestedField{id, field.name, *iceberg_type, false, {}, {}, {}});
  }
  return spec::Type::Struct(std::move(fields));
}

Result<ReadPlan> MakePlan(const Node& root, const ManifestReaderOptions& options) {
  ReadPlan plan;
  plan.skip_column_sizes = options.skip_column_sizes;
  if (root.type != AvroType::kRecord) return Corruption("Manifest schema is not a record");
  plan.entry = &root;
  for (const Field& field : root.fields) {
    int32_t id = ResolveFieldId(field);
    plan.entry_ids.push_back(id);
    if (id == f::kSequenceNumber) plan.has_sequence_numbers = true;
    if (id == f::kDataFile) {
      SKADE_ASSIGN_OR_RAISE(plan.data_file, RecordOf(field));
    }
  }
  if (plan.data_file == nullptr) return Corruption("Manifest schema has no data_file field");
  for (const Field& field : plan.data_file->fields) {
    int32_t id = ResolveFieldId(field);
    plan.data_file_ids.push_back(id);
    if (id == f::kPartition) {
      SKADE_ASSIGN_OR_RAISE(plan.partition, RecordOf(field));
    }
  }
  if (plan.partition == nullptr) return Corruption("Manifest schema has no partition field");
  for (int32_t id : {f::kFilePath, f::kFileFormat, f::kRecordCount, f::kFileSizeInBytes}) {
    if (std::find(plan.data_file_ids.begin(), plan.data_file_ids.end(), id) ==
        plan.data_file_ids.end()) {
      return Corruption("Manifest schema has no data_file field with id ", id);
    }
  }
  if (std::find(plan.entry_ids.begin(), plan.entry_ids.end(), f::kStatus) == plan.entry_ids.end()) {
    return Corruption("Manifest schema has no status field");
  }

  if (options.partition_type) {
    plan.partition_type = options.partition_type;
  } else {
    SKADE_ASSIGN_OR_RAISE(plan.partition_type, PartitionTypeFromFile(*plan.partition));
  }
  const auto& type_fields = plan.partition_type->fields();
  for (size_t i = 0; i < plan.partition->fields.size(); ++i) {
    const Field& field = plan.partition->fields[i];
    int slot = -1;
    for (size_t k = 0; k < type_fields.size(); ++k) {
      if (field.field_id ? type_fields[k].id == *field.field_id : k == i) {
        slot = static_cast<int>(k);
        break;
      }
    }
    plan.partition_slots.push_back(slot);
  }
  return plan;
}

template <typename T>
Result<T> Required(Result<std::optional<T>> value, std::string_view name) {
  if (!value) return tl::unexpected(std::move(value).error());
  if (!*value) return Corruption("Manifest field ", name, " is null");
  return **value;
}

Status ReadPartition(Decoder& decoder, const ReadPlan& plan, DecodeBudget& budget,
                     std::vector<spec::Literal>* out) {
  const auto& types = plan.partition_type->fields();
  out->clear();
  SKADE_RETURN_NOT_OK(budget.Reserve(out, types.size()));
  for (const auto& field : types) out->push_back(spec::Literal::Null(field.type));
  for (size_t i = 0; i < plan.partition->fields.size(); ++i) {
    const Field& field = plan.partition->fields[i];
    int slot = plan.partition_slots[i];
    if (slot < 0) {
      SKADE_RETURN_NOT_OK(SkipValue(decoder, *field.type));
      continue;
    }
    auto value = DecodeLiteral(decoder, *field.type, types[slot].type);
    if (!value) {
      return Corruption("Partition field ", field.name, ": ", value.error().message);
    }
    if (const auto* bytes = std::get_if<std::string>(&value->value())) {
      SKADE_RETURN_NOT_OK(budget.ChargeString(bytes->size()));
    }
    (*out)[slot] = std::move(*value);
  }
  return OkStatus();
}

// The strings, maps and lists are charged to `budget` before they are kept.
Status ReadDataFile(Decoder& decoder, const ReadPlan& plan, DecodeBudget& budget, DataFile* file) {
  const auto& fields = plan.data_file->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& field = fields[i];
    const Node& type = *field.type;
    switch (plan.data_file_ids[i]) {
      case f::kContent: {
        SKADE_ASSIGN_OR_RAISE(auto content, ReadOptionalInt(decoder, type));
        int32_t value = content.value_or(0);
        if (value < 0 || value > 2) return Corruption("Invalid data file content ", value);
        file->content = static_cast<DataFileContent>(value);
        break;
      }
      case f::kFilePath: {
        SKADE_ASSIGN_OR_RAISE(auto path, Required(ReadOptionalBytes(decoder, type), field.name));
        SKADE_RETURN_NOT_OK(budget.ChargeString(path.size()));
        file->file_path = std::string(path);
        break;
      }
      case f::kFileFormat: {
        SKADE_ASSIGN_OR_RAISE(auto format, Required(ReadOptionalBytes(decoder, type), field.name));
        auto parsed = spec::ParseFileFormat(format);
        if (!parsed) return Corruption("Unknown file format: ", format);
        file->file_format = *parsed;
        break;
      }
      case f::kPartition: {
        SKADE_ASSIGN_OR_RAISE(const Node* record, ResolveBranch(decoder, type));
        if (record != plan.partition) return Corruption("Null partition tuple");
        SKADE_RETURN_NOT_OK(ReadPartition(decoder, plan, budget, &file->partition));
        break;
      }
      case f::kRecordCount: {
        SKADE_ASSIGN_OR_RAISE(file->record_count,
                              Required(ReadOptionalLong(decoder, type), field.name));
        break;
      }
      case f::kFileSizeInBytes: {
        SKADE_ASSIGN_OR_RAISE(file->file_size_in_bytes,
                              Required(ReadOptionalLong(decoder, type), field.name));
        break;
      }
      case f::kColumnSizes:
        if (plan.skip_column_sizes) {
          SKADE_RETURN_NOT_OK(SkipValue(decoder, type));
        } else {
          SKADE_RETURN_NOT_OK(ReadIntLongMap(decoder, type, budget, &file->column_sizes));
        }
        break;
      case f::kValueCounts:
        SKADE_RETURN_NOT_OK(ReadIntLongMap(decoder, type, budget, &file->value_counts));
        break;
      case f::kNullValueCounts:
        SKADE_RETURN_NOT_OK(ReadIntLongMap(decoder, type, budget, &file->null_value_counts));
        break;
      case f::kNanValueCounts:
        SKADE_RETURN_NOT_OK(ReadIntLongMap(decoder, type, budget, &file->nan_value_counts));
        break;
      case f::kLowerBounds:
        SKADE_RETURN_NOT_OK(ReadIntBytesMap(decoder, type, budget, &file->lower_bounds));
        break;
      case f::kUpperBounds:
        SKADE_RETURN_NOT_OK(ReadIntBytesMap(decoder, type, budget, &file->upper_bounds));
        break;
      case f::kKeyMetadata: {
        SKADE_ASSIGN_OR_RAISE(auto bytes, ReadOptionalBytes(decoder, type));
        if (!bytes) break;
        SKADE_RETURN_NOT_OK(budget.ChargeString(bytes->size()));
        file->key_metadata = std::string(*bytes);
        break;
      }
      case f::kSplitOffsets:
        SKADE_RETURN_NOT_OK(ReadLongList(decoder, type, budget, &file->split_offsets));
        break;
      case f::kEqualityIds:
        SKADE_RETURN_NOT_OK(ReadIntList(decoder, type, budget, &file->equality_ids));
        break;
      case f::kSortOrderId: {
        SKADE_ASSIGN_OR_RAISE(file->sort_order_id, ReadOptionalInt(decoder, type));
        break;
      }
      case f::kFirstRowId: {
        SKADE_ASSIGN_OR_RAISE(file->first_row_id, ReadOptionalLong(decoder, type));
        break;
      }
      case f::kReferencedDataFile: {
        SKADE_ASSIGN_OR_RAISE(auto path, ReadOptionalBytes(decoder, type));
        if (!path) break;
        SKADE_RETURN_NOT_OK(budget.ChargeString(path->size()));
        file->referenced_data_file = std::string(*path);
        break;
      }
      case f::kContentOffset: {
        SKADE_ASSIGN_OR_RAISE(file->content_offset, ReadOptionalLong(decoder, type));
        break;
      }
      case f::kContentSizeInBytes: {
        SKADE_ASSIGN_OR_RAISE(file->content_size_in_bytes, ReadOptionalLong(decoder, type));
        break;
      }
      default:
        SKADE_RETURN_NOT_OK(SkipValue(decoder, type));
        break;
    }
  }
  return OkStatus();
}

Status ReadEntry(Decoder& decoder, const ReadPlan& plan, DecodeBudget& budget,
                 ManifestEntry* entry) {
  const auto& fields = plan.entry->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& field = fields[i];
    const Node& type = *field.type;
    switch (plan.entry_ids[i]) {
      case f::kStatus: {
        SKADE_ASSIGN_OR_RAISE(int32_t status, Required(ReadOptionalInt(decoder, type), "status"));
        if (status < 0 || status > 2) return Corruption("Invalid manifest entry status ", status);
        entry->status = static_cast<ManifestEntryStatus>(status);
        break;
      }
      case f::kSnapshotId: {
        SKADE_ASSIGN_OR_RAISE(entry->snapshot_id, ReadOptionalLong(decoder, type));
        break;
      }
      case f::kSequenceNumber: {
        SKADE_ASSIGN_OR_RAISE(entry->sequence_number, ReadOptionalLong(decoder, type));
        break;
      }
      case f::kFileSequenceNumber: {
        SKADE_ASSIGN_OR_RAISE(entry->file_sequence_number, ReadOptionalLong(decoder, type));
        break;
      }
      case f::kDataFile: {
        SKADE_ASSIGN_OR_RAISE(const Node* record, ResolveBranch(decoder, type));
        if (record != plan.data_file) return Corruption("Null data_file in manifest entry");
        SKADE_RETURN_NOT_OK(ReadDataFile(decoder, plan, budget, &entry->data_file));
        break;
      }
      default:
        SKADE_RETURN_NOT_OK(SkipValue(decoder, type));
        break;
    }
  }
  if (!plan.has_sequence_numbers) {
    entry->sequence_number = 0;
    entry->file_sequence_number = 0;
  }
  return OkStatus();
}

Result<ManifestMetadata> ReadMetadata(const ContainerReader& reader, const ReadPlan& plan) {
  ManifestMetadata metadata;
  metadata.schema_json = std::string(reader.Metadata("schema").value_or(""));
  metadata.partition_spec_json = std::string(reader.Metadata("partition-spec").value_or(""));
  auto int_value = [&](std::string_view key) -> Result<std::optional<int64_t>> {
    auto text = reader.Metadata(key);
    if (!text) return std::nullopt;
    auto value = ParseInt64(*text);
    if (!value || *value < INT32_MIN || *value > INT32_MAX) {
      return Corruption("Invalid manifest metadata ", key, ": ", *text);
    }
    return value;
  };
  SKADE_ASSIGN_OR_RAISE(auto format_version, int_value("format-version"));
  metadata.format_version =
      static_cast<int>(format_version.value_or(plan.has_sequence_numbers ? 2 : 1));
  SKADE_ASSIGN_OR_RAISE(auto spec_id, int_value("partition-spec-id"));
  metadata.partition_spec_id = static_cast<int32_t>(spec_id.value_or(0));
  SKADE_ASSIGN_OR_RAISE(auto schema_id, int_value("schema-id"));
  if (schema_id) metadata.schema_id = static_cast<int32_t>(*schema_id);
  std::string_view content = reader.Metadata("content").value_or("data");
  if (content == "data") {
    metadata.content = spec::ManifestContent::kData;
  } else if (content == "deletes") {
    metadata.content = spec::ManifestContent::kDeletes;
  } else {
    return Corruption("Invalid manifest content: ", content);
  }
  return metadata;
}

}  // namespace

Result<Manifest> ReadManifest(std::string_view bytes, const ManifestReaderOptions& options,
                              std::string_view location) {
  SKADE_ASSIGN_OR_RAISE(auto reader, ContainerReader::Open(bytes, options.avro));
  SKADE_ASSIGN_OR_RAISE(ReadPlan plan, MakePlan(*reader->schema(), options));
  Manifest manifest;
  SKADE_ASSIGN_OR_RAISE(manifest.metadata, ReadMetadata(*reader, plan));
  manifest.partition_type = plan.partition_type;
  DecodeBudget budget(options.avro.DecodedBudget(bytes.size()), "manifest", location);
  SKADE_RETURN_NOT_OK(reader->ForEachDatum(
      [&](int64_t count) { return budget.Reserve(&manifest.entries, static_cast<size_t>(count)); },
      [&](Decoder& decoder) -> Status {
        ManifestEntry entry;
        entry.data_file.spec_id = manifest.metadata.partition_spec_id;
        SKADE_RETURN_NOT_OK(ReadEntry(decoder, plan, budget, &entry));
        manifest.entries.push_back(std::move(entry));
        return OkStatus();
      }));
  return manifest;
}

Status InheritFromManifestFile(const spec::ManifestFile& manifest,
                               std::vector<ManifestEntry>* entries) {
  if (manifest.sequence_number == spec::kUnassignedSequenceNumber) {
    return InvalidArgument("Cannot inherit from manifest ", manifest.manifest_path,
                           " whose sequence number is unassigned");
  }
  std::optional<int64_t> next_row_id = manifest.first_row_id;
  for (ManifestEntry& entry : *entries) {
    if (!entry.snapshot_id) entry.snapshot_id = manifest.added_snapshot_id;
    bool inherit = manifest.sequence_number == 0 || entry.status == ManifestEntryStatus::kAdded;
    if (!entry.sequence_number && inherit) entry.sequence_number = manifest.sequence_number;
    if (!entry.file_sequence_number && inherit) {
      entry.file_sequence_number = manifest.sequence_number;
    }
    DataFile& file = entry.data_file;
    file.spec_id = manifest.partition_spec_id;
    if (!next_row_id) {
      file.first_row_id.reset();
    } else if (entry.status != ManifestEntryStatus::kDeleted &&
               file.content == DataFileContent::kData && !file.first_row_id) {
      file.first_row_id = *next_row_id;
      // Both are a writer's: a count that is negative or runs past the
      // largest id is not a table's.
      if (file.record_count < 0 ||
          __builtin_add_overflow(*next_row_id, file.record_count, &*next_row_id)) {
        return InvalidArgument("Cannot assign row ids in manifest ", manifest.manifest_path,
                               ": record count ", file.record_count, " after row id ",
                               *file.first_row_id, " is negative or overflows");
      }
    }
  }
  return OkStatus();
}

Result<std::vector<ManifestEntry>> ReadManifestEntries(io::FileIO& io,
                                                       const spec::ManifestFile& manifest,
                                                       const ManifestReaderOptions& options) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(manifest.manifest_path));
  SKADE_ASSIGN_OR_RAISE(Manifest read, ReadManifest(bytes, options, manifest.manifest_path));
  SKADE_RETURN_NOT_OK(InheritFromManifestFile(manifest, &read.entries));
  return std::move(read.entries);
}

}  // namespace skade::avro
