// Where a table's files live and how they are named — the one place that
// knows, for the catalog (metadata files) and the write path (manifests,
// manifest lists, data files), as LevelDB's db/filename.h.
//
// Names follow Iceberg Java:
//   metadata files  <metadata dir>/NNNNN-<uuid>.metadata.json, or
//                   NNNNN-<uuid>.gz.metadata.json when the table property
//                   `write.metadata.compression-codec` is gzip
//   manifest lists  <metadata dir>/snap-<snapshot id>-<attempt>-<commit uuid>.avro
//   manifests       <metadata dir>/<commit uuid>-m<N>.avro
//   data files      <data dir>/<partition path>/<name>; ingest names them
//                   <prefix>-<seq:08>.parquet
// The metadata dir is `write.metadata.path` or `<location>/metadata`; the
// data dir is `write.data.path` or `<location>/data`. Pure functions over
// strings (no file is touched); thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "skade/spec/table_metadata.h"

namespace skade::spec {

/// `write.metadata.path`, else `<location>/metadata`; no trailing '/'.
std::string MetadataDirectory(const TableMetadata& metadata);

/// `write.data.path`, else `<location>/data`; no trailing '/'.
std::string DataDirectory(const TableMetadata& metadata);

/// A fresh location (new random uuid) for version `version` of
/// `metadata`'s metadata file.
std::string NewMetadataLocation(const TableMetadata& metadata, int64_t version);

/// True for a metadata file NewMetadataLocation named for gzip content.
bool IsGzipMetadataLocation(std::string_view location);

/// The version number in a metadata file name ("00042-….metadata.json" →
/// 42), or -1 if the name does not follow the pattern. The catalog names
/// the next file with this + 1.
int64_t ParseMetadataVersion(std::string_view location);

/// The `index`-th manifest written by the commit `commit_uuid`.
std::string ManifestLocation(const TableMetadata& metadata, std::string_view commit_uuid,
                             int index);

/// The manifest list of `snapshot_id` written by the `attempt`-th (from 1)
/// try of the commit `commit_uuid`.
std::string ManifestListLocation(const TableMetadata& metadata, int64_t snapshot_id, int attempt,
                                 std::string_view commit_uuid);

/// The `seq`-th (from 0) data file an ingest under `prefix` writes:
/// `<prefix>-<seq:08>.parquet`.
std::string DataFileName(std::string_view prefix, int64_t seq);

/// A data file named `file_name` in the partition directory `partition_path`
/// ("a=1/b=x", empty for an unpartitioned table).
std::string DataFileLocation(const TableMetadata& metadata, std::string_view partition_path,
                             std::string_view file_name);

}  // namespace skade::spec
