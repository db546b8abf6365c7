#include "skade/catalog/journal_recovery.h"

#include <string>
#include <vector>

#include "skade/catalog/metadata_files.h"
#include "skade/util/log.h"
#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

bool Gone(const Status& status) { return !status && status.error().kind == ErrorKind::kNotFound; }

// Whether `file`'s location holds exactly its bytes; false when it is
// missing or too large to be one of ours.
Result<bool> HoldsExactly(io::FileIO& io, const store::JournaledFile& file) {
  auto bytes = io.ReadFileUpTo(file.location, kMaxMetadataReadBytes);
  if (!bytes) {
    // Or something in its way (a socket, a directory the server may not
    // read): restoring it will say what.
    if (bytes.error().kind == ErrorKind::kNotFound || IsInTheWay(bytes.error())) return false;
    return tl::unexpected(bytes.error());
  }
  return store::Holds(file, *bytes);
}

}  // namespace

JournalSnapshot::JournalSnapshot(io::FileIO& io, std::vector<store::JournaledFile> files,
                                 std::function<Result<std::string>(const std::string&)> read_base)
    : io_(io), files_(std::move(files)), read_base_(std::move(read_base)) {
  for (size_t i = 0; i < files_.size(); ++i) index_.emplace(files_[i].location, i);
}

const store::JournaledFile* JournalSnapshot::Find(const std::string& location) const {
  auto found = index_.find(location);
  return found == index_.end() ? nullptr : &files_[found->second];
}

Result<std::string> JournalSnapshot::Contents(const store::JournaledFile& file) {
  SKADE_ASSIGN_OR_RAISE(std::string contents, Bytes(file, 0));
  if (file.delta) {
    // Remembered as the next version's base (whose text is its JSON).
    SKADE_ASSIGN_OR_RAISE(std::string text, MetadataText(contents, file.location));
    last_.emplace(file.location, std::move(text));
  }
  return contents;
}

Result<std::string> JournalSnapshot::Bytes(const store::JournaledFile& file, size_t depth) {
  if (!file.delta) return std::string(file.bytes());
  SKADE_ASSIGN_OR_RAISE(std::string base, BaseText(file, depth));
  return store::DeltaContents(file, base);
}

Result<std::string> JournalSnapshot::BaseText(const store::JournaledFile& file, size_t depth) {
  const std::string& location = file.base->location;
  if (last_ && last_->first == location) return last_->second;
  // Each step goes to an older entry: more steps than entries is a loop.
  if (depth > files_.size()) {
    return Corruption("Journaled file ", file.location, " has a loop of bases through ", location);
  }
  std::string bytes;
  if (const store::JournaledFile* entry = Find(location); entry != nullptr) {
    SKADE_ASSIGN_OR_RAISE(bytes, Bytes(*entry, depth + 1));
  } else {
    auto read =
        read_base_ ? read_base_(location) : io_.ReadFileUpTo(location, kMaxMetadataReadBytes);
    if (!read) {
      if (read.error().kind == ErrorKind::kForbidden) {
        return MakeError(ErrorKind::kForbidden, "The base ", location, " of journaled file ",
                         file.location, " may not be read: ", read.error().message);
      }
      if (read.error().kind != ErrorKind::kNotFound) return tl::unexpected(read.error());
      return Corruption("Cannot restore journaled file ", file.location, ": its base ", location,
                        " is missing (`skade doctor --repair --drop-dangling` releases an "
                        "entry that cannot be rebuilt)");
    }
    bytes = std::move(*read);
  }
  return MetadataText(std::move(bytes), location);
}

Status RestoreJournaledFile(io::FileIO& io, const LocationPolicy& policy,
                            const store::JournaledFile& file, JournalSnapshot& journal,
                            bool* rewritten) {
  *rewritten = false;
  SKADE_ASSIGN_OR_RAISE(bool intact, HoldsExactly(io, file));
  if (intact) {  // restored by someone before the hold (another process)
    return io.SyncFiles({file.location});
  }
  // Where it would be written is checked before its bases are read.
  if (auto allowed = policy.Check(file.location); !allowed) {
    return MakeError(ErrorKind::kForbidden, "Journaled file ", file.location,
                     " is outside the allowed locations now: allow its root again "
                     "(--allow-location) to restore it");
  }
  SKADE_ASSIGN_OR_RAISE(io::Location resolved, policy.CheckRead(file.location));
  SKADE_ASSIGN_OR_RAISE(std::string contents, journal.Contents(file));
  Status deleted = io.DeleteCheckedFile(file.location, resolved);
  if (!deleted && !Gone(deleted)) return deleted;
  SKADE_RETURN_NOT_OK(policy.WriteFile(file.location, contents, /*durable=*/true));
  *rewritten = true;
  return OkStatus();
}

