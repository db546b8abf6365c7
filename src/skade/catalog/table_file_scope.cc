#include "skade/catalog/table_file_scope.h"

#include <optional>

#include "skade/spec/table_properties.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// `location` with its directory resolved by `io` (the file itself is not
// followed: deleting a link removes the link). nullopt if the directory
// cannot be resolved.
std::optional<io::Location> ResolvedFile(const io::FileIO& io, const io::Location& location) {
  auto directory = io.ResolveLocation(location.Parent());
  if (!directory) return std::nullopt;
  return directory->Child(location.Name());
}

// The highest ancestor of `location` (itself included) that `policy`
// allows: the allowed root it lies in.
io::Location AllowedBase(const LocationPolicy& policy, const io::Location& location) {
  io::Location base = location;
  for (io::Location parent = base.Parent(); parent != base && policy.Check(parent);
       parent = base.Parent()) {
    base = std::move(parent);
  }
  return base;
}

// Where `root` leads, if every link on the way lies above the allowed root
// it is in; nullopt if not (or if it cannot be resolved).
std::optional<io::Location> ResolvedRoot(const LocationPolicy& policy, const io::Location& root) {
  const io::FileIO& io = policy.file_io();
  auto resolved = io.ResolveLocation(root);
  const io::Location base = AllowedBase(policy, root);
  auto expected = io.ResolveLocation(base);
  if (!resolved || !expected) return std::nullopt;
  const std::string_view below = std::string_view(root.path).substr(base.path.size());
  for (size_t start = 0; start < below.size();) {
    size_t end = std::min(below.find('/', start), below.size());
    if (end > start) *expected = expected->Child(below.substr(start, end - start));
    start = end + 1;
  }
  if (*resolved != *expected) return std::nullopt;
  return std::move(*resolved);
}

}  // namespace

std::vector<std::string> TableRoots(const spec::TableMetadata& metadata) {
  std::vector<std::string> roots;
  if (!metadata.location.empty()) roots.push_back(metadata.location);
  for (const char* property : spec::kTableRootProperties) {
    std::string root = metadata.Property(property, "");
    if (!root.empty()) roots.push_back(std::move(root));
  }
  return roots;
}

TableFileScope::TableFileScope(const spec::TableMetadata& metadata, const LocationPolicy& policy)
    : policy_(&policy) {
  for (const std::string& root : TableRoots(metadata)) {
    auto location = policy.Normalize(root);
    // A table never owns the warehouse (other tables live there) or above it.
    if (!location || policy.warehouse_directory().IsUnder(*location)) continue;
    roots_.push_back(*location);
    auto resolved = ResolvedRoot(policy, *location);
    if (resolved && *resolved != *location && !policy.warehouse_directory().IsUnder(*resolved)) {
      roots_.push_back(*resolved);
    }
  }
}

bool TableFileScope::Contains(const io::Location& location) const {
  if (!policy_->Check(location)) return false;
  for (const auto& root : roots_) {
    if (location != root && location.IsUnder(root)) return true;
  }
  return false;
}

Status TableFileScope::Check(const std::string& location) const {
  return CheckDelete(location).map([](const io::Location&) {});
}

Result<io::Location> TableFileScope::CheckDelete(const std::string& location) const {
  auto normalized = policy_->Normalize(location);
  if (!normalized) return MakeError(ErrorKind::kForbidden, normalized.error().message);
  if (Contains(*normalized)) {
    auto resolved = ResolvedFile(policy_->file_io(), *normalized);
    if (resolved && (*resolved == *normalized || Contains(*resolved))) return std::move(*resolved);
  }
  return MakeError(ErrorKind::kForbidden, "File ", location, " is outside the table's locations (",
                   DescribeLocations(roots_), ")");
}

Result<io::Location> TableFileScope::CheckRead(const std::string& location) const {
  auto normalized = policy_->Normalize(location);
  if (!normalized) return MakeError(ErrorKind::kForbidden, normalized.error().message);
  if (Contains(*normalized)) {
    // Where the read goes: its directory's links and its own (one
    // resolution, as Check's).
    auto resolved = policy_->file_io().ResolveLocation(*normalized);
    if (resolved && (*resolved == *normalized || Contains(*resolved))) return std::move(*resolved);
  }
  return MakeError(ErrorKind::kForbidden, "File ", location, " is outside the table's locations (",
                   DescribeLocations(roots_), ")");
}

}  // namespace skade::catalog
