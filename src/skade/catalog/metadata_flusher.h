// MetadataFlusher: durability for the eventual and none levels. A round
// fsyncs the files written without sync since the last round (metadata
// files, manifests, manifest lists, data files: everything written through
// the catalog's TrackingFileIO), then their directories (and any ancestors
// not yet known durable), then the store — in that order, so a durable
// pointer never names a file that is not.
//
// The store sync runs while the store holds commits off
// (CatalogStore::Sync), after a last pass over the files written meanwhile:
// a commit acknowledged before the sync wrote its files before it committed,
// so they are in that pass, and commits that wrote files later wait for the
// sync to finish. The price is
// one writer stall per round, as long as that pass and the store sync take.
//
// Errors cannot be reported to the commits they concern (already
// acknowledged): they are logged, the files stay pending for the next round,
// and the store is not synced in a round where a file failed. (On Linux a
// failed writeback may leave pages clean, so a retry can succeed without the
// data; retrying is still better than forgetting, and the log says so.)
//
// With interval_ms > 0 (eventual) a background thread runs a round every
// interval; with 0 (none) rounds run only on Flush() and in the destructor,
// the catalog's clean close. Rounds never overlap. Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "skade/io/tracking_file_io.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::catalog {

class MetadataFlusher {
 public:
  /// `io` and `store` must outlive the flusher.
  MetadataFlusher(io::TrackingFileIO* io, store::CatalogStore* store, int interval_ms);
  /// Stops the thread and runs a final round.
  ~MetadataFlusher();
  MetadataFlusher(const MetadataFlusher&) = delete;
  MetadataFlusher& operator=(const MetadataFlusher&) = delete;

  /// Runs a round now and waits for it. On success, every commit
  /// acknowledged before the call is durable. On failure the error (of the
  /// first thing that failed) is also logged and the round's failed files
  /// stay pending.
  Status Flush();

 private:
  void Run();
  // With round_mutex_ held.
  Status Round();
  // Syncs `files` and then their directories; appends what failed to
  // `failed`. Returns the first error. A file or directory that no longer
  // exists is not a failure: there is nothing left to keep.
  Status SyncFiles(const std::vector<std::string>& files, std::vector<std::string>* failed);

  io::TrackingFileIO* io_;
  store::CatalogStore* store_;
  int interval_ms_;

  std::mutex round_mutex_;
  std::vector<std::string> failed_;  // guarded by round_mutex_: retried next round

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace skade::catalog
