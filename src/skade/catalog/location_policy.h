// Which locations a catalog may write under, and which files it may touch.
//
// A REST client chooses table locations (CreateTable `location`,
// `set-location`, `write.metadata.path`, register); the server then writes
// metadata files there with its own privileges. By default only the
// warehouse is allowed, as managed catalogs (Polaris, Lakekeeper) do; more
// roots can be allowed explicitly, or "*" for anywhere. The warehouse is
// always allowed. Roots are normalised once, the same way: a relative root is
// taken from the working directory, and each root is also kept with its
// symbolic links resolved, so `./warehouse` and its real path both match.
//
// The store's own directory (`<warehouse>/.skade`) is never an allowed
// location, whatever the roots say. Immutable; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "skade/util/result.h"

namespace skade::catalog {

/// The local path of `location` (a file: URI or an absolute path) with
/// duplicate and trailing slashes removed. kInvalidArgument for another
/// scheme, a relative path, or a "." or ".." segment (so a prefix check on
/// the result cannot be fooled).
Result<std::string> NormalizedLocalPath(const std::string& location);

/// True if the normalized path `path` is `root` or lies under it.
bool PathIsUnder(const std::string& path, const std::string& root);

class LocationPolicy {
 public:
  /// `warehouse` is an absolute path or file: URI; `allowed` are location
  /// prefixes (file: URIs, absolute or relative paths); "*" allows
  /// everything. Unusable roots are ignored.
  LocationPolicy(const std::string& warehouse, const std::vector<std::string>& allowed);

  /// kForbidden (naming the location and the allowed roots) unless
  /// `location` is at or under an allowed root and not in the store's own
  /// directory; kInvalidArgument for a location skade cannot write (another
  /// scheme, a relative path, "..").
  Status Check(const std::string& location) const;

  /// The warehouse and the store's directory in it (`<warehouse>/.skade`),
  /// as normalized paths.
  const std::string& warehouse_directory() const { return warehouse_; }
  const std::string& reserved_directory() const { return reserved_; }

 private:
  bool anywhere_ = false;
  std::vector<std::string> roots_;  // normalized, as given and with links resolved
  std::string warehouse_;
  std::string reserved_;
};

}  // namespace skade::catalog
