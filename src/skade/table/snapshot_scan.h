// Listing the files a snapshot holds, by reading its manifest list and
// manifests (no row-level planning). Stateless; thread-safe.
#pragma once

#include <vector>

#include "skade/spec/manifest_entry.h"
#include "skade/spec/snapshot.h"
#include "skade/table/table.h"
#include "skade/util/result.h"

namespace skade::table {

/// The live (ADDED or EXISTING) entries of `snapshot` of `table`, data and
/// delete files, in manifest-list order and file order within a manifest,
/// with snapshot ids, sequence numbers, spec ids and v3 row ids inherited.
/// Errors: FileIO errors (kNotFound for a missing manifest), kCorruption.
Result<std::vector<spec::ManifestEntry>> LiveEntries(const Table& table,
                                                     const spec::Snapshot& snapshot);

/// The live data files of the current snapshot of `table` (none without a
/// current snapshot), in the order of LiveEntries.
Result<std::vector<spec::DataFile>> CurrentDataFiles(const Table& table);

}  // namespace skade::table
