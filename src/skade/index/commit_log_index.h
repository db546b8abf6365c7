// CommitLogIndex: the catalog's snapshot lookups — the static SnapshotIndex
// first, then the live tail in the store — and the compactor that folds the
// tail into a new index.
//
// Reads: a lookup takes no lock. It reads the published index under an
// EpochGuard (cache/epoch.h); a hit is final (the log is append-only and an
// entry, once written, never changes). A miss asks the store
// (CatalogStore::FindSnapshot(s)), which holds every commit, so the answer
// is the same whether or not the index has caught up; a miss that the store
// answers was in the tail and counts towards a rebuild.
//
// The compactor rebuilds from the commit log read page by page up to a
// CommitSeq() read first (the log is append-only, so that is one consistent
// snapshot of it): the published index plus the commits after it, merged in
// O(n). A new index is published with one atomic pointer store; the old one
// is retired once no reader can hold it. Triggers (options): commits since
// the last build, tail hits since the last build, and a time ceiling, so a
// quiet catalog still folds in its last commits. Where the store has a
// DerivedFileDirectory, each index is written there (snapshot_index_file.h)
// and the mapped file is what is published, so a restart maps it instead of
// rebuilding and a log larger than RAM still works.
//
// With `background` a thread checks the triggers every poll interval (at
// nice 10: rebuilds yield to serving); without it (tests, tools), only
// Rebuild() builds. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "skade/index/snapshot_index.h"
#include "skade/io/file_io.h"
#include "skade/store/catalog_store.h"
#include "skade/util/result.h"

namespace skade::index {

struct CommitLogIndexOptions {
  /// Rebuild once this many commits are not in the index.
  uint64_t rebuild_after_commits = 10000;
  /// Rebuild once this many lookups found their answer in the tail.
  uint64_t rebuild_after_tail_hits = 1000;
  /// Rebuild at least this often while there are commits not in the index.
  int64_t rebuild_interval_ms = 60000;
  /// How often the background thread checks the triggers.
  int64_t poll_interval_ms = 1000;
  bool background = true;
  /// Write and map index files (when the store has a directory for them).
  bool use_files = true;
};

/// What the index has done, for tests, benchmarks and operators.
struct CommitLogIndexStats {
  uint64_t covered_seq = 0;  // of the published index
  uint64_t keys = 0;
  uint64_t builds = 0;
  uint64_t index_hits = 0;  // lookups the index answered
  uint64_t tail_hits = 0;   // misses the store answered
  uint64_t absent = 0;      // neither had the key
  bool mapped = false;      // the published index is a mapped file
};

class CommitLogIndex {
 public:
  /// Opens the index of `store` (which must outlive it): maps the newest
  /// index file that matches the store, if any; then, without `background`,
  /// folds in the tail at once. `local_io` writes and lists index files.
  static Result<std::unique_ptr<CommitLogIndex>> Open(store::CatalogStore* store,
                                                      std::shared_ptr<io::FileIO> local_io,
                                                      const CommitLogIndexOptions& options);
  /// Stops the compactor (waits for a build in progress).
  ~CommitLogIndex();
  CommitLogIndex(const CommitLogIndex&) = delete;
  CommitLogIndex& operator=(const CommitLogIndex&) = delete;

  /// The metadata location of the commit that added `snapshot_id` to the
  /// table `table_id`, or nullopt. Errors are the store's, for a miss.
  Result<std::optional<std::string>> Find(uint64_t table_id, int64_t snapshot_id);
  /// Find() of each key: batched index lookups, then the misses in one store
  /// read.
  Result<std::vector<std::optional<std::string>>> FindMany(std::span<const SnapshotIndexKey> keys);

  /// Builds and publishes an index over every commit so far (the compactor's
  /// step; also run by the background thread). Rebuilds never overlap.
  Status Rebuild();
  CommitLogIndexStats stats() const;

 private:
  CommitLogIndex(store::CatalogStore* store, std::shared_ptr<io::FileIO> local_io,
                 const CommitLogIndexOptions& options);
  void Publish(std::unique_ptr<const SnapshotIndex> index, bool mapped);
  /// Maps the newest index file that matches the store; deletes none.
  Result<std::unique_ptr<const SnapshotIndex>> OpenNewestFile();
  /// True when a trigger has fired.
  Result<bool> Due();
  void RunCompactor();
  /// Wakes the compactor early (a trigger fired on the read path).
  void Kick();
  /// `built` written to its file and mapped back.
  Result<std::unique_ptr<const SnapshotIndex>> MappedCopy(const SnapshotIndex& built);
  /// Deletes the index files older than `covered_seq`.
  void DeleteOlderFiles(uint64_t covered_seq);

  store::CatalogStore* store_;
  std::shared_ptr<io::FileIO> local_io_;
  CommitLogIndexOptions options_;
  std::string directory_;  // empty: no files

  std::atomic<const SnapshotIndex*> published_{nullptr};
  std::atomic<bool> published_mapped_{false};
  std::atomic<uint64_t> index_hits_{0};
  std::atomic<uint64_t> tail_hits_{0};
  std::atomic<uint64_t> absent_{0};
  std::atomic<uint64_t> builds_{0};
  std::atomic<int64_t> last_build_ms_{0};

  std::mutex rebuild_mutex_;  // one build at a time
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by wake_mutex_
  std::atomic<bool> kicked_{false};
  std::thread compactor_;
};

}  // namespace skade::index
