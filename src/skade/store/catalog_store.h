// CatalogStore: the catalog's persistent state — namespaces, table
// pointers, the commit log and the global commit sequence — behind one
// interface. The catalog talks to nothing else; implementations live in
// subdirectories (lmdb/: LMDB files in a local directory, the default).
//
// Contract for every implementation:
// - Each method is atomic: it checks its preconditions and writes in one
//   transaction of the store, so concurrent threads, processes and store
//   instances see it whole or not at all.
// - A write that returned is visible to every later read of any instance.
// - Every committed write gets a change version (see table_change.h), told
//   to the CommitListener, and the tables whose pointers it changed can be
//   read back by version (ReadTablePointersChangedAfter): that is how an
//   in-memory mirror of the pointers stays exact across processes.
// - Durability as the Durability level given at open: at kImmediate a write
//   is durable when it returns; below, once Sync() returned.
// - The store is the write-ahead log of the files a swap depends on
//   (PointerSwap::journaled_files): their bytes are durable exactly when the
//   pointer is, and stay until released (ReleaseJournaledFiles, a swap's
//   released_files, RestoreJournaledFiles). The store never touches the
//   files themselves; the catalog makes them durable and releases them.
// - It keeps the answers to requests with an Idempotency-Key
//   (IdempotencyRecord), each until it expires, and writes a commit's record
//   in the commit's own transaction (PointerSwap::idempotency_records).
// - Thread-safe. Errors: the catalog kinds (kNoSuchNamespace, kNoSuchTable,
//   kAlreadyExists, kNamespaceNotEmpty, kCommitFailed, kCommitStateUnknown,
//   kIdempotencyKeyUsed) with Iceberg's messages; kIo/kCorruption from the
//   storage below.
//
// Adding a kind of store: implement this interface in store/<kind>/ and add
// its opener to the table in catalog_store.cc (Open() dispatches on the
// location's scheme).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "skade/metrics/histogram.h"
#include "skade/spec/table_identifier.h"
#include "skade/store/commit_listener.h"
#include "skade/store/commit_log_record.h"
#include "skade/store/durability.h"
#include "skade/store/idempotency_record.h"
#include "skade/store/pointer_swap.h"
#include "skade/store/store_page.h"
#include "skade/store/table_change.h"
#include "skade/store/table_record.h"
#include "skade/util/result.h"

namespace skade::store {

using Properties = std::map<std::string, std::string>;

struct CatalogStoreOptions {
  Durability durability = Durability::kImmediate;
  /// Coalesce concurrent SwapPointers() calls into one transaction (and one
  /// sync). Off, each call commits on its own. A store that cannot coalesce
  /// ignores it.
  bool group_commit = true;
  /// LMDB only: the map size the store starts with, an upper bound on its
  /// file (virtual; the file grows as needed). Other stores ignore it.
  uint64_t map_size = 64ull << 30;
  /// The store is a copy Backup() made, which holds every page up to its
  /// last: one whose file is shorter is refused as truncated (kCorruption;
  /// LMDB would fault reading past its end). Not for a live store, whose
  /// file may end before its last page (pages allocated and freed in one
  /// transaction are never written).
  bool whole_copy = false;
};

/// What a store reports of itself for monitoring (GET /metrics). Fields a
/// kind of store does not have stay 0.
struct StoreStats {
  /// The store's files on disk, in bytes (LMDB: data.mdb's size).
  uint64_t file_bytes = 0;
  /// LMDB: the map size (the upper bound of the data file now) and the
  /// bytes of it in use: (last page used + 1) * page size.
  uint64_t map_size_bytes = 0;
  uint64_t map_used_bytes = 0;
  /// Group commit (CatalogStoreOptions::group_commit): SwapPointers calls
  /// per store transaction, one observation per transaction.
  metrics::HistogramSnapshot group_commit_batch_size;
};

/// The buckets of StoreStats::group_commit_batch_size: 1, 2, 4, … 256.
std::vector<double> GroupCommitBatchBounds();

/// What registering a metadata file under a taken name does
/// (CatalogStore::RegisterTable).
enum class RegisterMode {
  kNew,      // refused: the name is taken
  kRepoint,  // the same table, pointed at another of its files: its id kept
  kReplace,  // another table replaces it: dropped, the new one a new id
};

class CatalogStore {
 public:
  using Opener = std::function<Result<std::unique_ptr<CatalogStore>>(
      const std::string& location, const CatalogStoreOptions& options)>;

