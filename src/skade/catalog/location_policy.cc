#include "skade/catalog/location_policy.h"

#include "skade/io/file_io.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// The local path of `location` with duplicate and trailing slashes removed;
// "." and ".." segments are rejected so a prefix check cannot be fooled.
Result<std::string> NormalizedPath(const std::string& location) {
  SKADE_ASSIGN_OR_RAISE(std::string path, io::LocalPath(location));
  std::string out;
  for (const auto& segment : Split(path, '/')) {
    if (segment.empty()) continue;
    if (segment == "." || segment == "..") {
      return InvalidArgument("Invalid location '", location, "': '.' and '..' are not allowed");
    }
    StrAppend(&out, "/", segment);
  }
  return out.empty() ? std::string("/") : out;
}

}  // namespace

LocationPolicy::LocationPolicy(const std::string& warehouse,
                               const std::vector<std::string>& allowed) {
  std::vector<std::string> roots = allowed;
  if (roots.empty()) roots.push_back(warehouse);
  for (const auto& root : roots) {
    if (root == "*") {
      anywhere_ = true;
      continue;
    }
    auto path = NormalizedPath(root);
    if (path) roots_.push_back(*path);
  }
}

Status LocationPolicy::Check(const std::string& location) const {
  SKADE_ASSIGN_OR_RAISE(std::string path, NormalizedPath(location));
  if (anywhere_) return OkStatus();
  for (const auto& root : roots_) {
    if (path == root || root == "/" || path.starts_with(root + "/")) return OkStatus();
  }
  return MakeError(ErrorKind::kForbidden, "Location ", location,
                   " is outside the allowed locations (", Join(roots_, ", "),
                   "); allow it with --allow-location");
}

}  // namespace skade::catalog