Result<std::vector<std::string>> SyncWhatCanBe(io::FileIO& io, std::vector<std::string> files,
                                               bool log_in_the_way) {
  Status all = io.SyncFiles(files);
  if (all) return files;
  if (!IsInTheWay(all.error())) return tl::unexpected(all.error());
  std::vector<std::string> synced;
  for (auto& file : files) {
    Status one = io.SyncFiles({file});
    if (one) {
      synced.push_back(std::move(file));
    } else if (IsInTheWay(one.error())) {
      if (log_in_the_way) {
        LogWarning(StrCat("journaled file ", file, " stays journaled: ", one.error().message));
      }
    } else {
      return tl::unexpected(one.error());
    }
  }
  return synced;
}

std::function<Result<std::string>(const std::string&)> ReadBaseWithin(
    const LocationPolicy& policy) {
  return
      [&policy](const std::string& base) { return policy.ReadFile(base, kMaxMetadataReadBytes); };
}

bool IsInTheWay(const Error& error) {
  return error.kind == ErrorKind::kForbidden || error.kind == ErrorKind::kInvalidArgument;
}

Result<RestoreOutcome> RestoreAlone(io::FileIO& io, store::CatalogStore& store,
                                    const LocationPolicy& policy, JournalSnapshot& journal,
                                    const std::string& location) {
  RestoreOutcome outcome;
  Status file_status;
  Status restored = store.RestoreJournaledFiles({location}, [&](const store::JournaledFile& file) {
    file_status = RestoreJournaledFile(io, policy, file, journal, &outcome.rewritten);
    outcome.restored = file_status.has_value();
    return file_status;
  });
  if (restored) return outcome;
  outcome.restored = outcome.rewritten = false;
  if (file_status || !IsInTheWay(file_status.error())) return tl::unexpected(restored.error());
  outcome.in_the_way = file_status.error().message;
  return outcome;
}

std::vector<UnrebuildableFile> FindUnrebuildableFiles(
    io::FileIO& io, std::vector<store::JournaledFile> files,
    const std::function<bool(const std::string&)>& may_read) {
  std::vector<std::string> damaged;
  for (const auto& file : files) {
    if (!may_read(file.location)) continue;
    auto intact = HoldsExactly(io, file);
    if (intact && !*intact) damaged.push_back(file.location);
  }
  JournalSnapshot journal(io, std::move(files),
                          [&](const std::string& base) -> Result<std::string> {
                            if (!may_read(base))
                              return MakeError(ErrorKind::kForbidden, "not allowed");
                            return io.ReadFileUpTo(base, kMaxMetadataReadBytes);
                          });
  std::vector<UnrebuildableFile> lost;
  for (const auto& location : damaged) {
    auto contents = journal.Contents(*journal.Find(location));
    if (!contents && contents.error().kind == ErrorKind::kCorruption) {
      lost.push_back({location, contents.error().message});
    }
  }
  return lost;
}

Result<JournalRecoveryStats> RecoverJournaledFiles(io::FileIO& io, store::CatalogStore& store,
                                                   const LocationPolicy& policy) {
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
    SKADE_ASSIGN_OR_RAISE(bool holds, HoldsExactly(io, file));
    (holds ? intact : damaged).push_back(file.location);
  }
  SKADE_ASSIGN_OR_RAISE(std::vector<std::string> synced, SyncWhatCanBe(io, std::move(intact)));
  SKADE_RETURN_NOT_OK(store.ReleaseJournaledFiles(synced));

  // Bases are read from the journal as it was before the releases (a
  // released base is durable on disk too, so either serves), and from disk
  // only where the policy allows. One file at a time: a file that something
  // in its way keeps from being restored stays journaled, and only its table
  // is unreadable meanwhile, not the whole catalog.
  JournalSnapshot journal(io, std::move(files), ReadBaseWithin(policy));
  for (const std::string& location : damaged) {
    SKADE_ASSIGN_OR_RAISE(RestoreOutcome outcome,
                          RestoreAlone(io, store, policy, journal, location));
    stats.rewritten += outcome.rewritten ? 1 : 0;
    if (outcome.in_the_way.empty()) continue;
    ++stats.kept;
    LogWarning(StrCat("cannot restore journaled file ", location, ": ", outcome.in_the_way,
                      "; it stays journaled, and its table unreadable, until what is in the way "
                      "is removed and the catalog opens again (or `skade doctor --repair`)"));
  }
  if (stats.rewritten > 0) {
    LogWarning(StrCat("recovered ", stats.rewritten, " of ", stats.journaled,
                      " journaled files (metadata files, manifests, small data files) that were "
                      "missing or damaged"));
  }
  return stats;
}

}  // namespace skade::catalog
