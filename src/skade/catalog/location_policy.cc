#include "skade/catalog/location_policy.h"

#include <algorithm>
#include <filesystem>

#include "skade/io/file_io.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// `root` as a normalized absolute path: a relative path is taken from the
// working directory (the CLI's default warehouse is `./warehouse`).
Result<std::string> NormalizedRoot(const std::string& root) {
  if (root.starts_with("/") || root.find(':') != std::string::npos) {
    return NormalizedLocalPath(root);
  }
  std::error_code ec;
  auto absolute = std::filesystem::absolute(root, ec);
  if (ec) return InvalidArgument("Cannot resolve location root ", root, ": ", ec.message());
  return NormalizedLocalPath(absolute.lexically_normal().string());
}

// `path` with the symbolic links of its existing prefix resolved.
std::string Resolved(const std::string& path) {
  std::error_code ec;
  auto resolved = std::filesystem::weakly_canonical(path, ec);
  if (ec) return path;
  auto normalized = NormalizedLocalPath(resolved.string());
  return normalized ? *normalized : path;
}

}  // namespace

Result<std::string> NormalizedLocalPath(const std::string& location) {
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

bool PathIsUnder(const std::string& path, const std::string& root) {
  return path == root || root == "/" || path.starts_with(root + "/");
}

LocationPolicy::LocationPolicy(const std::string& warehouse,
                               const std::vector<std::string>& allowed) {
  std::vector<std::string> roots = allowed;
  roots.push_back(warehouse);
  for (const auto& root : roots) {
    if (root == "*") {
      anywhere_ = true;
      continue;
    }
    auto path = NormalizedRoot(root);
    if (!path) continue;
    for (std::string form : {*path, Resolved(*path)}) {
      if (std::find(roots_.begin(), roots_.end(), form) == roots_.end()) roots_.push_back(form);
    }
  }
  auto home = NormalizedRoot(warehouse);
  warehouse_ = home ? *home : "/";
  reserved_ = StrCat(warehouse_ == "/" ? "" : warehouse_, "/.skade");
}

Status LocationPolicy::Check(const std::string& location) const {
  SKADE_ASSIGN_OR_RAISE(std::string path, NormalizedLocalPath(location));
  if (PathIsUnder(path, reserved_)) {
    return MakeError(ErrorKind::kForbidden, "Location ", location,
                     " is inside the catalog's own directory");
  }
  if (anywhere_) return OkStatus();
  for (const auto& root : roots_) {
    if (PathIsUnder(path, root)) return OkStatus();
  }
  return MakeError(ErrorKind::kForbidden, "Location ", location,
                   " is outside the allowed locations (", Join(roots_, ", "),
                   "); allow it with --allow-location");
}

}  // namespace skade::catalog
