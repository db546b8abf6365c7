// Table location claims: what the catalog tells the store each table owns
// (CatalogStore's table locations), so that no two tables own overlapping
// locations and a purge or metadata cleanup of one (TableFileScope) never
// reaches another's files. A client choosing a location — CreateTable's
// `location`, register, `set-location`, a path property
// (spec::kTableRootProperties) — could otherwise name a namespace's directory or
// another table's, then purge it.
#pragma once

#include <string>
#include <vector>

#include "skade/catalog/location_policy.h"
#include "skade/catalog/table_purge.h"
#include "skade/io/file_io.h"
#include "skade/io/location.h"
#include "skade/spec/table_metadata.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// The locations `metadata`'s table owns: its TableFileScope roots (location,
/// data and metadata paths, as written and as resolved), as the store
/// compares them: `scheme://authority/path` without a trailing '/', with
/// `s3a` and `s3n` as `s3` (one storage to the S3 FileIO).
/// The errors of CheckOwnRoots, and kInvalidArgument for one longer than
/// kMaxOwnedLocationBytes.
Result<std::vector<std::string>> OwnedLocations(const spec::TableMetadata& metadata,
                                                const LocationPolicy& policy);
/// The one check of the roots a client chose for `metadata`'s table (its
/// location, data and metadata paths), on create, register and every commit
/// that changes them: each must pass LocationPolicy::CheckTableRoot (inside
/// the allowed roots, else kForbidden; no '#' or '?', which clients cut a
/// URI at, else kInvalidArgument), and none, as written or as resolved, may
/// be the warehouse or above it — where other tables live, which no table
/// may own — or inside the store's directory (kForbidden). OwnedLocations
/// checks it too; a commit checks it for each request that changes the
/// roots, so that only that request fails. Tables from before a rule are
/// claimed without it (ClaimUnclaimedTables) and stay writable until a
/// commit changes their roots.
Status CheckOwnRoots(const spec::TableMetadata& metadata, const LocationPolicy& policy);

/// `location` as the store's claims compare it (see OwnedLocations).
std::string ClaimForm(const io::Location& location);

/// No file system or object store has paths this long (Linux: 4096, S3 keys:
/// 1024); the store's claims cost grows with the square of the length.
inline constexpr size_t kMaxOwnedLocationBytes = 4096;

/// For a purge (OwnedElsewhere): which files lie in a location a table
/// owns now, asked of `store` in one read. A path longer than any storage
/// has is no file: it is left alone, not looked up.
OwnedElsewhere FilesOwnedByTables(store::CatalogStore& store, const LocationPolicy& policy);

/// Whether `before` and `after` have the same location, data path and
/// metadata path (the inputs of OwnedLocations).
bool SameOwnedRoots(const spec::TableMetadata& before, const spec::TableMetadata& after);

/// Records the locations of every table the store has none recorded for
/// (tables from before it kept them), reading each one's current metadata;
/// two that already overlap are both recorded (CatalogStore::
/// ClaimTableLocations), so no new table overlaps either, and so is a root
/// outside today's allowed roots or with a '#' (only the warehouse and the
/// store's directory are never claimed). A table whose metadata cannot be
/// read is logged and tried again at the next open. Fails only if the store
/// does.
Status ClaimUnclaimedTables(io::FileIO& io, store::CatalogStore& store,
                            const LocationPolicy& policy);

}  // namespace skade::catalog
