// The catalog's persistent state in LMDB: namespaces, table pointers, the
// commit log and the global commit sequence (layout in keys.h).
//
// Every method is one short LMDB transaction and checks its preconditions
// inside it, so concurrent threads and processes see each operation as
// atomic. Thread-safe. Errors: the catalog kinds (kNoSuchNamespace,
// kNoSuchTable, kAlreadyExists, kNamespaceNotEmpty, kCommitFailed) with
// Iceberg's messages, kIo/kCorruption from LMDB.
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
// Every write transaction records the table keys whose pointers it changed
// in `table_changes` (keyed by LMDB transaction id) and reports its commit to
// the CommitListener, so an in-memory mirror of the pointers can be kept
// exact within this process and caught up cheaply on other processes'
// commits.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/store/keys.h"
#include "skade/store/lmdb.h"
#include "skade/util/result.h"

namespace skade::store {

using Properties = std::map<std::string, std::string>;

/// One table's part of an atomic commit: move its pointer from
/// `expected_location` to `new_location`. No `expected_location` means the
/// table is being created and must not exist yet.
///
/// An empty `new_location` makes it compare-only (see CompareOnly()): the
/// pointer must still be at `expected_location`, and nothing is written for
/// it — no pointer change, no commit-log entry, no commit_seq step. That is
/// how a multi-table transaction pins the tables it read but did not change.
struct PointerSwap {
  spec::TableIdentifier identifier;
  std::optional<std::string> expected_location;
  std::string new_location;
  std::vector<int64_t> added_snapshot_ids;

  /// Asserts that `identifier` still points at `location`.
  static PointerSwap CompareOnly(spec::TableIdentifier identifier, std::string location) {
    return {std::move(identifier), std::move(location), {}, {}};
  }
  bool compare_only() const { return new_location.empty(); }
};

template <typename T>
struct StorePage {
  std::vector<T> items;
  std::string next_page_token;  // empty on the last page
};

/// A table pointer as a write transaction left it.
struct TableChange {
  std::string table_key;              // TableKey() of the table
  std::optional<TableRecord> record;  // nullopt: the table no longer exists
  bool operator==(const TableChange&) const = default;
};

/// Table pointers as of LMDB transaction `txn_id`.
struct TablePointers {
  uint64_t txn_id = 0;
  std::vector<TableChange> tables;
};

/// Observes a CatalogStore's write transactions (all of them, also those that
/// change no table). The store calls it on the writing thread while holding
/// the writer lock (see lmdb.h), so calls arrive one at a time in commit
/// order and no other writer in any process commits in between. Implementations
/// must not call back into the store's write methods.
class CommitListener {
 public:
  virtual ~CommitListener() = default;
  /// Transaction `txn_id` is about to commit.
  virtual void OnCommitting(uint64_t txn_id) = 0;
  /// It committed; `changes` are the table pointers it changed, in order.
  virtual void OnCommitted(uint64_t txn_id, const std::vector<TableChange>& changes) = 0;
  /// Its commit failed; it may or may not have reached the store
  /// (kCommitStateUnknown), so the listener must not assume either.
  virtual void OnCommitFailed(uint64_t txn_id) = 0;
};

struct CatalogStoreOptions {
  LmdbOptions lmdb;
  /// Coalesce concurrent SwapPointers() calls into one transaction. Off, each
  /// call commits (and syncs) on its own.
  bool group_commit = true;
};

class CatalogStore {
 public:
  /// Opens or creates the store in directory `path`.
  static Result<std::unique_ptr<CatalogStore>> Open(const std::string& path,
                                                    const CatalogStoreOptions& options);

  /// Sets (or clears, with null) the listener for this store's commits. Call
  /// before the store is used concurrently; `listener` must outlive its use.
  void SetCommitListener(CommitListener* listener) { listener_ = listener; }

