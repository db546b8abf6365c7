// Which table locations a catalog may write under.
//
// A REST client chooses table locations (CreateTable `location`,
// `set-location`, `write.metadata.path`, register); the server then writes
// metadata files there with its own privileges. By default only the
// warehouse is allowed, as managed catalogs (Polaris, Lakekeeper) do; more
// roots can be allowed explicitly, or "*" for anywhere. Immutable; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "skade/util/result.h"

namespace skade::catalog {

class LocationPolicy {
 public:
  /// `allowed` are location prefixes (file: URIs or absolute paths); "*"
  /// allows everything. An empty list allows only `warehouse`.
  LocationPolicy(const std::string& warehouse, const std::vector<std::string>& allowed);

  /// kForbidden (naming the location and the allowed roots) unless
  /// `location` is at or under an allowed root; kInvalidArgument for a
  /// location skade cannot write (another scheme, a relative path, "..").
  Status Check(const std::string& location) const;

 private:
  bool anywhere_ = false;
  std::vector<std::string> roots_;  // normalized local paths without a trailing '/'
};

}  // namespace skade::catalog
