#include "skade/catalog/journal_recovery.h"

#include <string>
#include <vector>

#include "skade/catalog/metadata_files.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

bool Gone(const Status& status) { return !status && status.error().kind == ErrorKind::kNotFound; }

// Whether `location` holds exactly `contents`; false when it is missing or
// too large to be one of ours.
Result<bool> HoldsExactly(io::FileIO& io, const std::string& location,
                          const std::string& contents) {
  auto bytes = io.ReadFileUpTo(location, kMaxMetadataReadBytes);
  if (!bytes) {
    if (bytes.error().kind == ErrorKind::kNotFound ||
        bytes.error().kind == ErrorKind::kInvalidArgument) {
      return false;
    }
    return tl::unexpected(bytes.error());
  }
  return *bytes == contents;
}

}  // namespace

Status RestoreJournaledFile(io::FileIO& io, const store::JournaledFile& file, bool* rewritten) {
  *rewritten = false;
  SKADE_ASSIGN_OR_RAISE(bool intact, HoldsExactly(io, file.location, file.contents));
  if (intact) {  // restored by someone before the hold (another process)
    return io.SyncFiles({file.location});
  }
  Status deleted = io.DeleteFile(file.location);
  if (!deleted && !Gone(deleted)) return deleted;
  SKADE_RETURN_NOT_OK(io.WriteFile(file.location, file.contents, /*durable=*/true));
  *rewritten = true;
  return OkStatus();
}

Result<JournalRecoveryStats> RecoverJournaledFiles(io::FileIO& io, store::CatalogStore& store) {
  SKADE_ASSIGN_OR_RAISE(auto files, store.ReadJournaledFiles());
  JournalRecoveryStats stats;
  stats.journaled = files.size();
  if (files.empty()) return stats;

  // Intact files need only a sync (one for all of them), done without
  // holding anyone's commits. One that is gone by then was deleted on
  // purpose, and so released first.
  std::vector<std::string> damaged;
  std::vector<std::string> intact;
  for (const auto& file : files) {
    SKADE_ASSIGN_OR_RAISE(bool holds, HoldsExactly(io, file.location, file.contents));
    (holds ? intact : damaged).push_back(file.location);
  }
  SKADE_RETURN_NOT_OK(io.SyncFiles(intact));
  SKADE_RETURN_NOT_OK(store.ReleaseJournaledFiles(intact));

  SKADE_RETURN_NOT_OK(store.RestoreJournaledFiles(damaged, [&](const store::JournaledFile& file) {
    bool rewritten = false;
    Status restored = RestoreJournaledFile(io, file, &rewritten);
    stats.rewritten += rewritten ? 1 : 0;
    return restored;
  }));
  if (stats.rewritten > 0) {
    LogWarning(StrCat("recovered ", stats.rewritten, " of ", stats.journaled,
                      " journaled files (metadata files, manifests, small data files) that were "
                      "missing or damaged"));
  }
  return stats;
}

}  // namespace skade::catalog
