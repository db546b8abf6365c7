#include "skade/avro/manifest_schema.h"

#include <vector>

namespace skade::avro {

namespace {

using spec::NestedField;
using spec::Type;
using spec::TypePtr;

NestedField Required(int32_t id, const char* name, TypePtr type, const char* doc = nullptr) {
  return NestedField{
      id, name, std::move(type), true, doc ? std::optional<std::string>(doc) : std::nullopt,
      {}, {}};
}

NestedField Optional(int32_t id, const char* name, TypePtr type, const char* doc = nullptr) {
  NestedField field = Required(id, name, std::move(type), doc);
  field.required = false;
  return field;
}

TypePtr IntLongMap(int32_t key_id, int32_t value_id) {
  return Type::Map(Required(key_id, "key", Type::Int()), Required(value_id, "value", Type::Long()));
}

TypePtr IntBinaryMap(int32_t key_id, int32_t value_id) {
  return Type::Map(Required(key_id, "key", Type::Int()),
                   Required(value_id, "value", Type::Binary()));
}

Result<TypePtr> DataFileType(int format_version, const TypePtr& partition_type) {
  namespace f = manifest_field;
  std::vector<NestedField> fields;
  if (format_version >= 2) {
    fields.push_back(Required(f::kContent, "content", Type::Int(),
                              "Contents of the file: 0=data, 1=position deletes, 2=equality "
                              "deletes"));
  }
  fields.push_back(
      Required(f::kFilePath, "file_path", Type::String(), "Location URI with FS scheme"));
  fields.push_back(Required(f::kFileFormat, "file_format", Type::String(),
                            "File format name: avro, orc, or parquet"));
  fields.push_back(Required(f::kPartition, "partition", partition_type,
                            "Partition data tuple, schema based on the partition spec"));
  fields.push_back(
      Required(f::kRecordCount, "record_count", Type::Long(), "Number of records in the file"));
  fields.push_back(Required(f::kFileSizeInBytes, "file_size_in_bytes", Type::Long(),
                            "Total file size in bytes"));
  if (format_version == 1) {
    fields.push_back(Required(f::kBlockSizeInBytes, "block_size_in_bytes", Type::Long()));
  }
  fields.push_back(Optional(f::kColumnSizes, "column_sizes", IntLongMap(117, 118),
                            "Map of column id to total size on disk"));
  fields.push_back(Optional(f::kValueCounts, "value_counts", IntLongMap(119, 120),
                            "Map of column id to total count, including null and NaN"));
  fields.push_back(Optional(f::kNullValueCounts, "null_value_counts", IntLongMap(121, 122),
                            "Map of column id to null value count"));
  fields.push_back(Optional(f::kNanValueCounts, "nan_value_counts", IntLongMap(138, 139),
                            "Map of column id to number of NaN values in the column"));
  fields.push_back(Optional(f::kLowerBounds, "lower_bounds", IntBinaryMap(126, 127),
                            "Map of column id to lower bound"));
  fields.push_back(Optional(f::kUpperBounds, "upper_bounds", IntBinaryMap(129, 130),
                            "Map of column id to upper bound"));
  fields.push_back(
      Optional(f::kKeyMetadata, "key_metadata", Type::Binary(), "Encryption key metadata blob"));
  fields.push_back(Optional(f::kSplitOffsets, "split_offsets",
                            Type::List(Required(133, "element", Type::Long())),
                            "Splittable offsets"));
  if (format_version >= 2) {
    fields.push_back(Optional(f::kEqualityIds, "equality_ids",
                              Type::List(Required(136, "element", Type::Int())),
                              "Equality comparison field IDs"));
  }
  fields.push_back(Optional(f::kSortOrderId, "sort_order_id", Type::Int(), "Sort order ID"));
  if (format_version >= 3) {
    fields.push_back(Optional(f::kFirstRowId, "first_row_id", Type::Long(),
                              "The first row ID assigned to the first row in the data file"));
  }
  if (format_version >= 2) {
    fields.push_back(Optional(f::kReferencedDataFile, "referenced_data_file", Type::String(),
                              "Fully qualified location (URI with FS scheme) of a data file that "
                              "all deletes reference"));
  }
  if (format_version >= 3) {
    fields.push_back(Optional(f::kContentOffset, "content_offset", Type::Long(),
                              "The offset in the file where the content starts"));
    fields.push_back(Optional(f::kContentSizeInBytes, "content_size_in_bytes", Type::Long(),
                              "The length of referenced content stored in the file"));
  }
  return Type::Struct(std::move(fields));
}

Status CheckVersion(int format_version) {
  if (format_version < 1 || format_version > 3) {
    return InvalidArgument("Unsupported format version for manifests: ", format_version);
  }
  return OkStatus();
}

}  // namespace

Result<TypePtr> ManifestEntryType(int format_version, const TypePtr& partition_type) {
  namespace f = manifest_field;
  SKADE_RETURN_NOT_OK(CheckVersion(format_version));
  if (!partition_type || partition_type->id() != spec::TypeId::kStruct) {
    return InvalidArgument("The partition type of a manifest must be a struct");
  }
  SKADE_ASSIGN_OR_RAISE(TypePtr data_file, DataFileType(format_version, partition_type));
  std::vector<NestedField> fields;
  fields.push_back(Required(f::kStatus, "status", Type::Int()));
  if (format_version == 1) {
    fields.push_back(Required(f::kSnapshotId, "snapshot_id", Type::Long()));
  } else {
    fields.push_back(Optional(f::kSnapshotId, "snapshot_id", Type::Long()));
    fields.push_back(Optional(f::kSequenceNumber, "sequence_number", Type::Long()));
    fields.push_back(Optional(f::kFileSequenceNumber, "file_sequence_number", Type::Long()));
  }
  fields.push_back(Required(f::kDataFile, "data_file", std::move(data_file)));
  return Type::Struct(std::move(fields));
}

Result<TypePtr> ManifestFileType(int format_version) {
  namespace f = manifest_list_field;
  SKADE_RETURN_NOT_OK(CheckVersion(format_version));
  // v1 counts are optional; v2 makes them required.
  auto count = format_version == 1 ? Optional : Required;
  TypePtr summary = Type::Struct({
      Required(f::kContainsNull, "contains_null", Type::Boolean(),
               "True if any file has a null partition value"),
      Optional(f::kContainsNan, "contains_nan", Type::Boolean(),
               "True if any file has a nan partition value"),
      Optional(f::kLowerBound, "lower_bound", Type::Binary(),
               "Partition lower bound for all files"),
      Optional(f::kUpperBound, "upper_bound", Type::Binary(),
               "Partition upper bound for all files"),
  });
  std::vector<NestedField> fields;
  fields.push_back(
      Required(f::kManifestPath, "manifest_path", Type::String(), "Location URI with FS scheme"));
  fields.push_back(
      Required(f::kManifestLength, "manifest_length", Type::Long(), "Total file size in bytes"));
  fields.push_back(
      Required(f::kPartitionSpecId, "partition_spec_id", Type::Int(), "Spec ID used to write"));
  if (format_version >= 2) {
    fields.push_back(Required(f::kContent, "content", Type::Int(),
                              "Contents of the manifest: 0=data, 1=deletes"));
    fields.push_back(Required(f::kSequenceNumber, "sequence_number", Type::Long(),
                              "Sequence number when the manifest was added"));
    fields.push_back(Required(f::kMinSequenceNumber, "min_sequence_number", Type::Long(),
                              "Lowest sequence number in the manifest"));
  }
  fields.push_back(Required(f::kAddedSnapshotId, "added_snapshot_id", Type::Long(),
                            "Snapshot ID that added the manifest"));
  fields.push_back(
      count(f::kAddedFilesCount, "added_files_count", Type::Int(), "Added entry count"));
  fields.push_back(
      count(f::kExistingFilesCount, "existing_files_count", Type::Int(), "Existing entry count"));
  fields.push_back(
      count(f::kDeletedFilesCount, "deleted_files_count", Type::Int(), "Deleted entry count"));
  fields.push_back(count(f::kAddedRowsCount, "added_rows_count", Type::Long(), "Added rows count"));
  fields.push_back(
      count(f::kExistingRowsCount, "existing_rows_count", Type::Long(), "Existing rows count"));
  fields.push_back(
      count(f::kDeletedRowsCount, "deleted_rows_count", Type::Long(), "Deleted rows count"));
  fields.push_back(Optional(f::kPartitions, "partitions",
                            Type::List(Required(f::kPartitionsElement, "element", summary)),
                            "Summary for each partition"));
  fields.push_back(
      Optional(f::kKeyMetadata, "key_metadata", Type::Binary(), "Encryption key metadata blob"));
  if (format_version >= 3) {
    fields.push_back(Optional(f::kFirstRowId, "first_row_id", Type::Long(),
                              "Starting row ID to assign to new rows in ADDED data files"));
  }
  return Type::Struct(std::move(fields));
}

}  // namespace skade::avro
