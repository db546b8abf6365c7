#include "skade/catalog/location_policy.h"

#include <algorithm>
#include <utility>

#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

// A location that passed as written but leads, through a link, out of the
// roots (or into the store's directory). Where it leads is not said.
tl::unexpected<Error> LeadsOut(std::string_view location) {
  return MakeError(ErrorKind::kForbidden, "Location ", location,
                   " leads through a symbolic link out of the allowed locations");
}

}  // namespace

std::string DescribeLocations(const std::vector<io::Location>& locations) {
  std::vector<std::string> names;
  for (const auto& location : locations) {
    bool local = location.scheme == "file" && location.authority.empty();
    names.push_back(local ? location.path : location.ToString());
  }
  return Join(names, ", ");
}

LocationPolicy::LocationPolicy(const std::string& warehouse,
                               const std::vector<std::string>& allowed,
                               std::shared_ptr<io::FileIO> io)
    : io_(std::move(io)) {
  // A root as a normalised location the FileIO can write; relative roots
  // come from the working directory (the CLI's default warehouse is
  // `./warehouse`).
  auto normalized_root = [this](const std::string& root) -> Result<io::Location> {
    SKADE_ASSIGN_OR_RAISE(io::Location location, io::Location::ParseUserInput(root));
    SKADE_RETURN_NOT_OK(io_->CheckLocation(location));
    return location;
  };
  std::vector<std::string> roots = allowed;
  roots.push_back(warehouse);
  for (const auto& root : roots) {
    if (root == "*") {
      anywhere_ = true;
      continue;
    }
    auto location = normalized_root(root);
    if (!location) continue;
    auto resolved = io_->ResolveLocation(*location);
    for (const io::Location& form : {*location, resolved ? *resolved : *location}) {
      if (std::find(roots_.begin(), roots_.end(), form) == roots_.end()) roots_.push_back(form);
    }
  }
  auto home = normalized_root(warehouse);
  warehouse_ = home ? *home : io::Location{"file", "", "/"};
  reserved_ = warehouse_.Child(".skade");
}

Result<io::Location> LocationPolicy::Normalize(std::string_view location) const {
  SKADE_ASSIGN_OR_RAISE(io::Location normalized, io::Location::Parse(location));
  SKADE_RETURN_NOT_OK(io_->CheckLocation(normalized));
  return normalized;
}

Status LocationPolicy::Check(const std::string& location) const {
  SKADE_ASSIGN_OR_RAISE(io::Location normalized, Normalize(location));
  return CheckNormalized(normalized, location);
}

Status LocationPolicy::Check(const io::Location& location) const {
  return CheckNormalized(location, location.ToString());
}

Status LocationPolicy::CheckTableRoot(const std::string& root) const {
  if (size_t at = root.find_first_of("#?"); at != std::string::npos) {
    const bool fragment = root[at] == '#';
    return InvalidArgument("Table location ", root, " has a '", root[at], "', which clients ",
                           "reading it as a URI take as the start of its ",
                           fragment ? "fragment" : "query",
                           ": they would write the table's files at the location cut short there, "
                           "which may be another table's; choose a location without it");
  }
  return Check(root);
}

Result<io::Location> LocationPolicy::CheckRead(const std::string& location) const {
  SKADE_ASSIGN_OR_RAISE(io::Location normalized, Normalize(location));
  SKADE_RETURN_NOT_OK(CheckNormalized(normalized, location));
  auto resolved = io_->ResolveLocation(normalized);
  if (!resolved) {
    return MakeError(ErrorKind::kForbidden, "Location ", location, " cannot be resolved");
  }
  // Where the link leads is not said: it may be outside the roots.
  if (!CheckNormalized(*resolved, location)) return LeadsOut(location);
  return std::move(*resolved);
}

Status LocationPolicy::WriteFile(const std::string& location, std::string_view contents,
                                 bool durable) const {
  SKADE_RETURN_NOT_OK(Check(location));
  return io_->WriteConfinedFile(location, contents, durable, [&](const io::Location& created) {
    return CheckWhereItLies(created, location);
  });
}

Status LocationPolicy::CreateDirectories(const std::string& location) const {
  SKADE_RETURN_NOT_OK(Check(location));
  return io_->CreateConfinedDirectories(
      location, [&](const io::Location& made) { return CheckWhereItLies(made, location); });
}

Result<std::string> LocationPolicy::ReadFile(const std::string& location,
                                             uint64_t max_bytes) const {
  SKADE_RETURN_NOT_OK(Check(location));
  return io_->ReadConfinedFileUpTo(location, max_bytes, [&](const io::Location& opened) {
    return CheckWhereItLies(opened, location);
  });
}

Status LocationPolicy::CheckWhereItLies(const io::Location& actual,
                                        const std::string& location) const {
  if (CheckNormalized(actual, location)) return OkStatus();
  return Status(LeadsOut(location));
}

Status LocationPolicy::CheckNormalized(const io::Location& location,
                                       std::string_view as_written) const {
  if (location.IsUnder(reserved_)) {
    return MakeError(ErrorKind::kForbidden, "Location ", as_written,
                     " is inside the catalog's own directory");
  }
  if (anywhere_) return OkStatus();
  for (const auto& root : roots_) {
    if (location.IsUnder(root)) return OkStatus();
  }
  return MakeError(ErrorKind::kForbidden, "Location ", as_written,
                   " is outside the allowed locations (", DescribeLocations(roots_),
                   "); allow it with --allow-location");
}

}  // namespace skade::catalog
