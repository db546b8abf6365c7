#include "skade/avro/manifest_writer.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "skade/avro/literal_codec.h"
#include "skade/avro/manifest_schema.h"
#include "skade/avro/type_conversion.h"
#include "skade/spec/json_serde.h"
#include "skade/util/json_writer.h"

namespace skade::avro {

// The manifest_entry fields besides data_file; kept apart so that entries
// are written straight from the caller's DataFile, without a copy.
struct EntryHeader {
  spec::ManifestEntryStatus status;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> file_sequence_number;
};

namespace {

namespace f = manifest_field;
using spec::DataFile;
using spec::DataFileContent;
using spec::ManifestEntry;
using spec::ManifestEntryStatus;

// Starts an optional field's value: writes its union branch (null is branch
// 0 in the schemas we write). Returns whether a value follows.
Result<bool> BeginField(Encoder& encoder, const Field& field, bool present) {
  if (field.type->type == AvroType::kUnion) {
    encoder.WriteUnionIndex(present ? 1 : 0);
    return present;
  }
  if (!present) return InvalidArgument("Missing value for required manifest field ", field.name);
  return true;
}

const Node& ValueNode(const Field& field) {
  const Node* branch = field.type->NonNullBranch();
  return branch != nullptr ? *branch : *field.type;
}

template <typename T>
Status WriteOptionalLong(Encoder& encoder, const Field& field, const std::optional<T>& value) {
  SKADE_ASSIGN_OR_RAISE(bool present, BeginField(encoder, field, value.has_value()));
  if (present) encoder.WriteLong(*value);
  return OkStatus();
}

Status WriteOptionalBytes(Encoder& encoder, const Field& field,
                          const std::optional<std::string>& value) {
  SKADE_ASSIGN_OR_RAISE(bool present, BeginField(encoder, field, value.has_value()));
  if (present) encoder.WriteBytes(*value);
  return OkStatus();
}

// Iceberg's int-keyed maps are arrays of key/value records; an empty map is
// written as null (no metrics).
template <typename Value, typename WriteValue>
Status WriteIntKeyedMap(Encoder& encoder, const Field& field, const std::map<int32_t, Value>& map,
                        WriteValue&& write_value) {
  SKADE_ASSIGN_OR_RAISE(bool present, BeginField(encoder, field, !map.empty()));
  if (!present) return OkStatus();
  encoder.WriteBlockCount(static_cast<int64_t>(map.size()));
  for (const auto& [key, value] : map) {
    encoder.WriteInt(key);
    write_value(value);
  }
  encoder.WriteEndOfBlocks();
  return OkStatus();
}

template <typename T>
Status WriteList(Encoder& encoder, const Field& field, const std::vector<T>& list) {
  SKADE_ASSIGN_OR_RAISE(bool present, BeginField(encoder, field, !list.empty()));
  if (!present) return OkStatus();
  encoder.WriteBlockCount(static_cast<int64_t>(list.size()));
  for (T value : list) encoder.WriteLong(value);
  encoder.WriteEndOfBlocks();
  return OkStatus();
}

Status WritePartition(Encoder& encoder, const Node& record, const spec::Type& partition_type,
                      const std::vector<spec::Literal>& partition) {
  const auto& types = partition_type.fields();
  for (size_t i = 0; i < record.fields.size(); ++i) {
    Status status = EncodeLiteral(encoder, *record.fields[i].type, *types[i].type, partition[i]);
    if (!status) {
      return InvalidArgument("Partition field ", types[i].name, ": ", status.error().message);
    }
  }
  return OkStatus();
}

Status WriteDataFile(Encoder& encoder, const Node& record, const spec::Type& partition_type,
                     const DataFile& file) {
  for (const Field& field : record.fields) {
    switch (*field.field_id) {
      case f::kContent:
        encoder.WriteInt(static_cast<int32_t>(file.content));
        break;
      case f::kFilePath:
        encoder.WriteString(file.file_path);
        break;
      case f::kFileFormat:
        encoder.WriteString(spec::FileFormatName(file.file_format));
        break;
      case f::kPartition:
        SKADE_RETURN_NOT_OK(WritePartition(encoder, *field.type, partition_type, file.partition));
        break;
      case f::kRecordCount:
        encoder.WriteLong(file.record_count);
        break;
      case f::kFileSizeInBytes:
        encoder.WriteLong(file.file_size_in_bytes);
        break;
      case f::kBlockSizeInBytes:
        encoder.WriteLong(kDefaultBlockSize);
        break;
      case f::kColumnSizes:
      case f::kValueCounts:
      case f::kNullValueCounts:
      case f::kNanValueCounts: {
        const auto& map = *field.field_id == f::kColumnSizes       ? file.column_sizes
                          : *field.field_id == f::kValueCounts     ? file.value_counts
                          : *field.field_id == f::kNullValueCounts ? file.null_value_counts
                                                                   : file.nan_value_counts;
        SKADE_RETURN_NOT_OK(
            WriteIntKeyedMap(encoder, field, map, [&](int64_t v) { encoder.WriteLong(v); }));
        break;
      }
      case f::kLowerBounds:
      case f::kUpperBounds: {
        const auto& map =
            *field.field_id == f::kLowerBounds ? file.lower_bounds : file.upper_bounds;
        SKADE_RETURN_NOT_OK(WriteIntKeyedMap(encoder, field, map,
                                             [&](const std::string& v) { encoder.WriteBytes(v); }));
        break;
      }
      case f::kKeyMetadata:
        SKADE_RETURN_NOT_OK(WriteOptionalBytes(encoder, field, file.key_metadata));
        break;
      case f::kSplitOffsets:
        SKADE_RETURN_NOT_OK(WriteList(encoder, field, file.split_offsets));
        break;
      case f::kEqualityIds:
        SKADE_RETURN_NOT_OK(WriteList(encoder, field, file.equality_ids));
        break;
      case f::kSortOrderId:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, file.sort_order_id));
        break;
      case f::kFirstRowId:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, file.first_row_id));
        break;
      case f::kReferencedDataFile:
        SKADE_RETURN_NOT_OK(WriteOptionalBytes(encoder, field, file.referenced_data_file));
        break;
      case f::kContentOffset:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, file.content_offset));
        break;
      case f::kContentSizeInBytes:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, file.content_size_in_bytes));
        break;
      default:
        return InternalError("Unexpected data_file field ", field.name);
    }
  }
  return OkStatus();
}

