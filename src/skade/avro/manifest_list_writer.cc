#include "skade/avro/manifest_list_writer.h"

#include <iterator>
#include <map>
#include <mutex>

#include "skade/avro/manifest_schema.h"
#include "skade/avro/type_conversion.h"
#include "skade/spec/json_serde.h"
#include "skade/spec/schema.h"

namespace skade::avro {

namespace {

namespace f = manifest_list_field;

// Starts a field's value: writes the union branch of an optional field (null
// is branch 0 in the schemas we write). Returns whether a value follows.
bool BeginField(Encoder& encoder, const Field& field, bool present) {
  if (field.type->type == AvroType::kUnion) encoder.WriteUnionIndex(present ? 1 : 0);
  return present;
}

void WriteOptionalBytes(Encoder& encoder, const Field& field,
                        const std::optional<std::string>& value) {
  if (BeginField(encoder, field, value.has_value())) encoder.WriteBytes(*value);
}

void WriteSummaries(Encoder& encoder, const Field& field,
                    const std::vector<spec::PartitionFieldSummary>& summaries) {
  BeginField(encoder, field, true);
  if (!summaries.empty()) {
    encoder.WriteBlockCount(static_cast<int64_t>(summaries.size()));
    const Node& array = field.type->NonNullBranch() ? *field.type->NonNullBranch() : *field.type;
    for (const spec::PartitionFieldSummary& summary : summaries) {
      for (const Field& summary_field : array.items->fields) {
        switch (*summary_field.field_id) {
          case f::kContainsNull:
            encoder.WriteBoolean(summary.contains_null);
            break;
          case f::kContainsNan:
            if (BeginField(encoder, summary_field, summary.contains_nan.has_value())) {
              encoder.WriteBoolean(*summary.contains_nan);
            }
            break;
          case f::kLowerBound:
            WriteOptionalBytes(encoder, summary_field, summary.lower_bound);
            break;
          case f::kUpperBound:
            WriteOptionalBytes(encoder, summary_field, summary.upper_bound);
            break;
        }
      }
    }
  }
  encoder.WriteEndOfBlocks();
}

void WriteManifestFile(Encoder& encoder, const Node& record, const spec::ManifestFile& manifest) {
  for (const Field& field : record.fields) {
    // Every field but partitions, key_metadata and first_row_id has a value;
    // in v1 the counts are optional and written non-null.
    switch (*field.field_id) {
      case f::kManifestPath:
        encoder.WriteString(manifest.manifest_path);
        break;
      case f::kManifestLength:
        encoder.WriteLong(manifest.manifest_length);
        break;
      case f::kPartitionSpecId:
        encoder.WriteInt(manifest.partition_spec_id);
        break;
      case f::kContent:
        encoder.WriteInt(static_cast<int32_t>(manifest.content));
        break;
      case f::kSequenceNumber:
        encoder.WriteLong(manifest.sequence_number);
        break;
      case f::kMinSequenceNumber:
        encoder.WriteLong(manifest.min_sequence_number);
        break;
      case f::kAddedSnapshotId:
        encoder.WriteLong(manifest.added_snapshot_id);
        break;
      case f::kAddedFilesCount:
        BeginField(encoder, field, true);
        encoder.WriteInt(manifest.added_files_count);
        break;
      case f::kExistingFilesCount:
        BeginField(encoder, field, true);
        encoder.WriteInt(manifest.existing_files_count);
        break;
      case f::kDeletedFilesCount:
        BeginField(encoder, field, true);
        encoder.WriteInt(manifest.deleted_files_count);
        break;
      case f::kAddedRowsCount:
        BeginField(encoder, field, true);
        encoder.WriteLong(manifest.added_rows_count);
        break;
      case f::kExistingRowsCount:
        BeginField(encoder, field, true);
        encoder.WriteLong(manifest.existing_rows_count);
        break;
      case f::kDeletedRowsCount:
        BeginField(encoder, field, true);
        encoder.WriteLong(manifest.deleted_rows_count);
        break;
      case f::kPartitions:
        WriteSummaries(encoder, field, manifest.partitions);
        break;
      case f::kKeyMetadata:
        WriteOptionalBytes(encoder, field, manifest.key_metadata);
        break;
      case f::kFirstRowId:
        if (BeginField(encoder, field, manifest.first_row_id.has_value())) {
          encoder.WriteLong(*manifest.first_row_id);
        }
        break;
    }
  }
}

// A format version's manifest_file schema, as Avro and as the JSON of both
// forms: the same for every list, built once (a commit writes a list).
struct ListShape {
  NodePtr schema;
  std::string avro_json;
  std::string iceberg_json;
};

Result<std::shared_ptr<const ListShape>> ListShapeFor(int format_version) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<const ListShape>> shapes;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = shapes.find(format_version); found != shapes.end()) return found->second;
  SKADE_ASSIGN_OR_RAISE(spec::TypePtr type, ManifestFileType(format_version));
  auto shape = std::make_shared<ListShape>();
  SKADE_ASSIGN_OR_RAISE(shape->schema, ToAvroSchema(*type, "manifest_file"));
  shape->avro_json = SchemaToJson(*shape->schema);
  shape->iceberg_json = spec::SchemaToJson(spec::Schema(0, type->fields()));
  shapes.emplace(format_version, shape);
  return shape;
}

}  // namespace

