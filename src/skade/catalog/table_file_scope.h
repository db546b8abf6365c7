// The files of one table that skade may read or delete on that table's
// behalf: the one rule for every path that comes from client-written
// metadata (manifest lists, manifests, data, delete and statistics files,
// metadata-log entries).
//
// A file is in scope when it lies under the table's location, or under a
// path property of spec::kTableRootProperties when set (`write.data.path`,
// `write.metadata.path` and the deprecated data paths Java still writes to),
// and also inside the
// catalog's allowed locations, and never in the store's own directory
// (`<warehouse>/.skade`). Locations are compared as URIs (io::Location). The
// check is made on the location as written and again with its directory
// resolved by the catalog's FileIO (FileIO::ResolveLocation: symbolic links,
// locally), so a link cannot lead a purge out of the table. A root counts
// where it leads only through links above the allowed root it lies in (the
// warehouse on a linked mount is the operator's); a link below, which anyone
// who can write in the table may make, is not followed. Anything else is
// skipped by the caller and logged, never followed. Immutable; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "skade/catalog/location_policy.h"
#include "skade/io/location.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// A table's roots as its metadata writes them: its location, then each
/// property of spec::kTableRootProperties that is set.
std::vector<std::string> TableRoots(const spec::TableMetadata& metadata);

class TableFileScope {
 public:
  /// The scope of `metadata`'s table under `policy` (which must outlive it).
  TableFileScope(const spec::TableMetadata& metadata, const LocationPolicy& policy);

  /// OK if `location` is in scope; kForbidden (naming the file) if not.
  /// The file's own link is not followed: what a delete needs.
  Status Check(const std::string& location) const;
  /// As Check, returning `location` with its directory resolved, to delete
  /// with FileIO::DeleteCheckedFile (which follows no link made since).
  Result<io::Location> CheckDelete(const std::string& location) const;
  /// As Check, and the file's own link (if it is one) must lead inside the
  /// scope too: what a read needs, since reading follows it. Returns where
  /// it leads, to read with FileIO::ReadCheckedFileUpTo (which follows no
  /// link made since).
  Result<io::Location> CheckRead(const std::string& location) const;

  /// The table's roots (location, data and metadata paths), normalised, as
  /// written and as resolved.
  const std::vector<io::Location>& roots() const { return roots_; }

 private:
  bool Contains(const io::Location& location) const;

  const LocationPolicy* policy_;
  std::vector<io::Location> roots_;
};

}  // namespace skade::catalog