Status WriteEntry(Encoder& encoder, const Node& record, const spec::Type& partition_type,
                  const EntryHeader& entry, const DataFile& file) {
  for (const Field& field : record.fields) {
    switch (*field.field_id) {
      case f::kStatus:
        encoder.WriteInt(static_cast<int32_t>(entry.status));
        break;
      case f::kSnapshotId:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, entry.snapshot_id));
        break;
      case f::kSequenceNumber:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, entry.sequence_number));
        break;
      case f::kFileSequenceNumber:
        SKADE_RETURN_NOT_OK(WriteOptionalLong(encoder, field, entry.file_sequence_number));
        break;
      case f::kDataFile:
        SKADE_RETURN_NOT_OK(WriteDataFile(encoder, ValueNode(field), partition_type, file));
        break;
      default:
        return InternalError("Unexpected manifest_entry field ", field.name);
    }
  }
  return OkStatus();
}

std::string PartitionFieldsJson(const spec::PartitionSpec& spec) {
  JsonWriter writer;
  spec::WritePartitionFields(writer, spec);
  return writer.Take();
}

// What a manifest's header depends on — the table schema, the spec, the
// format version and the content — built once for many manifests (a commit
// writes at least one): the partition type, the manifest_entry schema and
// the header's metadata.
struct EntryShape {
  // Kept alive so that no other schema or spec takes their addresses (the key).
  spec::SchemaPtr schema;
  spec::PartitionSpecPtr spec;
  spec::TypePtr partition_type;
  NodePtr entry_schema;
  std::string avro_json;
  std::vector<std::pair<std::string, std::string>> metadata;
};