Result<std::unique_ptr<ManifestListWriter>> ManifestListWriter::Make(
    const ManifestListWriterOptions& options) {
  SKADE_ASSIGN_OR_RAISE(auto shape, ListShapeFor(options.format_version));
  std::vector<std::pair<std::string, std::string>> metadata;
  metadata.emplace_back("snapshot-id", StrCat(options.snapshot_id));
  metadata.emplace_back("parent-snapshot-id", options.parent_snapshot_id
                                                  ? StrCat(*options.parent_snapshot_id)
                                                  : std::string("null"));
  if (options.format_version >= 2) {
    metadata.emplace_back("sequence-number", StrCat(options.sequence_number));
  }
  if (options.format_version >= 3) {
    metadata.emplace_back("first-row-id", StrCat(options.first_row_id));
  }
  metadata.emplace_back("format-version", StrCat(options.format_version));
  metadata.emplace_back("iceberg.schema", shape->iceberg_json);
  SKADE_ASSIGN_OR_RAISE(auto writer,
                        ContainerWriter::Make(shape->avro_json, std::move(metadata), options.avro));
  return std::unique_ptr<ManifestListWriter>(
      new ManifestListWriter(options, shape->schema, std::move(writer)));
}

ManifestListWriter::ManifestListWriter(const ManifestListWriterOptions& options, NodePtr schema,
                                       std::unique_ptr<ContainerWriter> writer)
    : options_(options),
      schema_(std::move(schema)),
      writer_(std::move(writer)),
      next_row_id_(options.first_row_id) {}

