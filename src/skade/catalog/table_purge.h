// Deleting a dropped table's files (DROP TABLE … PURGE).
#pragma once

#include <string>

#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// Deletes every file reachable from `metadata` (whose own file is
/// `metadata_location`): data and delete files listed in its manifests, the
/// manifests, the manifest lists, statistics files, and the metadata files
/// in metadata-log; then removes directories left empty under the table
/// location. Only referenced files are deleted, never whole directories, so
/// another table sharing a directory is untouched. Best effort: continues
/// past missing files and returns the first other error.
Status PurgeTableFiles(io::FileIO& io, const spec::TableMetadata& metadata,
                       const std::string& metadata_location);

}  // namespace skade::catalog
