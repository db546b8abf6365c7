// MetadataFlusher: makes durable, off the commit path, the files that
// commits were acknowledged without syncing. What it syncs depends on the
// durability level; there is one flusher, with one round loop, for both.
//
// Below immediate (eventual, none: `tracking` given): a round fsyncs the
// files written without sync since the last round (metadata files,
// manifests, manifest lists, data files: everything written through the
// catalog's TrackingFileIO), then their directories (and any ancestors not
// yet known durable), then the store — in that order, so a durable pointer
// never names a file that is not. The store sync runs while the store holds
// commits off (CatalogStore::Sync), after a last pass over the files written
// meanwhile: a commit acknowledged before the sync wrote its files before it
// committed, so they are in that pass, and commits that wrote files later
// wait for the sync to finish. The price is one writer stall per round, as
// long as that pass and the store sync take.
//
// At immediate (journaled files, AddJournaled()): a commit's metadata file
// is written without sync and its bytes go into the store in the pointer
// swap's transaction (PointerSwap::journaled_files), so the commit is
// durable with the store's one sync. A round fsyncs the journaled files of
// this catalog that committed since the last round, then their directories,
// then releases their entries in one store transaction
// (CatalogStore::ReleaseJournaledFiles). Both kinds of round sync their files
// with one FileIO::SyncFiles call (locally one syncfs(2)), so a round costs
// about one sync however many files it covers. A file is released only after it
// and its directory synced; a release that comes late (a crash before it, a
// failed round) is harmless, since recovery at the next open finds the file
// complete and only syncs it (journal_recovery.h). No commit is held off.
//
// Errors cannot be reported to the commits they concern (already
// acknowledged): they are logged, the files stay pending for the next round,
// and (below immediate) the store is not synced, (at immediate) the entries
// are not released, in a round where a file failed. (On Linux a failed
// writeback may leave pages clean, so a retry can succeed without the data;
// retrying is still better than forgetting, and the log says so. At
// immediate recovery compares bytes, so a file that lost its data to such a
// failure and whose entry was kept is rewritten at the next open.)
//
// With interval_ms > 0 (eventual, immediate) a background thread runs a
// round every interval, and earlier at immediate once many files are
// pending; with 0 (none) rounds run only on Flush() and in the destructor,
// the catalog's clean close. Rounds never overlap. Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/io/tracking_file_io.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

class MetadataFlusher {
 public:
  /// Syncs through `io`. `tracking` (null at immediate) is the FileIO whose
  /// written files a round takes. `io`, `tracking` and `store` must outlive
  /// the flusher.
  MetadataFlusher(io::FileIO* io, io::TrackingFileIO* tracking, store::CatalogStore* store,
                  int interval_ms);
  /// Stops the thread and runs a final round.
  ~MetadataFlusher();
  MetadataFlusher(const MetadataFlusher&) = delete;
  MetadataFlusher& operator=(const MetadataFlusher&) = delete;

  /// `location` is journaled in the store by a swap that committed (or whose
  /// outcome is unknown): a later round syncs it and its directory and
  /// releases its entry. Cheap; never blocks on a round.
  void AddJournaled(std::string location);

  /// Runs a round now and waits for it. On success, every commit
  /// acknowledged before the call is durable without the store's journal.
  /// On failure the error (of the first thing that failed) is also logged
  /// and the round's failed files stay pending.
  Status Flush();

 private:
  void Run();
  // With round_mutex_ held.
  Status Round();
  // The round below immediate: tracked files, then the store.
  Status SyncWritten();
  // The round at immediate: journaled files, then their release.
  Status ReleaseJournaled();
  // Syncs and releases `files` (SyncWhatCanBe); those something is in the
  // way of go to in_the_way_, and all of them to failed_journaled_ when the
  // sync or the release fails.
  Status Release(std::vector<std::string> files, bool log_in_the_way);
  // Syncs `files` and their directories in one FileIO::SyncFiles call; on
  // an error appends them all to `failed`. A file or directory that no
  // longer exists is not a failure: there is nothing left to keep.
  Status SyncFiles(std::vector<std::string> files, std::vector<std::string>* failed);

  io::FileIO* io_;
  io::TrackingFileIO* tracking_;
  store::CatalogStore* store_;
  int interval_ms_;

  std::mutex round_mutex_;
  // Guarded by round_mutex_: retried next round.
  std::vector<std::string> failed_;
  std::vector<std::string> failed_journaled_;
  std::vector<std::string> in_the_way_;  // journaled, logged once, retried on their own

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;                   // guarded by mutex_
  bool wake_early_ = false;             // guarded by mutex_
  std::vector<std::string> journaled_;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace skade::catalog
