// The Iceberg schemas of manifest files (manifest_entry, with data_file) and
// manifest lists (manifest_file) for format versions 1-3 (Iceberg spec:
// "Manifests", "Manifest Lists").
//
// Field names, ids, order and optionality follow the spec tables per
// version; docs follow Iceberg Java. The Avro forms (ToAvroSchema) name the
// records "manifest_entry", "r2" (data_file), "r102" (partition),
// "manifest_file" and "r508" (field_summary), as Iceberg Java does.
// Stateless; thread-safe.
#pragma once

#include <cstdint>

#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace skade::avro {

/// Field ids of manifest_entry and data_file.
namespace manifest_field {
inline constexpr int32_t kStatus = 0;
inline constexpr int32_t kSnapshotId = 1;
inline constexpr int32_t kDataFile = 2;
inline constexpr int32_t kSequenceNumber = 3;
inline constexpr int32_t kFileSequenceNumber = 4;
inline constexpr int32_t kFilePath = 100;
inline constexpr int32_t kFileFormat = 101;
inline constexpr int32_t kPartition = 102;
inline constexpr int32_t kRecordCount = 103;
inline constexpr int32_t kFileSizeInBytes = 104;
inline constexpr int32_t kBlockSizeInBytes = 105;
inline constexpr int32_t kColumnSizes = 108;
inline constexpr int32_t kValueCounts = 109;
inline constexpr int32_t kNullValueCounts = 110;
inline constexpr int32_t kLowerBounds = 125;
inline constexpr int32_t kUpperBounds = 128;
inline constexpr int32_t kKeyMetadata = 131;
inline constexpr int32_t kSplitOffsets = 132;
inline constexpr int32_t kContent = 134;
inline constexpr int32_t kEqualityIds = 135;
inline constexpr int32_t kNanValueCounts = 137;
inline constexpr int32_t kSortOrderId = 140;
inline constexpr int32_t kFirstRowId = 142;
inline constexpr int32_t kReferencedDataFile = 143;
inline constexpr int32_t kContentOffset = 144;
inline constexpr int32_t kContentSizeInBytes = 145;
}  // namespace manifest_field

/// Field ids of manifest_file and field_summary.
namespace manifest_list_field {
inline constexpr int32_t kManifestPath = 500;
inline constexpr int32_t kManifestLength = 501;
inline constexpr int32_t kPartitionSpecId = 502;
inline constexpr int32_t kAddedSnapshotId = 503;
inline constexpr int32_t kAddedFilesCount = 504;
inline constexpr int32_t kExistingFilesCount = 505;
inline constexpr int32_t kDeletedFilesCount = 506;
inline constexpr int32_t kPartitions = 507;
inline constexpr int32_t kPartitionsElement = 508;
inline constexpr int32_t kContainsNull = 509;
inline constexpr int32_t kLowerBound = 510;
inline constexpr int32_t kUpperBound = 511;
inline constexpr int32_t kAddedRowsCount = 512;
inline constexpr int32_t kExistingRowsCount = 513;
inline constexpr int32_t kDeletedRowsCount = 514;
inline constexpr int32_t kSequenceNumber = 515;
inline constexpr int32_t kMinSequenceNumber = 516;
inline constexpr int32_t kContent = 517;
inline constexpr int32_t kContainsNan = 518;
inline constexpr int32_t kKeyMetadata = 519;
inline constexpr int32_t kFirstRowId = 520;
}  // namespace manifest_list_field

/// v1 manifests must carry block_size_in_bytes; Iceberg writes this default.
inline constexpr int64_t kDefaultBlockSize = 64 * 1024 * 1024;

/// The manifest_entry struct for `format_version` (1-3) whose data_file
/// partition field (102) has type `partition_type` (a struct).
/// kInvalidArgument for another version.
Result<spec::TypePtr> ManifestEntryType(int format_version, const spec::TypePtr& partition_type);

/// The manifest_file struct of manifest lists for `format_version` (1-3).
Result<spec::TypePtr> ManifestFileType(int format_version);

}  // namespace skade::avro
