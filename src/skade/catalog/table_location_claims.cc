#include "skade/catalog/table_location_claims.h"

#include <algorithm>

#include "skade/catalog/metadata_files.h"
#include "skade/catalog/table_file_scope.h"
#include "skade/spec/table_properties.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

std::vector<std::string> OwnedLocations(const spec::TableMetadata& metadata,
                                        const LocationPolicy& policy) {
  std::vector<std::string> owned;
  TableFileScope scope(metadata, policy);
  for (const auto& root : scope.roots()) {
    owned.push_back(root.ToString());
  }
  std::sort(owned.begin(), owned.end());
  owned.erase(std::unique(owned.begin(), owned.end()), owned.end());
  return owned;
}

bool SameOwnedRoots(const spec::TableMetadata& before, const spec::TableMetadata& after) {
  for (const char* property : {spec::kDataPath, spec::kMetadataPath}) {
    if (before.Property(property, "") != after.Property(property, "")) return false;
  }
  return before.location == after.location;
}

Status ClaimUnclaimedTables(io::FileIO& io, store::CatalogStore& store,
                            const LocationPolicy& policy) {
  SKADE_ASSIGN_OR_RAISE(auto unclaimed, store.ReadUnclaimedTables());
  for (const auto& [identifier, record] : unclaimed) {
    auto file = ReadMetadataFile(io, record.metadata_location);
    Status status = file ? store.ClaimTableLocations(identifier, record.metadata_location,
                                                     OwnedLocations(*file->metadata, policy))
                         : Status(tl::unexpected(file.error()));
    // A table that moved or went meanwhile is tried again at the next open
    // (or gone); anything else needs a person to look at it.
    if (!status && status.error().kind != ErrorKind::kCommitFailed &&
        status.error().kind != ErrorKind::kNoSuchTable) {
      LogWarning(StrCat("table ", identifier.ToString(),
                        " owns no locations, so tables created later may share its files: ",
                        status.error().message));
    }
  }
  return OkStatus();
}

}  // namespace skade::catalog
