// Where the write path puts a table's files, and how it names them — the one
// place that knows (as LevelDB's db/filename.h).
//
// Names follow Iceberg Java: manifests `<metadata dir>/<commit uuid>-m<N>.avro`,
// manifest lists `<metadata dir>/snap-<snapshot id>-<attempt>-<commit uuid>.avro`,
// data files `<data dir>/<partition path>/<name>`. The metadata dir is
// `write.metadata.path` or `<location>/metadata`; the data dir is
// `write.data.path` or `<location>/data`. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "skade/spec/table_metadata.h"

namespace skade::table {

/// `write.metadata.path`, else `<location>/metadata`; no trailing '/'.
std::string MetadataDirectory(const spec::TableMetadata& metadata);

/// `write.data.path`, else `<location>/data`; no trailing '/'.
std::string DataDirectory(const spec::TableMetadata& metadata);

/// The `index`-th manifest written by the commit `commit_uuid`.
std::string ManifestLocation(const spec::TableMetadata& metadata, std::string_view commit_uuid,
                             int index);

/// The manifest list of `snapshot_id` written by the `attempt`-th (from 1)
/// try of the commit `commit_uuid`.
std::string ManifestListLocation(const spec::TableMetadata& metadata, int64_t snapshot_id,
                                 int attempt, std::string_view commit_uuid);

/// The `seq`-th (from 0) data file an ingest under `prefix` writes:
/// `<prefix>-<seq:08>.parquet`.
std::string DataFileName(std::string_view prefix, int64_t seq);

/// A data file named `file_name` in the partition directory `partition_path`
/// ("a=1/b=x", empty for an unpartitioned table).
std::string DataFileLocation(const spec::TableMetadata& metadata, std::string_view partition_path,
                             std::string_view file_name);

}  // namespace skade::table
