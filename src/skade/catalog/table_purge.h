// Deleting a dropped table's files (DROP TABLE … PURGE).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "skade/catalog/table_file_scope.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::catalog {

struct PurgeResult {
  int64_t deleted = 0;
  /// Files named by the metadata but outside `scope`: neither read nor deleted.
  int64_t skipped = 0;
};

/// Which of `files` (as the metadata names them) another table owns now: a
/// purge leaves those alone (see table_location_claims.h).
using OwnedElsewhere =
    std::function<Result<std::vector<bool>>(const std::vector<std::string>& files)>;

/// Deletes every file reachable from `metadata` (whose own file is
/// `metadata_location`) that lies in `scope` and that `owned_elsewhere` does
/// not claim for another table (one made at the location while the purge
/// ran, or one of an older store that shares it): data and delete files listed in
/// its manifests, the manifests, the manifest lists, statistics files, and
/// the metadata files in metadata-log; then removes directories left empty
/// under the table location. Every path comes from client-written metadata,
/// so a file outside `scope` is logged and skipped, and only regular files
/// up to kMaxMetadataReadBytes are read. Only referenced files are deleted,
/// never whole directories, so another table sharing a directory is
/// untouched. Best effort: continues past missing or unreadable files and
/// returns the first other deletion error. Thread-safe (no shared state).
Result<PurgeResult> PurgeTableFiles(io::FileIO& io, const spec::TableMetadata& metadata,
                                    const std::string& metadata_location,
                                    const TableFileScope& scope,
                                    const OwnedElsewhere& owned_elsewhere);

}  // namespace skade::catalog
