// SnapshotUpdate: the shared machinery of the actions that produce one
// snapshot (FastAppend, MergeAppend, OverwriteFiles, DeleteFiles, RowDelta),
// as Iceberg Java's SnapshotProducer.
//
// An update has a fixed snapshot id and commit uuid. Apply(base) stages it
// on the main branch of a table version: the action encodes its new
// manifests (once; they are reused on every later attempt) and decides the
// manifest list, and this class encodes a fresh manifest list for that base
// (`snap-<id>-<attempt>-<uuid>.avro`) and returns the snapshot — parent,
// sequence number, v3 first-row-id and added-rows, and the summary with
// totals carried from the parent. The files are written afterwards, all of
// a commit's at once (TakeFilesToWrite, io::FileIO::WriteFiles: one round
// trip on S3, not one per file); StageUpdates (commit_retry_internal.h)
// does both. Nothing is visible until a commit swaps the table pointer.
//
// Commit() commits it alone: assert-table-uuid + assert-ref-snapshot-id on
// main, add-snapshot, set-snapshot-ref. When a concurrent commit wins
// (kCommitFailed), it reloads the table and rebases — the data files and new
// manifests are kept, only the manifest list (and for overwrites, the
// rewritten manifests) are redone — and retries, up to
// `commit.retry.num-retries` times with exponential backoff between
// `commit.retry.min-wait-ms` and `commit.retry.max-wait-ms` (table
// properties, Iceberg's defaults 4, 100 and 60000). Before each attempt
// the update validates the snapshots committed since the version it was
// created on (Validate(); overwrites and deletes check for conflicting
// files, see isolation_level.h); a failed validation ends the commit with
// no retry, since rebasing again cannot remove the conflict. To commit several
// updates in one metadata commit, use Transaction.
//
// Durability: when the table's files are durable (Table::durable_files())
// and the catalog accepts unsynced files (Catalog::UnsyncedFileLimit), the
// manifests and manifest list are written without sync and handed to the
// commit (CommitTableRequest::unsynced_files), which makes them durable with
// the pointer — one sync for the whole commit; otherwise each is synced as
// it is written. AddUnsyncedFile() hands over the caller's own files (data
// files it wrote without sync) the same way.
//
// Files: after a successful commit, the manifest lists and manifests of
// attempts that lost are deleted; after a failure, everything the update
// wrote is deleted, except when the outcome is unknown
// (kCommitStateUnknown), where nothing is. Data files belong to the caller.
//
// Not thread-safe: one thread drives an update. An update is committed at
// most once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/spec/manifest_file.h"
#include "skade/spec/snapshot.h"
#include "skade/spec/table_metadata.h"
#include "skade/table/manifest_merge_internal.h"
#include "skade/table/snapshot_summary.h"
#include "skade/table/table.h"
#include "skade/table/written_manifest_list.h"
#include "skade/util/result.h"

namespace skade::table {

class SnapshotUpdate {
 public:
  virtual ~SnapshotUpdate() = default;
  SnapshotUpdate(const SnapshotUpdate&) = delete;
  SnapshotUpdate& operator=(const SnapshotUpdate&) = delete;

  /// An extra summary property, e.g. "engine-name".
  SnapshotUpdate& SetSummaryProperty(std::string key, std::string value);

  /// A file this update references that the caller wrote without sync
  /// through the table's FileIO, no larger than the catalog's
  /// UnsyncedFileLimit(): the commit makes it durable (see above).
  SnapshotUpdate& AddUnsyncedFile(catalog::UnsyncedFile file);

  /// The unsynced files the last Apply() depends on: the caller's, the
  /// manifests and the manifest list written without sync.
  std::vector<catalog::UnsyncedFile> UnsyncedFiles() const;

  /// Commits this update alone (see above) and returns the table as
  /// committed. kCommitFailed once the retries are exhausted; other catalog
  /// and FileIO errors as they come.
  Result<Table> Commit();

