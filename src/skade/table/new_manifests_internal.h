// Writing the manifests of files a snapshot adds: one manifest per partition
// spec, in the order each spec first appears. Shared by FastAppend,
// OverwriteFiles and RowDelta.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/data_file.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::table {

/// Stores a finished manifest's bytes and returns its location.
using StoreManifest = std::function<Result<std::string>(std::string_view bytes)>;

/// Writes manifests for `files` (ADDED by `snapshot_id`) against `base`.
/// kInvalidArgument for a file of an unknown spec or a bad partition tuple.
Result<std::vector<spec::ManifestFile>> WriteAddedManifests(
    const spec::TableMetadata& base, int64_t snapshot_id, const std::vector<spec::DataFile>& files,
    const StoreManifest& store);

/// The same for delete files (position or equality deletes): delete
/// manifests. kInvalidArgument for a data file or a format version 1 table.
Result<std::vector<spec::ManifestFile>> WriteAddedDeleteManifests(
    const spec::TableMetadata& base, int64_t snapshot_id, const std::vector<spec::DataFile>& files,
    const StoreManifest& store);

}  // namespace skade::table
