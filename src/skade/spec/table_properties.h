// Table property names that skade interprets, and their defaults.
#pragma once

#include <cstdint>
#include <string_view>

#include "skade/util/result.h"

namespace skade::spec {

inline constexpr char kFormatVersionProperty[] = "format-version";
inline constexpr char kPreviousVersionsMax[] = "write.metadata.previous-versions-max";
inline constexpr int64_t kPreviousVersionsMaxDefault = 100;
inline constexpr char kDeleteAfterCommitEnabled[] = "write.metadata.delete-after-commit.enabled";
inline constexpr bool kDeleteAfterCommitEnabledDefault = false;
inline constexpr char kMetadataCompression[] = "write.metadata.compression-codec";
inline constexpr char kMetadataPath[] = "write.metadata.path";
inline constexpr char kDataPath[] = "write.data.path";
// Deprecated data paths Iceberg Java's location providers still read when
// `write.data.path` is unset (object storage first, when enabled).
inline constexpr char kObjectStoragePath[] = "write.object-storage.path";
inline constexpr char kFolderStoragePath[] = "write.folder-storage.path";
/// The properties that name a directory a table's writers put files in:
/// each, when set, is one of the table's roots (catalog/table_file_scope.h).
inline constexpr const char* kTableRootProperties[] = {kDataPath, kMetadataPath, kObjectStoragePath,
                                                       kFolderStoragePath};
inline constexpr char kParquetCompression[] = "write.parquet.compression-codec";
inline constexpr char kParquetCompressionLevel[] = "write.parquet.compression-level";
inline constexpr char kParquetRowGroupSizeBytes[] = "write.parquet.row-group-size-bytes";
inline constexpr char kParquetPageSizeBytes[] = "write.parquet.page-size-bytes";
inline constexpr char kTargetFileSizeBytes[] = "write.target-file-size-bytes";
inline constexpr char kMetricsDefault[] = "write.metadata.metrics.default";
inline constexpr char kMetricsColumnPrefix[] = "write.metadata.metrics.column.";
// Manifest merging on append and row-delta commits (table/manifest_merge_internal.h).
inline constexpr char kManifestMergeEnabled[] = "commit.manifest-merge.enabled";
inline constexpr char kManifestMinCountToMerge[] = "commit.manifest.min-count-to-merge";
inline constexpr char kManifestTargetSizeBytes[] = "commit.manifest.target-size-bytes";

/// Properties that describe the metadata itself and are never stored in the
/// properties map (the REST create path strips them).
inline constexpr const char* kReservedProperties[] = {
    "format-version",           "uuid",
    "snapshot-count",           "current-snapshot-id",
    "current-snapshot-summary", "current-snapshot-timestamp-ms",
    "current-schema",           "default-partition-spec",
    "default-sort-order",
};

/// kInvalidArgument if `key` is an Iceberg table property whose readers
/// take an integer (Iceberg Java's PropertyUtil.propertyAsInt/Long throws on
/// anything else, so every later Spark write would fail) and `value` is not
/// one of its range.
Status CheckPropertyValue(std::string_view key, std::string_view value);

}  // namespace skade::spec