  /// Stages the update on the main branch of `base` (a version of this
  /// update's table) and returns the snapshot, for a Transaction. Each call
  /// stages a new manifest list; the files are written by whoever takes
  /// them (TakeFilesToWrite) before the snapshot is committed. The parent's
  /// manifests come from `parent_list` when it is the list of base's main
  /// snapshot (it may not be written yet), else from storage.
  Result<spec::SnapshotPtr> Apply(const spec::TableMetadata& base,
                                  const WrittenManifestList* parent_list = nullptr);

  /// The files the Apply() calls so far staged and nobody took yet: its new
  /// manifests and manifest lists, each durable as the table says unless
  /// handed to the commit (UnsyncedFiles()).
  std::vector<io::NewFile> TakeFilesToWrite() { return std::exchange(files_to_write_, {}); }

  /// Whether Apply() reads the manifests its parent lists (to filter or
  /// merge them), so that they must be written first: StageUpdates writes
  /// what the earlier updates of a commit staged before applying such an
  /// update.
  virtual bool ReadsCurrentManifests() const;

  /// The manifest list the last Apply() staged, or null before one.
  const std::shared_ptr<const WrittenManifestList>& applied_list() const { return applied_list_; }

  /// Checks the snapshots committed to main of `current` (the catalog's
  /// version this update is about to be staged on) since table(): OK to
  /// rebase, or a final error. The default accepts any (appends commute).
  virtual Status Validate(const spec::TableMetadata& current);

  /// Deletes the files this update wrote that its last applied snapshot
  /// does not use (`committed`), or all of them (`!committed`). Best effort.
  void CleanUp(bool committed);

  int64_t snapshot_id() const { return snapshot_id_; }
  const std::string& commit_uuid() const { return commit_uuid_; }
  /// The table version the update was created on.
  const Table& table() const { return table_; }

 protected:
  explicit SnapshotUpdate(Table table);

  /// "append", "overwrite", "delete".
  virtual std::string_view operation() const = 0;

  /// Whether Apply() merges the parent's manifests that Manifests() keeps
  /// unchanged, when the table's properties ask (manifest_merge_internal.h);
  /// the merged ones then follow the others.
  virtual bool MergesManifests() const { return false; }

  /// The manifests of the new snapshot on `base`, whose main branch lists
  /// `current` (empty for the first snapshot), new manifests first. Records
  /// added and removed files in `summary`. Manifests it makes must come
  /// from StageNewManifest() so that they are cleaned up.
  virtual Result<std::vector<spec::ManifestFile>> Manifests(
      const spec::TableMetadata& base, const std::vector<spec::ManifestFile>& current,
      SnapshotSummaryBuilder* summary) = 0;

  /// Stages `bytes` as this update's next manifest (see
  /// spec/table_locations.h) and returns its location.
  std::string StageNewManifest(const spec::TableMetadata& base, std::string_view bytes);

  io::FileIO& io() const { return table_.io(); }
  /// Stages a new table file: unsynced and returned when the commit can
  /// make it durable, else as durable as the table says (and nullopt).
  std::optional<catalog::UnsyncedFile> StageTableFile(const std::string& location,
                                                      std::string bytes);
  /// Main's snapshot in table() (none for an empty table): where the
  /// concurrent history that Validate() checks starts.
  std::optional<int64_t> StartingSnapshotId() const;

 private:
  Table table_;
  int64_t snapshot_id_;
  std::string commit_uuid_;
  int attempt_ = 0;
  int manifest_count_ = 0;
  std::map<std::string, std::string> summary_properties_;
  ManifestMerger merger_;
  std::vector<std::string> written_manifests_;
  std::vector<std::string> written_manifest_lists_;
  std::vector<catalog::UnsyncedFile> unsynced_inputs_;
  std::vector<catalog::UnsyncedFile> unsynced_manifests_;
  std::optional<catalog::UnsyncedFile> unsynced_manifest_list_;  // the last Apply()'s
  std::vector<io::NewFile> files_to_write_;
  // What the last Apply() produced: its manifest list and the manifests it
  // names, to keep on CleanUp(true).
  std::shared_ptr<const WrittenManifestList> applied_list_;
};

}  // namespace skade::table
