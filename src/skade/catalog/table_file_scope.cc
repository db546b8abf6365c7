#include "skade/catalog/table_file_scope.h"

#include <filesystem>

#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// `path` with the symbolic links of its directory resolved (the file itself
// is not followed: deleting a link removes the link). nullopt if the
// directory cannot be resolved.
std::optional<std::string> ResolvedPath(const std::string& path) {
  std::filesystem::path p(path);
  std::error_code ec;
  auto directory = std::filesystem::weakly_canonical(p.parent_path(), ec);
  if (ec) return std::nullopt;
  auto normalized = NormalizedLocalPath((directory / p.filename()).string());
  if (!normalized) return std::nullopt;
  return *normalized;
}

}  // namespace

TableFileScope::TableFileScope(const spec::TableMetadata& metadata, const LocationPolicy& policy)
    : policy_(&policy) {
  for (const std::string& root : {metadata.location, metadata.Property(spec::kDataPath, ""),
                                  metadata.Property(spec::kMetadataPath, "")}) {
    if (root.empty()) continue;
    auto path = NormalizedLocalPath(root);
    // A table never owns the warehouse (other tables live there) or above it.
    if (!path || PathIsUnder(policy.warehouse_directory(), *path)) continue;
    roots_.push_back(*path);
    std::error_code ec;
    auto resolved = std::filesystem::weakly_canonical(*path, ec);
    if (!ec) {
      auto normalized = NormalizedLocalPath(resolved.string());
      if (normalized && *normalized != *path &&
          !PathIsUnder(policy.warehouse_directory(), *normalized)) {
        roots_.push_back(*normalized);
      }
    }
  }
}

bool TableFileScope::Contains(const std::string& path) const {
  if (!policy_->Check(path)) return false;
  for (const auto& root : roots_) {
    if (path != root && PathIsUnder(path, root)) return true;
  }
  return false;
}

Status TableFileScope::Check(const std::string& location) const {
  auto path = NormalizedLocalPath(location);
  if (!path) return MakeError(ErrorKind::kForbidden, path.error().message);
  if (Contains(*path)) {
    auto resolved = ResolvedPath(*path);
    if (resolved && (*resolved == *path || Contains(*resolved))) return OkStatus();
  }
  return MakeError(ErrorKind::kForbidden, "File ", location, " is outside the table's locations (",
                   Join(roots_, ", "), ")");
}

}  // namespace skade::catalog
