// LmdbCatalogStore: the CatalogStore in LMDB files in a local directory
// (layout in lmdb_keys.h, LMDB's caveats in lmdb_env.h).
//
// Every method is one short LMDB transaction and checks its preconditions
// inside it, so concurrent threads and processes see each operation as
// atomic. Thread-safe. Errors as CatalogStore says, kIo/kCorruption from
// LMDB.
//
// Group commit (LevelDB's DBImpl::Write): concurrent SwapPointers() calls
// queue up; the first in line becomes the leader, waits for the writer lock,
// takes every request queued by then (up to 256), applies each in its own
// nested transaction (so a request that fails — lost compare-and-swap, table
// exists, … — writes nothing and fails alone), commits the batch as one LMDB
// transaction (one fsync), and hands every caller its own result. Requests
// for the same table in one batch are applied in queue order, each against
// the state the previous ones left. The others keep queueing meanwhile and
// form the next batch. The leader catches whatever the commit path throws,
// so a batch always gets its results and the lead always passes on.
//
// A write that fills the map (LmdbOptions::max_map_size above map_size) is
// redone from the start in a fresh transaction on a map twice as large,
// still under the writer lock; a batch is redone whole.
//
// Journaled files live in their own database (lmdb_keys.h), written in the
// swap's nested transaction, so a swap that fails leaves none. Their bytes
// make the transaction larger (LMDB writes values above a page to overflow
// pages), not more frequent. RestoreJournaledFiles is the one write that does
// file I/O under the writer lock, on purpose (see catalog_store.h); it runs
// only when the catalog opens and finds files that need rewriting.
//
// Idempotency records live in their own database, with a second one that
// orders them by expiry (lmdb_keys.h): every write that adds records first
// deletes at most a few expired ones from the front of that order, so
// pruning costs a bounded, small amount per such write and no sweep runs.
// A swap's records are written in its nested transaction, with its pointer.
//
// Change versions are LMDB transaction ids. Every write transaction records
// the table keys whose pointers it changed in `table_changes` (keyed by its
// id) and reports its commit to the CommitListener while it holds the writer
// lock (which outlasts the LMDB commit, see lmdb_env.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/store/catalog_store.h"
#include "skade/store/lmdb/lmdb_env.h"
#include "skade/store/lmdb/lmdb_location_claims.h"

namespace skade::store::lmdb {

struct LmdbCatalogStoreOptions {
  LmdbOptions lmdb;
  /// Coalesce concurrent SwapPointers() calls into one transaction. Off, each
  /// call commits (and syncs) on its own.
  bool group_commit = true;
};

/// The opener of plain directory paths and "lmdb:<directory>" locations
/// (CatalogStore::Open): `options` onto LmdbCatalogStoreOptions.
Result<std::unique_ptr<CatalogStore>> OpenLmdbCatalogStore(const std::string& location,
                                                           const CatalogStoreOptions& options);

class LmdbCatalogStore : public CatalogStore {
 public:
  /// Opens or creates the store in directory `path`. Instances of one
  /// directory in a process share its environment (lmdb_env.h).
  static Result<std::unique_ptr<LmdbCatalogStore>> Open(const std::string& path,
                                                        const LmdbCatalogStoreOptions& options);

  void SetCommitListener(CommitListener* listener) override { listener_.store(listener); }

  Status CreateNamespace(const spec::Namespace& ns, const Properties& properties) override;
  Result<std::optional<Properties>> GetNamespace(const spec::Namespace& ns) override;
  Result<StorePage<spec::Namespace>> ListNamespaces(const spec::Namespace& parent,
                                                    const std::string& page_token,
                                                    size_t page_size) override;
  Status DropNamespace(const spec::Namespace& ns) override;
  Result<std::vector<std::string>> UpdateNamespaceProperties(
      const spec::Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates) override;