Status ManifestListWriter::Add(const spec::ManifestFile& manifest) {
  spec::ManifestFile prepared = manifest;
  bool is_data = manifest.content == spec::ManifestContent::kData;
  if (options_.format_version == 1 && !is_data) {
    return InvalidArgument("Cannot store delete manifests in a v1 table: ", manifest.manifest_path);
  }
  if (options_.format_version >= 2) {
    bool unassigned = manifest.sequence_number == spec::kUnassignedSequenceNumber ||
                      manifest.min_sequence_number == spec::kUnassignedSequenceNumber;
    if (unassigned && manifest.added_snapshot_id != options_.snapshot_id) {
      return InvalidArgument("Found unassigned sequence number for a manifest from snapshot ",
                             manifest.added_snapshot_id, ": ", manifest.manifest_path);
    }
    if (prepared.sequence_number == spec::kUnassignedSequenceNumber) {
      prepared.sequence_number = options_.sequence_number;
    }
    if (prepared.min_sequence_number == spec::kUnassignedSequenceNumber) {
      prepared.min_sequence_number = options_.sequence_number;
    }
  }
  if (options_.format_version == 1) {
    // Not in a v1 list: read back as the spec's defaults.
    prepared.sequence_number = 0;
    prepared.min_sequence_number = 0;
  }
  if (options_.format_version < 3) {
    prepared.first_row_id.reset();  // not in the schema before v3
  } else {
    if (!is_data) {
      prepared.first_row_id.reset();
    } else if (!prepared.first_row_id) {
      // Leave room for existing rows too: files carried over from a pre-v3
      // snapshot have no row ids yet and take theirs from this range.
      // The counts may come from a client's list (a rebased append): a
      // negative one would hand out row ids already taken.
      int64_t rows = 0;
      int64_t next = 0;
      if (manifest.added_rows_count < 0 || manifest.existing_rows_count < 0 ||
          __builtin_add_overflow(manifest.added_rows_count, manifest.existing_rows_count, &rows) ||
          __builtin_add_overflow(next_row_id_, rows, &next)) {
        return InvalidArgument("Cannot assign row ids to manifest ", manifest.manifest_path,
                               ": added rows ", manifest.added_rows_count, " and existing rows ",
                               manifest.existing_rows_count, " after row id ", next_row_id_,
                               " are negative or overflow");
      }
      prepared.first_row_id = next_row_id_;
      next_row_id_ = next;
    }
  }
  WriteManifestFile(writer_->encoder(), *schema_, prepared);
  SKADE_RETURN_NOT_OK(writer_->EndDatum());
  manifests_.push_back(std::move(prepared));
  return OkStatus();
}

bool ManifestListWriter::CanCopy(const EncodedManifests& encoded,
                                 const ManifestListWriterOptions& options) {
  return encoded.format_version == options.format_version && encoded.codec == options.avro.codec &&
         options.avro.sync_marker && encoded.sync_marker == *options.avro.sync_marker &&
         encoded.block_count < EncodedManifests::kMaxCopiedBlocks;
}

Status ManifestListWriter::AddEncoded(const EncodedManifests& encoded,
                                      std::vector<spec::ManifestFile> manifests) {
  if (!CanCopy(encoded, options_) || encoded.manifest_count != manifests.size()) {
    return InvalidArgument("Cannot copy the blocks of another manifest list into this one");
  }
  // Their sequence numbers and row ids were assigned when they were first
  // written, so encoding them again would make the same bytes.
  SKADE_RETURN_NOT_OK(writer_->AppendBlocks(encoded.blocks, encoded.block_count));
  manifests_.insert(manifests_.end(), std::make_move_iterator(manifests.begin()),
                    std::make_move_iterator(manifests.end()));
  return OkStatus();
}

ManifestListMetadata ManifestListWriter::metadata() const {
  ManifestListMetadata metadata;
  metadata.format_version = options_.format_version;
  metadata.snapshot_id = options_.snapshot_id;
  metadata.parent_snapshot_id = options_.parent_snapshot_id;
  if (options_.format_version >= 2) metadata.sequence_number = options_.sequence_number;
  if (options_.format_version >= 3) metadata.first_row_id = options_.first_row_id;
  return metadata;
}

Result<std::string> ManifestListWriter::Finish() {
  SKADE_ASSIGN_OR_RAISE(std::string file, writer_->Finish());
  auto encoded = std::make_shared<EncodedManifests>();
  encoded->format_version = options_.format_version;
  encoded->codec = writer_->codec();
  encoded->sync_marker = writer_->sync_marker();
  encoded->blocks = file.substr(writer_->header_size());
  encoded->block_count = writer_->blocks();
  encoded->manifest_count = manifests_.size();
  encoded_ = std::move(encoded);
  return file;
}

Status ManifestListWriter::WriteTo(io::FileIO& io, std::string_view location, bool durable) {
  SKADE_ASSIGN_OR_RAISE(std::string bytes, Finish());
  return io.WriteFile(location, bytes, durable);
}

}  // namespace skade::avro