Result<std::shared_ptr<const EntryShape>> MakeEntryShape(const spec::SchemaPtr& schema,
                                                         const spec::PartitionSpecPtr& spec,
                                                         const ManifestWriterOptions& options) {
  auto shape = std::make_shared<EntryShape>();
  shape->schema = schema;
  shape->spec = spec;
  SKADE_ASSIGN_OR_RAISE(shape->partition_type, spec->PartitionType(*schema, options.table_schemas));
  SKADE_ASSIGN_OR_RAISE(spec::TypePtr entry_type,
                        ManifestEntryType(options.format_version, shape->partition_type));
  SKADE_ASSIGN_OR_RAISE(shape->entry_schema, ToAvroSchema(*entry_type, "manifest_entry"));
  shape->avro_json = SchemaToJson(*shape->entry_schema);
  auto& metadata = shape->metadata;
  metadata.emplace_back("schema", spec::SchemaToJson(*schema));
  metadata.emplace_back("schema-id", StrCat(schema->schema_id()));
  metadata.emplace_back("partition-spec", PartitionFieldsJson(*spec));
  metadata.emplace_back("partition-spec-id", StrCat(spec->spec_id));
  metadata.emplace_back("format-version", StrCat(options.format_version));
  if (options.format_version >= 2) {
    metadata.emplace_back("content",
                          options.content == spec::ManifestContent::kData ? "data" : "deletes");
  }
  metadata.emplace_back("iceberg.schema",
                        spec::SchemaToJson(spec::Schema(0, entry_type->fields())));
  return shape;
}

// Shapes by their inputs; a few tables' worth, dropped all at once when full.
Result<std::shared_ptr<const EntryShape>> EntryShapeFor(const spec::SchemaPtr& schema,
                                                        const spec::PartitionSpecPtr& spec,
                                                        const ManifestWriterOptions& options) {
  constexpr size_t kMaxShapes = 64;
  using Key = std::tuple<const void*, const void*, int, int>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const EntryShape>> shapes;
  Key key{schema.get(), spec.get(), options.format_version, static_cast<int>(options.content)};
  // A spec naming a dropped column is typed from the table's other schemas,
  // which the key does not hold: such shapes are rare and not kept.
  for (const auto& field : spec->fields) {
    if (schema->FindFieldById(field.source_id) == nullptr) {
      return MakeEntryShape(schema, spec, options);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = shapes.find(key); found != shapes.end()) return found->second;
  }
  SKADE_ASSIGN_OR_RAISE(auto shape, MakeEntryShape(schema, spec, options));
  std::lock_guard<std::mutex> lock(mutex);
  if (shapes.size() >= kMaxShapes) shapes.clear();
  shapes.emplace(key, shape);
  return shape;
}

}  // namespace

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Make(spec::SchemaPtr schema,
                                                             spec::PartitionSpecPtr spec,
                                                             const ManifestWriterOptions& options) {
  if (!schema || !spec) return InvalidArgument("A manifest writer needs a schema and a spec");
  if (options.format_version == 1 && options.content != spec::ManifestContent::kData) {
    return InvalidArgument("Format version 1 has no delete manifests");
  }
  SKADE_ASSIGN_OR_RAISE(auto shape, EntryShapeFor(schema, spec, options));
  SKADE_ASSIGN_OR_RAISE(auto writer,
                        ContainerWriter::Make(shape->avro_json, shape->metadata, options.avro));
  return std::unique_ptr<ManifestWriter>(
      new ManifestWriter(std::move(schema), std::move(spec), options, shape->partition_type,
                         shape->entry_schema, std::move(writer)));
}

ManifestWriter::ManifestWriter(spec::SchemaPtr schema, spec::PartitionSpecPtr spec,
                               const ManifestWriterOptions& options, spec::TypePtr partition_type,
                               NodePtr entry_schema, std::unique_ptr<ContainerWriter> writer)
    : schema_(std::move(schema)),
      spec_(std::move(spec)),
      options_(options),
      partition_type_(std::move(partition_type)),
      entry_schema_(std::move(entry_schema)),
      writer_(std::move(writer)),
      summary_(partition_type_) {}

Status ManifestWriter::CheckFile(const DataFile& file) const {
  bool is_data = file.content == DataFileContent::kData;
  if (is_data != (options_.content == spec::ManifestContent::kData)) {
    return InvalidArgument(is_data ? "A delete manifest cannot list data file "
                                   : "A data manifest cannot list delete file ",
                           file.file_path);
  }
  if (file.file_path.empty()) return InvalidArgument("Data file without a path");
  if (file.record_count < 0 || file.file_size_in_bytes < 0) {
    return InvalidArgument("Negative record count or size for ", file.file_path);
  }
  if (file.partition.size() != partition_type_->fields().size()) {
    return InvalidArgument("Partition tuple of ", file.file_path, " has ", file.partition.size(),
                           " values; spec ", spec_->spec_id, " has ",
                           partition_type_->fields().size(), " fields");
  }
  if (!is_data && file.first_row_id) {
    return InvalidArgument("Delete file ", file.file_path, " cannot have a first_row_id");
  }
  return OkStatus();
}

