// TablePointerMirror (L1): every table's current pointer — table id and
// metadata location — in memory, read without locks and without the store.
//
// Structure: 64 shards (by key hash) of a cache::HashIndex from the table's
// store key to an immutable Entry. A commit replaces one Entry (one atomic
// store into its slot) and retires the old one through the epoch domain, so
// it costs O(1) whatever the number of tables; creating a table may grow one
// shard's slot array (amortized O(1); sharding keeps a single regrowth at
// 1/64 of the tables). We do not copy-on-write a whole map (O(n) per commit
// at a million tables) nor publish it through std::atomic<std::shared_ptr>
// (a lock and a shared reference count per read in libstdc++ 12; see
// cache/epoch.h and bench/micro).
//
// Freshness. The mirror's contents equal the store as of its change version
// `synced_version` (store/table_change.h). It is built from the store at
// open and registers itself as the store's CommitListener: this process's
// commits are applied while the committing thread still excludes every other
// writer, before the commit returns to its caller (write-through). Before
// answering, Find() compares `synced_version` with the store's
// LastVersion() (cheap, no lock):
//   - equal: nothing committed since; answer from memory;
//   - it is the version of this process's commit in progress, which started
//     from `synced_version`: that commit has not returned to its caller yet,
//     so answering without it is correct (no other writer in any process
//     commits until it is applied here, see CommitListener);
//   - otherwise another process (or another store instance) committed:
//     catch up first — read the current pointers of the tables that writes
//     after `synced_version` changed, from one read snapshot
//     (CatalogStore::ReadTablePointersChangedAfter) — then answer.
// So a commit that returned in any process is visible to every later Find().
//
// Threading: thread-safe. Find() runs inside the caller's EpochGuard and is
// lock-free unless it has to catch up (then it takes the update mutex and
// reads the store). Changes to the contents are serialized by the update
// mutex.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "skade/cache/hash_index.h"
#include "skade/spec/table_identifier.h"
#include "skade/store/catalog_store.h"
#include "skade/store/commit_listener.h"
#include "skade/store/table_change.h"
#include "skade/store/table_record.h"
#include "skade/util/result.h"

namespace skade::catalog {

class TablePointerMirror : public store::CommitListener {
 public:
  /// One table's pointer. Immutable; allocated with its strings inline.
  class Entry {
   public:
    static Entry* Make(std::string_view key, uint64_t hash, const store::TableRecord& record);
    static void Free(void* entry);

    uint64_t hash() const { return hash_; }
    /// The table's key (store::TableKey).
    std::string_view key() const { return {chars(), key_size_}; }
    uint64_t table_id() const { return table_id_; }
    std::string_view metadata_location() const { return {chars() + key_size_, location_size_}; }
    /// cache::MetadataCache::Hash(metadata_location()), computed once.
    uint64_t location_hash() const { return location_hash_; }

   private:
    Entry() = default;
    const char* chars() const { return reinterpret_cast<const char*>(this + 1); }

    uint64_t hash_ = 0;
    uint64_t table_id_ = 0;
    uint64_t location_hash_ = 0;
    uint32_t key_size_ = 0;
    uint32_t location_size_ = 0;
  };

  /// Builds the mirror from every pointer in `store` (one read snapshot) and
  /// registers it as `store`'s commit listener until destroyed. `store` must
  /// outlive the mirror.
  static Result<std::unique_ptr<TablePointerMirror>> Open(store::CatalogStore* store);
  ~TablePointerMirror() override;
  TablePointerMirror(const TablePointerMirror&) = delete;
  TablePointerMirror& operator=(const TablePointerMirror&) = delete;

  /// The current pointer of `identifier`, or null if the table does not
  /// exist. Must be called inside a cache::EpochGuard; the entry is valid
  /// until the guard ends. Errors only if catching up with another
  /// process's commits fails (kIo, kCorruption).
  Result<const Entry*> Find(const spec::TableIdentifier& identifier);

  /// The store's change version the contents reflect.
  uint64_t synced_version() const { return synced_version_.load(); }

  // store::CommitListener
  void OnCommitting(uint64_t previous, uint64_t version) override;
  void OnCommitted(uint64_t previous, uint64_t version,
                   const std::vector<store::TableChange>& changes) override;
  void OnCommitFailed(uint64_t version) override;

 private:
  static constexpr int kShardBits = 6;

  explicit TablePointerMirror(store::CatalogStore* store) : store_(store) {}
  cache::HashIndex<Entry>& ShardFor(uint64_t hash) { return shards_[hash >> (64 - kShardBits)]; }
  Status EnsureFresh();
  Status CatchUpLocked();
  void ApplyLocked(const std::vector<store::TableChange>& changes);

  store::CatalogStore* store_;
  std::array<cache::HashIndex<Entry>, 1 << kShardBits> shards_;
  std::atomic<uint64_t> synced_version_{0};
  // The version of this process's commit in progress if it started from
  // synced_version_ (so it is allowed to be missing), or 0.
  std::atomic<uint64_t> committing_version_{0};
  std::mutex update_mutex_;
};

}  // namespace skade::catalog
