// Table location claims: what the catalog tells the store each table owns
// (CatalogStore's table locations), so that no two tables own overlapping
// locations and a purge or metadata cleanup of one (TableFileScope) never
// reaches another's files. A client choosing a location — CreateTable's
// `location`, register, `set-location`, `write.data.path`,
// `write.metadata.path` — could otherwise name a namespace's directory or
// another table's, then purge it.
#pragma once

#include <string>
#include <vector>

#include "skade/catalog/location_policy.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// The locations `metadata`'s table owns: its TableFileScope roots (location,
/// data and metadata paths, as written and as resolved), as URIs.
std::vector<std::string> OwnedLocations(const spec::TableMetadata& metadata,
                                        const LocationPolicy& policy);

/// Whether `before` and `after` have the same location, data path and
/// metadata path (the inputs of OwnedLocations).
bool SameOwnedRoots(const spec::TableMetadata& before, const spec::TableMetadata& after);

/// Claims the locations of every table the store has none recorded for
/// (tables from before it kept them), reading each one's current metadata.
/// A table whose metadata cannot be read, or whose locations overlap
/// another's (two tables that already share files), is logged and left
/// unclaimed; it is tried again at the next open. Fails only if the store
/// does.
Status ClaimUnclaimedTables(io::FileIO& io, store::CatalogStore& store,
                            const LocationPolicy& policy);

}  // namespace skade::catalog