  /// Opens or creates the store at `location`: "<scheme>:<rest>" for a
  /// registered scheme ("lmdb:<directory>" is built in), or a local
  /// directory path, which is an LMDB store. kInvalidArgument for an unknown
  /// scheme; otherwise the implementation's errors.
  static Result<std::unique_ptr<CatalogStore>> Open(const std::string& location,
                                                    const CatalogStoreOptions& options);

  /// Makes `opener` open the locations "<scheme>:…" (it gets the whole
  /// location). For kinds of store built outside the product library, such
  /// as tests'; the product's own are listed in catalog_store.cc.
  /// kAlreadyExists if the scheme is taken. Thread-safe.
  static Status RegisterScheme(const std::string& scheme, Opener opener);

  virtual ~CatalogStore() = default;

  /// Sets (or clears, with null) the listener for this instance's writes,
  /// from the next write on (one in progress keeps the one it began with).
  /// `listener` must outlive its use.
  virtual void SetCommitListener(CommitListener* listener) = 0;

  // --- Namespaces ---------------------------------------------------------
  /// kAlreadyExists if present; kNoSuchNamespace if the parent is missing.
  virtual Status CreateNamespace(const spec::Namespace& ns, const Properties& properties) = 0;
  /// The properties, or nullopt if the namespace does not exist.
  virtual Result<std::optional<Properties>> GetNamespace(const spec::Namespace& ns) = 0;
  /// Direct children of `parent` (top-level when empty), in key order
  /// (NamespaceKey). kNoSuchNamespace if `parent` is given and missing.
  /// `page_size` 0 means all; kInvalidArgument for a token this store did
  /// not issue.
  virtual Result<StorePage<spec::Namespace>> ListNamespaces(const spec::Namespace& parent,
                                                            const std::string& page_token,
                                                            size_t page_size) = 0;
  /// kNamespaceNotEmpty if it has tables or children.
  virtual Status DropNamespace(const spec::Namespace& ns) = 0;
  /// Applies removals then updates; returns the keys that were missing.
  virtual Result<std::vector<std::string>> UpdateNamespaceProperties(
      const spec::Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates) = 0;

  // --- Tables -------------------------------------------------------------
  virtual Result<std::optional<TableRecord>> GetTable(const spec::TableIdentifier& identifier) = 0;
  /// The tables of `ns` in name order; kNoSuchNamespace if `ns` is missing.
  /// Paging as ListNamespaces().
  virtual Result<StorePage<spec::TableIdentifier>> ListTables(const spec::Namespace& ns,
                                                              const std::string& page_token,
                                                              size_t page_size) = 0;
  /// Removes the pointer and the table's locations, and returns what the
  /// pointer was; kNoSuchTable if missing.
  virtual Result<TableRecord> DropTable(const spec::TableIdentifier& identifier) = 0;
  /// Keeps the table id. kNoSuchTable, kNoSuchNamespace (for `to`'s),
  /// kAlreadyExists (`to` taken).
  virtual Status RenameTable(const spec::TableIdentifier& from,
                             const spec::TableIdentifier& to) = 0;
  /// Points `identifier` at an existing metadata file, claiming
  /// `owned_locations` (kForbidden if one overlaps another table's). A table
  /// of that name is kAlreadyExists with RegisterMode::kNew; with kRepoint
  /// it keeps its id and gets the new pointer, and claims the locations
  /// besides its own; with kReplace it is dropped (its locations released)
  /// and the new table gets a new id. Appends a commit-log entry
  /// (CommitKind::kRegister, with `origin`) and advances commit_seq.
  virtual Result<TableRecord> RegisterTable(const spec::TableIdentifier& identifier,
                                            const std::string& metadata_location, RegisterMode mode,
                                            const CommitOrigin& origin,
                                            const std::vector<std::string>& owned_locations) = 0;