Status ManifestWriter::Write(const EntryHeader& entry, const DataFile& file) {
  SKADE_RETURN_NOT_OK(CheckFile(file));
  if (options_.format_version >= 2 && entry.status != ManifestEntryStatus::kAdded &&
      !entry.sequence_number) {
    return InvalidArgument("Only ADDED entries may inherit a sequence number: ", file.file_path);
  }
  Status status = WriteEntry(writer_->encoder(), *entry_schema_, *partition_type_, entry, file);
  if (!status) {
    writer_->DiscardDatum();
    return status;
  }
  SKADE_RETURN_NOT_OK(writer_->EndDatum());

  switch (entry.status) {
    case ManifestEntryStatus::kAdded:
      ++added_files_;
      added_rows_ += file.record_count;
      break;
    case ManifestEntryStatus::kExisting:
      ++existing_files_;
      existing_rows_ += file.record_count;
      break;
    case ManifestEntryStatus::kDeleted:
      ++deleted_files_;
      deleted_rows_ += file.record_count;
      break;
  }
  // The minimum data sequence number covers live files only.
  if (entry.status != ManifestEntryStatus::kDeleted && entry.sequence_number) {
    min_sequence_number_ =
        std::min(min_sequence_number_.value_or(*entry.sequence_number), *entry.sequence_number);
  }
  summary_.Update(file.partition);
  return OkStatus();
}

Status ManifestWriter::Add(const DataFile& file) {
  return Write({ManifestEntryStatus::kAdded, options_.snapshot_id, std::nullopt, std::nullopt},
               file);
}

Status ManifestWriter::Add(const DataFile& file, int64_t data_sequence_number) {
  return Write(
      {ManifestEntryStatus::kAdded, options_.snapshot_id, data_sequence_number, std::nullopt},
      file);
}

Status ManifestWriter::Existing(const ManifestEntry& entry) {
  if (!entry.snapshot_id) {
    return InvalidArgument("An EXISTING entry needs its snapshot id: ", entry.data_file.file_path);
  }
  return Write({ManifestEntryStatus::kExisting, entry.snapshot_id, entry.sequence_number,
                entry.file_sequence_number},
               entry.data_file);
}

Status ManifestWriter::Delete(const ManifestEntry& entry) {
  return Write({ManifestEntryStatus::kDeleted, options_.snapshot_id, entry.sequence_number,
                entry.file_sequence_number},
               entry.data_file);
}

Result<WrittenManifest> ManifestWriter::Finish(std::string location) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, writer_->Finish());
  spec::ManifestFile manifest;
  manifest.manifest_path = std::move(location);
  manifest.manifest_length = static_cast<int64_t>(bytes.size());
  manifest.partition_spec_id = spec_->spec_id;
  manifest.content = options_.content;
  manifest.sequence_number = spec::kUnassignedSequenceNumber;
  manifest.min_sequence_number = min_sequence_number_.value_or(spec::kUnassignedSequenceNumber);
  manifest.added_snapshot_id = options_.snapshot_id;
  manifest.added_files_count = added_files_;
  manifest.existing_files_count = existing_files_;
  manifest.deleted_files_count = deleted_files_;
  manifest.added_rows_count = added_rows_;
  manifest.existing_rows_count = existing_rows_;
  manifest.deleted_rows_count = deleted_rows_;
  manifest.partitions = summary_.Summaries();
  manifest.first_row_id = options_.first_row_id;
  return WrittenManifest{std::move(bytes), std::move(manifest)};
}

Result<spec::ManifestFile> ManifestWriter::WriteTo(io::FileIO& io, std::string_view location,
                                                   bool durable) {
  SKADE_ASSIGN_OR_RAISE(WrittenManifest written, Finish(std::string(location)));
  SKADE_RETURN_NOT_OK(io.WriteFile(location, written.bytes, durable));
  return std::move(written.manifest_file);
}

}  // namespace skade::avro
