// Backups of a catalog's store and their restore (`skade backup`, `skade
// restore`).
//
// A backup is a directory:
//   store/          a consistent copy of the store as of one read snapshot
//                   (store::CatalogStore::Backup), taken while writers go on
//   manifest.json   what that copy references (BackupManifest): every table's
//                   pointer, every metadata file the commit log names, the
//                   copy's commit_seq, when, and by which skade; and the size
//                   and hash of each file of the copy
//   metadata/       with BackupOptions::with_metadata, copies of the tables'
//                   current metadata files
// Data files, manifests and manifest lists stay in the warehouse: a backup
// restores the catalog's state, not the tables' files.
//
// Both directions build their result under a temporary name beside the
// destination and rename it into place only when it is complete and synced,
// so a directory with the final name is never half written; a failure
// removes it. Neither ever deletes a store: a restore with `force` moves the
// store it replaces aside, and a backup with `force` deletes only an earlier
// backup (a directory laid out as one, whose manifest says it is one), never
// one that is, holds or lies inside the warehouse or the store it backs up.
//
// LMDB does not checksum its pages, and reading a damaged page may crash the
// process rather than fail: a restore therefore checks the copy's files
// against the sizes and hashes in the manifest before anything opens them.
// Stateless functions; thread-safe as the store and FileIO they are given.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/catalog/journal_recovery.h"
#include "skade/catalog/location_policy.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_identifier.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// The file in a backup directory that describes it.
inline constexpr char kBackupManifestName[] = "manifest.json";

/// What a backup's store copy references, as of its commit_seq.
struct BackupManifest {
  struct Table {
    spec::TableIdentifier identifier;
    uint64_t table_id = 0;
    std::string metadata_location;
    /// With BackupOptions::with_metadata: the copy's path under the backup
    /// directory ("metadata/…"), empty when the file could not be read.
    std::string metadata_copy;
  };
  struct Commit {
    uint64_t commit_seq = 0;
    uint64_t table_id = 0;
    std::string metadata_location;
  };
  /// A file of the store copy, as CatalogStore::Backup wrote it.
  struct StoreFile {
    /// Its name in the backup's store directory (no directories).
    std::string name;
    uint64_t size = 0;
    /// XXH3, 64 bits, of its bytes.
    uint64_t xxh3 = 0;
  };

  int format_version = 1;
  std::string skade_version;
  int64_t created_at_ms = 0;
  std::string warehouse;
  /// The last commit in the copy: the copy holds exactly commits 1..commit_seq.
  uint64_t commit_seq = 0;
  std::vector<spec::Namespace> namespaces;
  std::vector<Table> tables;
  /// The commit log of the copy, oldest first.
  std::vector<Commit> commits;
  /// The files of the copy. Empty in the manifest of a backup an earlier
  /// skade made, whose copy a restore cannot check before it opens it.
  std::vector<StoreFile> store_files;

  std::string ToJson() const;
  /// kCorruption for a document that is not a skade backup manifest.
  static Result<BackupManifest> FromJson(std::string_view json);
};

/// The manifest of the backup in the local directory `backup`. kNotFound
/// without one; kCorruption for one that does not parse.
Result<BackupManifest> ReadBackupManifest(const std::string& backup);

/// Progress of a long step: `done` of `total` units of `stage`.
using BackupProgress = std::function<void(std::string_view stage, uint64_t done, uint64_t total)>;

struct BackupOptions {
  /// Replace `destination` if it holds a skade backup already: a manifest
  /// whose format is a skade backup's, and only the entries a backup has. A
  /// non-empty directory that is no backup is never replaced.
  bool force = false;
  /// Also copy every table's current metadata file into the backup.
  bool with_metadata = false;
  /// The warehouse as the manifest names it. When it is local, no backup
  /// goes into it (nor into a directory that holds it).
  std::string warehouse;
  /// The local directory of the store backed up, when it has one: no backup
  /// goes into it (nor into a directory that holds it). The directory the
  /// store keeps its derived files in (CatalogStore::DerivedFileDirectory)
  /// is kept apart in the same way.
  std::string store_directory;
  /// Told about each step; may be empty.
  BackupProgress progress;
};

/// Backs `store` up into the local directory `destination` (see above),
/// reading metadata files through `io`, only where `policy` allows (a table
/// whose file is elsewhere gets no copy). kInvalidArgument for a
/// destination that is, holds or lies inside the warehouse or the store
/// (options); kAlreadyExists for a non-empty destination (without `force`,
/// or not a backup); kUnsupported if the store cannot back itself up; kIo
/// for the files. A failure leaves `destination` as it was.
Result<BackupManifest> BackupStore(store::CatalogStore& store, io::FileIO& io,
                                   const LocationPolicy& policy, const std::string& destination,
                                   const BackupOptions& options);

struct RestoreOptions {
  /// Replace a store at the target that no process has open; it is moved
  /// aside (RestoreResult::replaced), never deleted.
  bool force = false;
  /// Told about each step; may be empty.
  BackupProgress progress;
};

struct RestoreResult {
  BackupManifest manifest;
  /// Where a store the restore replaced was moved, or empty.
  std::string replaced;
};

/// Restores the backup in the local directory `backup` into a new store at
/// the local directory `target`: checks the backup's store files against the
/// manifest's sizes and hashes (when it has them), copies the store there
/// (as a consistent copy, CatalogStore::Backup; LMDB creates its lock file in
/// the backup's store directory while it reads it), then opens the result
/// and checks that its commit_seq and table pointers are the manifest's.
/// kInvalidArgument if a process has the store at `target` open, with or
/// without `force`, or if `target` is, holds or lies inside `backup`;
/// kAlreadyExists if `target` holds files (without `force`); kCorruption for
/// a damaged backup ("backup is damaged: …") or one that does not match its
/// manifest; kIo for the files. A failure leaves `target` as it was and
/// nothing beside it.
Result<RestoreResult> RestoreStore(const std::string& backup, const std::string& target,
                                   const RestoreOptions& options);

/// What the warehouse lacks of the metadata files a backup names.
struct MetadataCheck {
  /// Files looked for, and those not looked for because the policy does not
  /// allow their location.
  uint64_t checked = 0;
  std::vector<std::string> not_allowed;
  /// Tables whose current metadata file is missing; of those, the ones put
  /// back from the backup's copy, and the ones the store's journal holds
  /// (the catalog rewrites them when it opens, journal_recovery.h).
  std::vector<BackupManifest::Table> missing_current;
  std::vector<BackupManifest::Table> rewritten_current;
  std::vector<BackupManifest::Table> journaled_current;
  /// Metadata files the commit log names that are missing: older versions a
  /// table may have deleted on purpose (write.metadata.delete-after-commit,
  /// or an expired history), which time travel to them would need.
  std::vector<std::string> missing_history;
  /// Journaled files, missing or damaged, whose entries cannot rebuild them
  /// (journal_recovery.h): the catalog does not open until `skade doctor
  /// --repair --drop-dangling` releases them.
  std::vector<UnrebuildableFile> unrebuildable;
};

/// Checks through `io` which metadata files of the backup in `backup`
/// (whose manifest is `manifest`, restored into `store`) are missing, and
/// puts back a missing current one from the backup's copy when it has one
/// and the copy parses, journaled or not (a file is only ever created, never
/// replaced, and only where `policy` allows). kIo for the files.
Result<MetadataCheck> CheckBackupMetadata(const std::string& backup, const BackupManifest& manifest,
                                          store::CatalogStore& store, io::FileIO& io,
                                          const LocationPolicy& policy,
                                          const BackupProgress& progress);

}  // namespace skade::catalog