  /// Applies all swaps in one transaction, or none, in order: each table's
  /// pointer must still be at its expected location (else kCommitFailed,
  /// retryable), and created tables must not exist (kAlreadyExists) in
  /// existing namespaces (kNoSuchNamespace); a new table gets the next table
  /// id. Compare-only swaps are checked the same way and write nothing; one
  /// without an expected location or with snapshot ids is kInvalidArgument.
  /// Appends one commit-log entry per real swap, advances commit_seq by one
  /// per real swap, and records its snapshots for FindSnapshot(). Keeps each
  /// real swap's journaled_files and drops its released_files; a journaled
  /// file on a compare-only swap is kInvalidArgument. Writes each real
  /// swap's idempotency_records (pruning a few expired records, as
  /// RecordIdempotency); a live record with one of their keys fails the call
  /// with kIdempotencyKeyUsed (not retryable), and one on a compare-only swap
  /// is kInvalidArgument. Returns
  /// the tables' records after the commit (for a compare-only swap, the
  /// unchanged record). A call of only compare-only swaps commits nothing
  /// (no change version). Durable when it returns, per the durability
  /// level. Never throws: if the commit path throws (a listener,
  /// std::bad_alloc), the call fails — kCommitStateUnknown if the commit had
  /// begun, else kCommitFailed (retryable; nothing was written). With group
  /// commit, concurrent calls may share a transaction, but each succeeds or
  /// fails on its own, as if it had run alone after the ones before it.
  virtual Result<std::vector<TableRecord>> SwapPointers(const std::vector<PointerSwap>& swaps) = 0;

  // --- Table locations ------------------------------------------------------
  // A table owns the locations its files live under (the catalog passes its
  // TableFileScope roots, normalised: no trailing '/'). No table is given a
  // location overlapping one another owns — equal, or one under the other by
  // whole '/' segments — so a purge or a metadata cleanup of one never
  // reaches another's files. A table claims locations when created
  // (PointerSwap::owned_locations, RegisterTable) and when its roots change,
  // and keeps all it ever claimed until it is dropped: its older snapshots
  // may still name files in a location it moved away from.

  /// The tables whose locations were never recorded (made before the store
  /// kept them, or by a swap without owned_locations), from one read
  /// snapshot.
  virtual Result<std::vector<std::pair<spec::TableIdentifier, TableRecord>>>
  ReadUnclaimedTables() = 0;
  /// Records `locations` as owned by `identifier`, if its pointer is still
  /// `metadata_location` (else kCommitFailed, retryable; kNoSuchTable if it
  /// is gone): how a catalog records the tables of an older store. Without
  /// the overlap check — two such tables may already share files, and both
  /// are recorded, so that no new table overlaps either. No commit-log
  /// entry, no pointer change.
  virtual Status ClaimTableLocations(const spec::TableIdentifier& identifier,
                                     const std::string& metadata_location,
                                     const std::vector<std::string>& locations) = 0;

  /// For each of `locations` (in the claims' form), whether a table owns it
  /// or a location above it, from one read snapshot: what a purge of a
  /// dropped table must leave alone.
  virtual Result<std::vector<bool>> FindOwnedLocations(
      const std::vector<std::string>& locations) = 0;
  /// The overlap check of a swap that claims `locations` for the new table
  /// `identifier`, from one read snapshot: kForbidden, naming the other
  /// table's location, if a table owns one overlapping them. Asked before
  /// anything is made for the table; the swap checks again.
  virtual Status CheckLocationsFree(const spec::TableIdentifier& identifier,
                                    const std::vector<std::string>& locations) = 0;

  // --- Change tracking (for the pointer mirror) ---------------------------
  /// Every table pointer, from one read snapshot, and that snapshot's
  /// change version.
  virtual Result<TablePointers> ReadTablePointers() = 0;
  /// The current pointer (or absence) of every table that a write with a
  /// change version greater than `version` changed, from one read snapshot
  /// (whose version is returned; if it is not greater than `version`,
  /// nothing is listed). Cost is proportional to those changes.
  virtual Result<TablePointers> ReadTablePointersChangedAfter(uint64_t version) = 0;
  /// The change version of the last committed write, by any process or
  /// instance. Called on every read of the pointer mirror, so it must be
  /// cheap (no I/O; LMDB reads it from the shared map). It may run ahead of
  /// what a read snapshot sees while a commit is still in progress, never
  /// behind a commit that returned.
  virtual uint64_t LastVersion() = 0;