  Result<std::optional<TableRecord>> GetTable(const spec::TableIdentifier& identifier) override;
  Result<StorePage<spec::TableIdentifier>> ListTables(const spec::Namespace& ns,
                                                      const std::string& page_token,
                                                      size_t page_size) override;
  Result<TableRecord> DropTable(const spec::TableIdentifier& identifier) override;
  Status RenameTable(const spec::TableIdentifier& from, const spec::TableIdentifier& to) override;
  Result<TableRecord> RegisterTable(const spec::TableIdentifier& identifier,
                                    const std::string& metadata_location, RegisterMode mode,
                                    const CommitOrigin& origin,
                                    const std::vector<std::string>& owned_locations) override;
  /// Group-committed with concurrent calls (see above).
  Result<std::vector<TableRecord>> SwapPointers(const std::vector<PointerSwap>& swaps) override;
  /// SwapPointers() calls in the group-commit queue now, the leader's batch
  /// included (none with group commit off).
  size_t QueuedSwaps();

  Result<std::vector<std::pair<spec::TableIdentifier, TableRecord>>> ReadUnclaimedTables() override;
  Status ClaimTableLocations(const spec::TableIdentifier& identifier,
                             const std::string& metadata_location,
                             const std::vector<std::string>& locations) override;

  Result<std::vector<bool>> FindOwnedLocations(const std::vector<std::string>& locations) override;
  Status CheckLocationsFree(const spec::TableIdentifier& identifier,
                            const std::vector<std::string>& locations) override;

  Result<TablePointers> ReadTablePointers() override;
  Result<TablePointers> ReadTablePointersChangedAfter(uint64_t version) override;
  /// LmdbEnv::LastTxnId(): no system call.
  uint64_t LastVersion() override { return env_->LastTxnId(); }

  Result<std::optional<std::string>> FindSnapshot(uint64_t table_id, int64_t snapshot_id) override;
  Result<std::vector<std::optional<std::string>>> FindSnapshots(
      std::span<const std::pair<uint64_t, int64_t>> keys) override;
  Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadCommitLog(uint64_t after,
                                                                          size_t limit) override;
  Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadTableHistory(uint64_t table_id,
                                                                             uint64_t after,
                                                                             size_t limit) override;
  Result<std::optional<std::pair<uint64_t, CommitLogRecord>>> FindCommitAsOf(
      uint64_t table_id, int64_t timestamp_ms) override;
  /// LmdbEnv::CopyTo with table_changes emptied (the copy's transaction ids,
  /// which are its change versions, start again from 1, and entries keyed by
  /// the old ids would name the wrong writes); returns `directory`.
  Result<std::string> Backup(const std::string& directory) override;
  /// The store's own directory.
  std::string DerivedFileDirectory() const override;
  Result<uint64_t> CommitSeq() override;
  Result<CommitLogPage> ReadCommitLogPage(uint64_t after, size_t limit) override;
  Result<size_t> PruneCommitLog(int64_t before_ms, size_t limit) override;

  Result<std::vector<JournaledFile>> ReadJournaledFiles() override;
  Result<std::vector<std::string>> ReadJournaledDeltasOn(
      const std::vector<std::string>& bases) override;
  Status ReleaseJournaledFiles(const std::vector<std::string>& locations) override;
  Status RestoreJournaledFiles(const std::vector<std::string>& locations,
                               const std::function<Status(const JournaledFile&)>& restore) override;

  Result<std::optional<IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                 int64_t now_ms) override;
  Result<IdempotencyRecord> RecordIdempotency(const IdempotencyRecord& record) override;
  Result<size_t> PruneIdempotencyRecords(int64_t now_ms, size_t limit) override;

  /// Holds commits with the writer lock (across processes), then
  /// mdb_env_sync().
  Status Sync(const std::function<Status()>& with_commits_held) override;

  /// LmdbEnv::Info() and this instance's group-commit batch sizes.
  Result<StoreStats> Stats() override;
  /// LmdbEnv::CheckWritable().
  Status CheckWritable() override { return env_->CheckWritable(); }