  // --- Namespaces ---------------------------------------------------------
  /// kAlreadyExists if present; kNoSuchNamespace if the parent is missing.
  Status CreateNamespace(const spec::Namespace& ns, const Properties& properties);
  /// The properties, or nullopt if the namespace does not exist.
  Result<std::optional<Properties>> GetNamespace(const spec::Namespace& ns);
  /// Direct children of `parent` (top-level when empty), in key order.
  /// kNoSuchNamespace if `parent` is given and missing.
  Result<StorePage<spec::Namespace>> ListNamespaces(const spec::Namespace& parent,
                                                    const std::string& page_token,
                                                    size_t page_size);
  /// kNamespaceNotEmpty if it has tables or children.
  Status DropNamespace(const spec::Namespace& ns);
  /// Applies removals then updates; returns the keys that were missing.
  Result<std::vector<std::string>> UpdateNamespaceProperties(
      const spec::Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates);

  // --- Tables -------------------------------------------------------------
  Result<std::optional<TableRecord>> GetTable(const spec::TableIdentifier& identifier);
  /// kNoSuchNamespace if `ns` is missing.
  Result<StorePage<spec::TableIdentifier>> ListTables(const spec::Namespace& ns,
                                                      const std::string& page_token,
                                                      size_t page_size);
  /// Removes the pointer and returns what it was; kNoSuchTable if missing.
  Result<TableRecord> DropTable(const spec::TableIdentifier& identifier);
  Status RenameTable(const spec::TableIdentifier& from, const spec::TableIdentifier& to);
  /// Points `identifier` at an existing metadata file. With `overwrite`, an
  /// existing table keeps its id and gets the new pointer.
  Result<TableRecord> RegisterTable(const spec::TableIdentifier& identifier,
                                    const std::string& metadata_location, bool overwrite);

  /// Applies all swaps in one transaction, or none, in order: each table's
  /// pointer must still be at its expected location (else kCommitFailed,
  /// retryable), and created tables must not exist (kAlreadyExists) in
  /// existing namespaces. Compare-only swaps are checked the same way and
  /// write nothing; one without an expected location or with snapshot ids is
  /// kInvalidArgument. Appends one commit-log entry per real swap and
  /// advances commit_seq. Returns the tables' records after the commit (for a
  /// compare-only swap, the unchanged record). Group-committed with
  /// concurrent calls (see above); durable when it returns, per the
  /// durability level. Never throws: if the commit path throws (a callback,
  /// std::bad_alloc), every request in the batch fails — kCommitStateUnknown
  /// if the LMDB commit had begun, else kCommitFailed (retryable; nothing was
  /// written) — and the next caller in line leads.
  Result<std::vector<TableRecord>> SwapPointers(const std::vector<PointerSwap>& swaps);

  /// Every table pointer, from one read snapshot.
  Result<TablePointers> ReadTablePointers();
  /// The current pointer (or absence) of every table that a write
  /// transaction with id greater than `txn_id` changed, from one read
  /// snapshot (whose id is returned). Cost is proportional to those changes.
  Result<TablePointers> ReadTablePointersChangedAfter(uint64_t txn_id);

  /// The metadata location of the commit that added `snapshot_id` to the
  /// table with `table_id`, or nullopt.
  Result<std::optional<std::string>> FindSnapshot(uint64_t table_id, int64_t snapshot_id);

  /// Commit-log entries with commit_seq > `after`, in order, at most `limit`.
  Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadCommitLog(uint64_t after,
                                                                          size_t limit);

  /// The number of commits ever made (the last commit_seq).
  Result<uint64_t> CommitSeq();

  LmdbEnv& env() { return *env_; }

 private:
  struct SwapRequest;
  struct Counters;

  CatalogStore(std::shared_ptr<LmdbEnv> env, bool group_commit)
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
  Result<std::vector<TableRecord>> ApplySwaps(WriteTxn& txn, const std::vector<PointerSwap>& swaps,
                                              Counters* counters,
                                              std::vector<TableChange>* changes);

  std::shared_ptr<LmdbEnv> env_;
  const bool group_commit_;
  CommitListener* listener_ = nullptr;
  MDB_dbi namespaces_ = 0;
  MDB_dbi tables_ = 0;
  MDB_dbi snapshots_ = 0;
  MDB_dbi commit_log_ = 0;
  MDB_dbi table_changes_ = 0;
  MDB_dbi meta_ = 0;

  std::mutex queue_mutex_;
  std::deque<SwapRequest*> queue_;  // front = the current leader's batch
};

}  // namespace skade::store