  // --- History --------------------------------------------------------------
  /// The metadata location of the commit that added `snapshot_id` to the
  /// table with `table_id` (its first, if a commit added it again after it
  /// expired), or nullopt.
  virtual Result<std::optional<std::string>> FindSnapshot(uint64_t table_id,
                                                          int64_t snapshot_id) = 0;
  /// The metadata location of each (table id, snapshot id) of `keys`, as
  /// FindSnapshot, from one read snapshot.
  virtual Result<std::vector<std::optional<std::string>>> FindSnapshots(
      std::span<const std::pair<uint64_t, int64_t>> keys) = 0;
  /// Commit-log entries with commit_seq > `after`, in order, at most `limit`.
  /// The log is append-only, so pages read one after another up to a
  /// CommitSeq() read first are that log exactly, as one snapshot would be.
  virtual Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadCommitLog(uint64_t after,
                                                                                  size_t limit) = 0;
  /// The commit-log entries of the table with `table_id`, in commit order
  /// (which is time order), with commit_seq > `after`, at most `limit`: its
  /// whole history, including commits whose snapshots are expired. `after`
  /// (a page's last commit) must be a commit in the log, else
  /// kInvalidArgument: the page starts at its time, so any other number
  /// would mean walking the whole history to find where to start.
  virtual Result<std::vector<std::pair<uint64_t, CommitLogRecord>>> ReadTableHistory(
      uint64_t table_id, uint64_t after, size_t limit) = 0;
  /// The table's last commit-log entry committed at or before
  /// `timestamp_ms`, or nullopt if it had none by then.
  virtual Result<std::optional<std::pair<uint64_t, CommitLogRecord>>> FindCommitAsOf(
      uint64_t table_id, int64_t timestamp_ms) = 0;
  /// The number of commits ever made (the last commit_seq).
  virtual Result<uint64_t> CommitSeq() = 0;

  /// What retention has left of the commit log, from one read snapshot:
  /// every commit with pruned_through < commit_seq <= last_seq is in the
  /// log; of those at or below pruned_through only each table's last commit
  /// before pruned_before_ms is (so a table's state as of any time from
  /// then on is still known).
  struct CommitLogBounds {
    uint64_t pruned_through = 0;
    int64_t pruned_before_ms = 0;
    uint64_t last_seq = 0;
  };
  struct CommitLogPage {
    CommitLogBounds bounds;
    /// As ReadCommitLog(after, limit).
    std::vector<std::pair<uint64_t, CommitLogRecord>> entries;
  };
  /// The bounds and ReadCommitLog(after, limit), from one read snapshot —
  /// so a reader that resumes at or after pruned_through knows it missed
  /// nothing (the change feed); `limit` 0 reads the bounds only.
  virtual Result<CommitLogPage> ReadCommitLogPage(uint64_t after, size_t limit) = 0;
  /// Retention: in one transaction, examines up to `limit` commit-log
  /// entries after pruned_through, oldest first, that were committed before
  /// `before_ms`, and drops each (with its table-history entry) unless it is
  /// its table's last commit before then; advances pruned_through past them
  /// and pruned_before_ms to `before_ms`. FindSnapshot() keeps answering for
  /// the snapshots of dropped entries (snapshot ids stay resolvable), so only
  /// the history and the change feed lose them. Returns how many entries it
  /// examined (0: nothing left to prune before `before_ms`). Durable per
  /// the level, as any write.
  virtual Result<size_t> PruneCommitLog(int64_t before_ms, size_t limit) = 0;