  LmdbEnv& env() { return *env_; }

 private:
  struct SwapRequest;
  struct Counters;

  LmdbCatalogStore(std::shared_ptr<LmdbEnv> env, bool group_commit)
      : env_(std::move(env)), group_commit_(group_commit) {}
  /// Runs `body` (which writes in the transaction and commits it) under the
  /// writer lock; if it failed on a full map that may grow, grows the map and
  /// runs it again in a fresh transaction.
  template <typename Body>
  auto Write(Body&& body) -> decltype(body(std::declval<WriteTxn&>()));
  /// Records `changes` in table_changes and commits `txn`, telling the
  /// listener. Sets `*commit_started` (if given) just before LMDB's commit.
  Status Commit(WriteTxn& txn, const std::vector<TableChange>& changes,
                bool* commit_started = nullptr);
  /// Applies `batch` in `txn`, commits it and sets each request's result,
  /// growing the map and starting over if it fills up.
  void CommitBatch(WriteTxn& txn, const std::vector<SwapRequest*>& batch, bool* commit_started);
  /// One attempt of CommitBatch.
  void TryCommitBatch(WriteTxn& txn, const std::vector<SwapRequest*>& batch, bool* commit_started);
  /// Sets every request's result after the commit path threw `what`.
  static void FailThrownBatch(const std::vector<SwapRequest*>& batch, bool commit_started,
                              std::string_view what);
  /// Appends one commit to commit_log and table_history.
  Status PutCommit(WriteTxn& txn, uint64_t commit_seq, const CommitLogRecord& record);
  // ReadCommitLog() within `txn`.
  Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadCommitLogIn(const ReadTxn& txn,
                                                                            uint64_t after,
                                                                            size_t limit);
  /// The journal values of `swaps`' journaled files (SwapRequest).
  static std::vector<std::string> EncodeJournal(const std::vector<PointerSwap>& swaps);
  Result<std::vector<TableRecord>> ApplySwaps(WriteTxn& txn, const SwapRequest& request,
                                              Counters* counters,
                                              std::vector<TableChange>* changes);
  /// Writes the idempotency records of `swaps` (PointerSwap's rules).
  Status PutSwapIdempotencyRecords(WriteTxn& txn, const std::vector<PointerSwap>& swaps);
  /// The record of `key` in `txn` unless it expired by `now_ms`.
  template <typename Txn>
  Result<std::optional<IdempotencyRecord>> GetLiveIdempotencyRecord(const Txn& txn,
                                                                    std::string_view key,
                                                                    int64_t now_ms);
  /// Writes `record` and its expiry entry, over an expired record of its key.
  Status PutIdempotencyRecord(WriteTxn& txn, const IdempotencyRecord& record);
  /// Deletes up to `limit` records expired by `now_ms`, earliest first.
  Result<size_t> PruneExpiredIdempotencyRecords(WriteTxn& txn, int64_t now_ms, size_t limit);

  std::shared_ptr<LmdbEnv> env_;
  const bool group_commit_;
  std::atomic<CommitListener*> listener_{nullptr};
  MDB_dbi namespaces_ = 0;
  MDB_dbi tables_ = 0;
  MDB_dbi snapshots_ = 0;
  MDB_dbi commit_log_ = 0;
  MDB_dbi table_history_ = 0;
  MDB_dbi table_changes_ = 0;
  MDB_dbi meta_ = 0;
  MDB_dbi journal_ = 0;
  MDB_dbi idempotency_ = 0;
  MDB_dbi idempotency_expiry_ = 0;
  LocationClaims claims_;

  std::mutex queue_mutex_;
  std::deque<SwapRequest*> queue_;  // front = the current leader's batch
  // SwapPointers calls per transaction (StoreStats).
  metrics::Histogram group_commit_batch_size_{GroupCommitBatchBounds()};
};

}  // namespace skade::store::lmdb
