#include "skade/catalog/table_location_claims.h"

#include <algorithm>

#include "skade/catalog/metadata_files.h"
#include "skade/catalog/table_file_scope.h"
#include "skade/spec/table_properties.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

std::string ClaimForm(const io::Location& location) {
  std::string_view scheme = location.scheme;
  if (scheme == "s3a" || scheme == "s3n") scheme = "s3";
  std::string_view path = location.path;
  while (path.ends_with('/')) path.remove_suffix(1);
  return StrCat(scheme, "://", location.authority, path);
}

namespace {

// `location` is `root` or under it, both in the claims' form.
bool AtOrUnder(std::string_view location, std::string_view root) {
  return location.starts_with(root) &&
         (location.size() == root.size() || location[root.size()] == '/');
}

// kForbidden for a root of `metadata`'s table at or above the warehouse or
// inside the store's directory, as written or where it leads.
Status CheckNoSharedRoot(const spec::TableMetadata& metadata, const LocationPolicy& policy) {
  const std::string warehouse = ClaimForm(policy.warehouse_directory());
  const std::string reserved = ClaimForm(policy.reserved_directory());
  for (const std::string& root : TableRoots(metadata)) {
    auto location = policy.Normalize(root);
    if (!location) continue;  // not a location of this storage: no files of its own here
    // As written and where it leads, compared as claims are (s3a is s3).
    std::vector<io::Location> forms = {*location};
    if (auto resolved = policy.file_io().ResolveLocation(*location)) forms.push_back(*resolved);
    for (const io::Location& form : forms) {
      const std::string claim = ClaimForm(form);
      if (AtOrUnder(warehouse, claim)) {
        return MakeError(ErrorKind::kForbidden, "Location ", root,
                         " of a table is the warehouse or above it, where other tables live: a "
                         "table needs a location of its own");
      }
      if (AtOrUnder(claim, reserved)) {
        return MakeError(ErrorKind::kForbidden, "Location ", root,
                         " of a table is inside the catalog's own directory");
      }
    }
  }
  return OkStatus();
}

// The claims of `metadata`'s table, unchecked but for their length.
Result<std::vector<std::string>> Claims(const spec::TableMetadata& metadata,
                                        const LocationPolicy& policy) {
  std::vector<std::string> owned;
  TableFileScope scope(metadata, policy);
  for (const auto& root : scope.roots()) {
    std::string location = ClaimForm(root);
    if (location.size() > kMaxOwnedLocationBytes) {
      return InvalidArgument("Location of table is longer than ", kMaxOwnedLocationBytes,
                             " bytes: ", location.substr(0, 64), "...");
    }
    owned.push_back(std::move(location));
  }
  std::sort(owned.begin(), owned.end());
  owned.erase(std::unique(owned.begin(), owned.end()), owned.end());
  return owned;
}

// The claims of a table from before the store kept them. Not CheckOwnRoots:
// a root a client could no longer choose (outside today's allowed roots, with
// a '#') still holds the table's files, which no other table may be given.
Result<std::vector<std::string>> RecordedTableClaims(io::FileIO& io,
                                                     const std::string& metadata_location,
                                                     const LocationPolicy& policy) {
  SKADE_ASSIGN_OR_RAISE(auto file, ReadMetadataFile(io, metadata_location));
  SKADE_RETURN_NOT_OK(CheckNoSharedRoot(*file.metadata, policy));
  return Claims(*file.metadata, policy);
}

}  // namespace

Status CheckOwnRoots(const spec::TableMetadata& metadata, const LocationPolicy& policy) {
  // Every root, not only the location: skade writes metadata files under the
  // metadata path, clients write data files under the data path, and a purge
  // deletes only inside the allowed roots, so a data path outside them would
  // put files where no one cleans them up.
  for (const std::string& root : TableRoots(metadata)) {
    SKADE_RETURN_NOT_OK(policy.CheckTableRoot(root));
  }
  return CheckNoSharedRoot(metadata, policy);
}

Result<std::vector<std::string>> OwnedLocations(const spec::TableMetadata& metadata,
                                                const LocationPolicy& policy) {
  SKADE_RETURN_NOT_OK(CheckOwnRoots(metadata, policy));
  return Claims(metadata, policy);
}

OwnedElsewhere FilesOwnedByTables(store::CatalogStore& store, const LocationPolicy& policy) {
  return [&store, &policy](const std::vector<std::string>& files) -> Result<std::vector<bool>> {
    std::vector<std::string> forms;
    std::vector<size_t> asked;
    std::vector<bool> owned(files.size(), true);
    for (size_t i = 0; i < files.size(); ++i) {
      auto location = policy.Normalize(files[i]);
      if (!location) continue;
      std::string form = ClaimForm(*location);
      if (form.size() > kMaxOwnedLocationBytes) continue;
      forms.push_back(std::move(form));
      asked.push_back(i);
    }
    SKADE_ASSIGN_OR_RAISE(auto found, store.FindOwnedLocations(forms));
    for (size_t k = 0; k < asked.size(); ++k) owned[asked[k]] = found.at(k);
    return owned;
  };
}

bool SameOwnedRoots(const spec::TableMetadata& before, const spec::TableMetadata& after) {
  for (const char* property : spec::kTableRootProperties) {
    if (before.Property(property, "") != after.Property(property, "")) return false;
  }
  return before.location == after.location;
}

Status ClaimUnclaimedTables(io::FileIO& io, store::CatalogStore& store,
                            const LocationPolicy& policy) {
  SKADE_ASSIGN_OR_RAISE(auto unclaimed, store.ReadUnclaimedTables());
  for (const auto& [identifier, record] : unclaimed) {
    auto owned = RecordedTableClaims(io, record.metadata_location, policy);
    Status status = owned ? store.ClaimTableLocations(identifier, record.metadata_location, *owned)
                          : Status(tl::unexpected(owned.error()));
    // A table that moved or went meanwhile is tried again at the next open
    // (or gone); anything else needs a person to look at it.
    if (!status && status.error().kind != ErrorKind::kCommitFailed &&
        status.error().kind != ErrorKind::kNoSuchTable) {
      LogWarning(StrCat("table ", identifier.ToString(),
                        " owns no locations yet, so tables created meanwhile may share its files: ",
                        status.error().message));
    }
  }
  return OkStatus();
}

}  // namespace skade::catalog