  // --- Journaled files -------------------------------------------------------
  /// Every file kept by committed swaps and not yet released, in location
  /// order, from one read snapshot.
  virtual Result<std::vector<JournaledFile>> ReadJournaledFiles() = 0;
  /// The locations of the journaled files kept as a difference from one of
  /// `bases` (JournaledFile::base), from one read snapshot; reads only the
  /// entries' headers.
  virtual Result<std::vector<std::string>> ReadJournaledDeltasOn(
      const std::vector<std::string>& bases) = 0;
  /// Drops the entries of `locations` in one transaction (durable per the
  /// level); locations not journaled are ignored. Call only once a file and
  /// its directory are durable, or once it is deliberately gone: a release
  /// that comes late is harmless, one that comes early loses the file at a
  /// power loss.
  virtual Status ReleaseJournaledFiles(const std::vector<std::string>& locations) = 0;
  /// For recovery: while no write of this store commits in any process (as
  /// Sync()), calls `restore` for each of `locations` that is still
  /// journaled, with its bytes, then releases those in the same transaction.
  /// Holding commits makes "still journaled" exact: a file released and
  /// deleted on purpose by another process is not passed to `restore`, and
  /// two processes never restore one file at once. If `restore` fails,
  /// nothing is released and its error is returned. kIo if commits cannot be
  /// held.
  virtual Status RestoreJournaledFiles(
      const std::vector<std::string>& locations,
      const std::function<Status(const JournaledFile&)>& restore) = 0;

  // --- Idempotency records (REST Idempotency-Key) -----------------------------
  /// The record of `key`, or nullopt if there is none or it has expired
  /// (expires_at_ms <= now_ms).
  virtual Result<std::optional<IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                         int64_t now_ms) = 0;
  /// Keeps `record` unless its key has a live record (at
  /// record.created_at_ms; an expired one is replaced), and returns the
  /// record the key has afterwards: `record` itself, or the live one, whose
  /// answer is the one to give. In the same transaction, prunes a few records
  /// expired by then (bounded work, earliest expiry first), so the store
  /// needs no other sweep.
  virtual Result<IdempotencyRecord> RecordIdempotency(const IdempotencyRecord& record) = 0;
  /// Deletes up to `limit` records expired by `now_ms`, earliest expiry
  /// first, in one transaction; returns how many.
  virtual Result<size_t> PruneIdempotencyRecords(int64_t now_ms, size_t limit) = 0;

  // --- Backup -----------------------------------------------------------------
  /// Writes a consistent copy of the store — every record as of one read
  /// snapshot, taken while other threads and processes go on writing — into
  /// the local directory `directory`, which must exist and hold no store,
  /// and makes it durable (its files and the directory synced). The copy is
  /// a store of the same kind; the returned location opens it (Open()). Its
  /// change versions start afresh (nothing from before the copy is listed by
  /// ReadTablePointersChangedAfter); commit_seq, the commit log, the journal
  /// and the idempotency records are as they were. The default is
  /// kUnsupported: a kind of store without a consistent copy must say so. A
  /// failed backup may leave files in `directory`.
  virtual Result<std::string> Backup(const std::string& directory);

  /// Whether a process (this one or another) has the store at `location`
  /// open: a restore must never replace a store in use. False when there is
  /// no store there. kUnsupported for a kind of store that cannot tell.
  static Result<bool> InUse(const std::string& location);

  // --- Derived files ----------------------------------------------------------
  /// A local directory where files derived from this store's contents (the
  /// static snapshot index) may be kept beside it, or empty if the store has
  /// none (they are then rebuilt in memory at each open).
  virtual std::string DerivedFileDirectory() const { return {}; }

  // --- Monitoring -------------------------------------------------------------
  /// This instance's statistics and the store's sizes. Cheap (no transaction,
  /// a stat() at most): called at each scrape. kUnsupported by default.
  virtual Result<StoreStats> Stats();
  /// Whether a write could succeed now, checked without writing (a readiness
  /// probe calls it every second): kIo with the reason if not. For LMDB: the
  /// data file is still the one opened (not removed or replaced), its file
  /// system is not read-only and has free space, and the map is not full
  /// with no room to grow. OK by default.
  virtual Status CheckWritable() { return OkStatus(); }

  // --- Durability -----------------------------------------------------------
  /// Makes every write committed so far durable (below kImmediate, writes
  /// are acknowledged before). First runs `with_commits_held` while no write
  /// of this store commits in any process, so the caller can make durable
  /// what those writes depend on before they are (the flusher syncs the
  /// files they name); if it fails, the store is not synced and its error is
  /// returned. kIo if holding commits or the sync fails.
  virtual Status Sync(const std::function<Status()>& with_commits_held) = 0;
};

}  // namespace skade::store
