// Recovery of journaled metadata files: what EmbeddedCatalog::Open does
// before it serves anything.
//
// At immediate a commit's metadata file is written without sync and its
// bytes are kept in the store's journal, in the pointer swap's transaction
// (store::PointerSwap::journaled_files), until the MetadataFlusher has
// synced the file and its directory. After a power loss such a file may be
// missing, empty or torn while its pointer is durable; its entry is still in
// the journal. RecoverJournaledFiles makes every journaled file durable with
// exactly the journaled bytes and releases the entries:
// - a file whose bytes match is synced (it and its directory), then released;
// - a missing or different file is rewritten (durably, replacing a torn one)
//   while the store holds commits off (CatalogStore::RestoreJournaledFiles),
//   and only if its entry is still journaled then, so a file another process
//   released and deleted on purpose meanwhile is not brought back, and two
//   processes opening at once never rewrite one file together.
//
// Harmless while other processes use the warehouse: their journaled files
// are complete on disk (written before their swap committed), so this only
// syncs them early and releases their entries (their own flusher's release
// then finds nothing). Only a rewrite holds their commits off, for as long
// as the rewrites take; rewrites happen only after a crash of the machine
// or damage to the files. Replacing a torn file is a delete and a durable
// create (FileIO never overwrites): a reader in another process may see it
// missing in between, where it saw it torn before; a crash in between leaves
// the entry journaled for the next open.
//
// A metadata file journaled as a difference from its base (the file its
// commit was based on; store::JournaledFile) is matched by size and hash,
// and rewritten from its base's text: the base's entry when the journal
// holds one, else the base file, which was durable before its own entry was
// released (the catalog releases every difference on a file before it
// deletes it: EmbeddedCatalog::ReleaseDeltasOn).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "skade/catalog/location_policy.h"
#include "skade/io/file_io.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// The journal as read once (store::CatalogStore::ReadJournaledFiles), for
/// the bytes of its files. Not thread-safe (it remembers the last text it
/// expanded: files are read in location order, a base before the next
/// version).
class JournalSnapshot {
 public:
  /// `read_base`, when given, reads a base file from disk (the catalog's:
  /// LocationPolicy::ReadFile, so only where it may lie); its kForbidden
  /// makes Contents fail with kForbidden. Without it the FileIO reads any.
  JournalSnapshot(io::FileIO& io, std::vector<store::JournaledFile> files,
                  std::function<Result<std::string>(const std::string&)> read_base = {});

  /// The entry for `location`, or null.
  const store::JournaledFile* Find(const std::string& location) const;

  /// `file`'s bytes: its contents, or a difference applied to its base's
  /// text. kCorruption when a base is missing, differs from what the
  /// difference was made against, or the bases form a loop; the FileIO's
  /// error when a base cannot be read.
  Result<std::string> Contents(const store::JournaledFile& file);

 private:
  // `file`'s bytes, its bases `depth` steps deep so far.
  Result<std::string> Bytes(const store::JournaledFile& file, size_t depth);
  Result<std::string> BaseText(const store::JournaledFile& file, size_t depth);

  io::FileIO& io_;
  std::vector<store::JournaledFile> files_;
  std::function<Result<std::string>(const std::string&)> read_base_;
  std::unordered_map<std::string, size_t> index_;            // location → files_ position
  std::optional<std::pair<std::string, std::string>> last_;  // location, text
};

/// How many journaled files a recovery found, and how many it rewrote.
struct JournalRecoveryStats {
  size_t journaled = 0;
  size_t rewritten = 0;
  /// Left journaled: something in the way (IsInTheWay).
  size_t kept = 0;
};

/// Syncs `files` (FileIO::SyncFiles, the missing skipped) and returns those
/// it synced. When something is in the way of one (IsInTheWay: a directory
/// someone took the server's permission on), they are synced one at a time
/// and those in the way are left out (and logged, with `log_in_the_way`),
/// so that one table's directory keeps only its own files journaled; any
/// other error fails.
Result<std::vector<std::string>> SyncWhatCanBe(io::FileIO& io, std::vector<std::string> files,
                                               bool log_in_the_way = true);

/// A JournalSnapshot's reader of base files for the catalog: only where
/// `policy` (which must outlive it) allows them to lie.
std::function<Result<std::string>(const std::string&)> ReadBaseWithin(const LocationPolicy& policy);

/// Whether a failed RestoreJournaledFile met something in the way of the
/// one file — a link out of the allowed locations, a directory where the
/// file goes, a location outside the roots now — rather than a failing disk
/// or store: its entry is kept and the rest is restored.
bool IsInTheWay(const Error& error);

/// Makes `file` durable at its location with exactly its bytes: synced if
/// it holds them, else rewritten (a torn file is deleted first; a difference
/// is expanded through `journal`), setting `*rewritten` to which. For the
/// `restore` of store::CatalogStore::RestoreJournaledFiles, under its hold
/// on commits. It is deleted and written where it was checked to be, so a
/// link made in a table's directories since the commit is refused
/// (kForbidden), not followed; a location outside `policy`'s roots (allowed
/// when it was committed, not now) is kForbidden too. The FileIO's errors,
/// or JournalSnapshot::Contents's.
Status RestoreJournaledFile(io::FileIO& io, const LocationPolicy& policy,
                            const store::JournaledFile& file, JournalSnapshot& journal,
                            bool* rewritten);

/// How RestoreAlone went.
struct RestoreOutcome {
  /// The file holds its journaled bytes now (rewritten, or found so) and
  /// its entry is released; false also when the entry was gone already.
  bool restored = false;
  bool rewritten = false;
  /// Why it was kept journaled (IsInTheWay); empty otherwise.
  std::string in_the_way;
};

/// RestoreJournaledFile for `location` alone, under the store's hold on
/// commits (store::CatalogStore::RestoreJournaledFiles): one file at a
/// time, so what is in one file's way keeps only that one journaled. The
/// error of a failing disk or store.
Result<RestoreOutcome> RestoreAlone(io::FileIO& io, store::CatalogStore& store,
                                    const LocationPolicy& policy, JournalSnapshot& journal,
                                    const std::string& location);

/// A journaled file, missing or damaged on disk, that its entry cannot
/// rebuild: a difference whose base is gone too (deleted by hand, or a
/// warehouse restored without it). What it held is lost; while the entry is
/// journaled the catalog refuses to open (RecoverJournaledFiles fails), so
/// `skade doctor --repair --drop-dangling` releases it.
struct UnrebuildableFile {
  std::string location;
  std::string reason;
};

/// The files of `files` (the whole of the store's journal) that are not
/// intact on disk and cannot be rebuilt, of those `may_read` allows; a base
/// file it does not allow is never read, and an entry that would need one,
/// or whose file or base cannot be read (a permission, a directory), is
/// undetermined and not listed: only a base that is gone or different makes
/// an entry lost.
std::vector<UnrebuildableFile> FindUnrebuildableFiles(
    io::FileIO& io, std::vector<store::JournaledFile> files,
    const std::function<bool(const std::string&)>& may_read);

/// Makes every file in `store`'s journal durable as journaled and releases
/// it (see above; rewrites as RestoreJournaledFile, within `policy`, one at a
/// time). A file with something in its way (IsInTheWay) is logged and kept
/// journaled; kIo (or the FileIO's error) if a file cannot be read, written
/// or synced otherwise, or the store fails; what was done stays done, the
/// rest stays journaled.
Result<JournalRecoveryStats> RecoverJournaledFiles(io::FileIO& io, store::CatalogStore& store,
                                                   const LocationPolicy& policy);

}  // namespace skade::catalog
