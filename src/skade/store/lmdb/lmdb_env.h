// RAII wrappers for LMDB: the environment, transactions and cursors.
//
// LMDB's caveats, and how skade handles them:
// - One write transaction at a time per environment, across all processes
//   (a robust mutex in the lock file). Writers therefore keep write
//   transactions short: no file I/O, no parsing inside one. A process killed
//   while holding the lock releases it (robust mutex; LMDB recovers).
// - On top of LMDB's, skade holds its own writer lock from BeginWrite() until
//   the WriteTxn is destroyed: a process mutex plus flock() on
//   `skade-writer.lock` beside the data file (the kernel drops it when a
//   process dies). It outlasts the LMDB commit on purpose: what a writer does
//   between Commit() and the end of the WriteTxn (publishing the commit to
//   in-memory mirrors) is ordered before every later writer in any process.
// - Read transactions hold a reader slot and pin the pages they see; a
//   long-lived reader makes the file grow. skade's read transactions last for
//   one lookup or one listing. The environment is opened with MDB_NOTLS so a
//   read transaction is not tied to its thread (thread pools, Asio).
// - Reader slots of crashed processes stay taken until cleared:
//   Open() calls mdb_reader_check(), and so does every write transaction that
//   finds the reader table full.
// - The map size is an upper bound on the file, not an allocation; the
//   default is 64 GiB. With `max_map_size` above `map_size`, a write that
//   fills the map is retried on a map twice as large (up to that bound);
//   otherwise a full map is kIo with a message naming the option to raise.
//   If another process grew the map, transactions get MDB_MAP_RESIZED and we
//   adopt the new size and retry.
// - mdb_env_set_mapsize() is allowed only while this process has no
//   transaction open in the environment (LMDB does not check; it remaps the
//   file under any open reader). Every ReadTxn and top-level WriteTxn is
//   counted; a resize holds back new transactions, waits for the open ones
//   to end, resizes, and lets the others go. A thread that holds a
//   transaction while beginning another one could wait on itself; the resize
//   then gives up after `resize_wait_ms` with a retryable kIo, so nothing
//   hangs for good.
// - An environment must be opened only once per process: Open() returns the
//   already-open instance for the same directory. A second open with a
//   larger map size (or max map size) grows the shared environment to it;
//   one with a different durability, or more readers or databases than the
//   first, is kInvalidArgument, because those are fixed while the
//   environment is open and silently ignoring them would break the caller's
//   durability or capacity expectations.
// - MDB_val pointers returned by Get/cursors are valid only until the
//   transaction ends or writes; the wrappers return string_views with that
//   lifetime, and callers copy what they keep.
#pragma once

#include <lmdb.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/store/durability.h"
#include "skade/util/result.h"
#include "skade/util/thread_shard.h"

namespace skade::store::lmdb {

struct LmdbOptions {
  /// The map size the environment starts with (a larger existing file wins).
  uint64_t map_size = 64ull << 30;
  /// How far a full map may grow, doubling each time; at most `map_size`
  /// (the default, 0) means never.
  uint64_t max_map_size = 0;
  /// How long a resize waits for this process's open transactions to end
  /// before it fails (retryable kIo).
  int resize_wait_ms = 10'000;
  unsigned max_readers = 1022;
  unsigned max_dbs = 16;
  Durability durability = Durability::kImmediate;
  /// CatalogStoreOptions::whole_copy.
  bool whole_copy = false;
};

class LmdbEnv;

/// An environment's sizes (LmdbEnv::Info).
struct LmdbEnvInfo {
  uint64_t map_size = 0;
  /// (last page used + 1) * page size: the part of the map holding data.
  uint64_t used_bytes = 0;
  /// The data file's size on disk.
  uint64_t file_bytes = 0;
};

/// A read-only snapshot. Move-only; aborted (released) on destruction.
class ReadTxn {
 public:
  ReadTxn(ReadTxn&& other) noexcept
      : txn_(std::exchange(other.txn_, nullptr)),
        env_(other.env_),
        gate_shard_(other.gate_shard_) {}
  ReadTxn& operator=(ReadTxn&& other) noexcept;
  ~ReadTxn();

  /// The value for `key`, or nullopt. Valid until the transaction ends.
  Result<std::optional<std::string_view>> Get(MDB_dbi dbi, std::string_view key) const;
  /// The id of the last write transaction this snapshot includes.
  uint64_t id() const { return mdb_txn_id(txn_); }
  MDB_txn* raw() const { return txn_; }

 private:
  friend class LmdbEnv;
  ReadTxn(MDB_txn* txn, LmdbEnv* env, uint32_t gate_shard)
      : txn_(txn), env_(env), gate_shard_(gate_shard) {}
  void End();
  MDB_txn* txn_;
  LmdbEnv* env_;         // counts this transaction as open (see the caveats)
  uint32_t gate_shard_;  // where env_ counts it
};

/// The single write transaction, or a nested one inside it. Move-only;
/// aborted unless Commit() succeeds. Must be used and ended on the thread
/// that began it. A top-level WriteTxn holds the writer lock until it is
/// destroyed, also after Commit().
class WriteTxn {
 public:
  WriteTxn(WriteTxn&& other) noexcept
      : txn_(std::exchange(other.txn_, nullptr)),
        writer_(std::exchange(other.writer_, nullptr)),
        gate_shard_(other.gate_shard_) {}
  WriteTxn& operator=(WriteTxn&&) = delete;
  ~WriteTxn();

  /// A nested transaction: its writes become part of this one if it commits
  /// and vanish if it aborts. This transaction must not be used until the
  /// nested one has ended.
  Result<WriteTxn> BeginNested();
  /// The id the transaction gets when it commits (for a nested transaction,
  /// its parent's).
  uint64_t id() const { return mdb_txn_id(txn_); }

  Result<std::optional<std::string_view>> Get(MDB_dbi dbi, std::string_view key) const;
  Status Put(MDB_dbi dbi, std::string_view key, std::string_view value);
  /// Deletes `key`; returns whether it existed.
  Result<bool> Delete(MDB_dbi dbi, std::string_view key);
  /// kCommitStateUnknown if the commit failed in a way that may or may not
  /// have reached disk.
  Status Commit();
  /// True if an operation in this transaction (or a nested one inside it)
  /// failed because the map is full. LmdbEnv::GrowMap() can then make room.
  bool map_full() const;
  MDB_txn* raw() const { return txn_; }

 private:
  friend class LmdbEnv;
  WriteTxn(MDB_txn* txn, LmdbEnv* writer, uint32_t gate_shard)
      : txn_(txn), writer_(writer), gate_shard_(gate_shard) {}
  // Aborts the LMDB transaction (if still open), keeping the writer lock.
  void Abort();
  static void NoteMapFull(MDB_env* env, int rc);
  MDB_txn* txn_;
  LmdbEnv* writer_;      // whose writer lock this transaction holds; null if nested
  uint32_t gate_shard_;  // where writer_ counts it as open
};

/// Iterates keys in order within one transaction. Move-only.
class Cursor {
 public:
  /// Opens a cursor in `txn` (ReadTxn::raw() or WriteTxn::raw()).
  static Result<Cursor> Open(MDB_txn* txn, MDB_dbi dbi);
  Cursor(Cursor&& other) noexcept : cursor_(std::exchange(other.cursor_, nullptr)) {}
  Cursor& operator=(Cursor&&) = delete;
  ~Cursor();

  /// Positions at the first key >= `key`; false if there is none.
  Result<bool> Seek(std::string_view key);
  /// Positions at the last key; false if the database is empty.
  Result<bool> Last();
  /// Advances; false at the end.
  Result<bool> Next();
  /// Steps back; false before the first key.
  Result<bool> Prev();
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }

 private:
  explicit Cursor(MDB_cursor* cursor) : cursor_(cursor) {}
  Result<bool> Position(MDB_cursor_op op, std::string_view seek = {});

  MDB_cursor* cursor_;
  std::string_view key_;
  std::string_view value_;
};

/// An open LMDB environment. Thread-safe.
class LmdbEnv {
 public:
  /// Opens (creating if needed) the environment in directory `path`. Returns
  /// the existing instance if this process already has it open.
  static Result<std::shared_ptr<LmdbEnv>> Open(const std::string& path, const LmdbOptions& options);
  ~LmdbEnv();
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;

  /// Opens (creating) a named database. Call during setup, before concurrent use.
  Result<MDB_dbi> OpenDatabase(const std::string& name);

  Result<ReadTxn> BeginRead();
  /// Takes the writer lock (waiting for other threads and processes), then
  /// begins the write transaction.
  Result<WriteTxn> BeginWrite();

  /// After `txn` (top-level) failed with map_full(): aborts it, grows the map
  /// (doubling, up to max_map_size) and begins `txn` afresh, still holding
  /// the writer lock, so the caller can redo its writes. The map-full kIo if
  /// the map cannot grow; kIo (retryable) if other transactions of this
  /// process stayed open too long.
  Status GrowMap(WriteTxn& txn);

  /// Flushes the environment to disk (used by the eventual/none levels).
  Status Sync();

  /// Writes a compacted copy of the environment, as of one read snapshot
  /// (LMDB's mdb_env_copyfd2 with MDB_CP_COMPACT; writers go on), to
  /// `directory`/data.mdb, which must not exist, with the databases named in
  /// `emptied` emptied in the copy; then syncs the file and the directory.
  /// The copy's transaction ids start again from 1 (LMDB's compaction). The
  /// copy holds a reader slot and counts as an open transaction for as long
  /// as it runs, so a resize of the map waits for it (see the caveats). A
  /// failed copy leaves a partial file for the caller to remove.
  Status CopyTo(const std::string& directory, const std::vector<std::string>& emptied);

  /// Whether the environment in directory `path` is open in any process:
  /// this one (the registry), or another, which holds a lock on its lock
  /// file (LMDB keeps a shared lock on lock.mdb while an environment is
  /// open). False when there is no lock file.
  static Result<bool> InUse(const std::string& path);

  /// LMDB's id of the last committed transaction, across all processes.
  /// Cheap: reads the newer of the two meta pages in the shared map, no
  /// system call and no lock (two atomic adds on the resize gate). It can run
  /// ahead of what a new read transaction sees while a commit is still
  /// syncing its meta page.
  uint64_t LastTxnId();

  /// The current map size in bytes.
  uint64_t MapSize();

  /// The map size, its use and the data file's size: mdb_env_info and
  /// mdb_env_stat (no transaction) and an fstat of the data file.
  LmdbEnvInfo Info();

  /// kIo with the reason if a write would fail now, found without writing:
  /// the data file was removed or replaced since Open() (writes would go to
  /// a file no one opens again), its file system is read-only or full, or
  /// the map is full and may not grow.
  Status CheckWritable();

  const std::string& path() const { return path_; }
  Durability durability() const { return durability_; }

 private:
  friend class ReadTxn;
  friend class WriteTxn;
  LmdbEnv(MDB_env* env, std::string path, const LmdbOptions& options, int writer_lock_fd)
      : env_(env),
        path_(std::move(path)),
        durability_(options.durability),
        max_readers_(options.max_readers),
        max_dbs_(options.max_dbs),
        max_map_size_(options.max_map_size),
        resize_wait_ms_(options.resize_wait_ms),
        writer_lock_fd_(writer_lock_fd) {}
  /// Checks a second Open() of this environment against the first and grows
  /// the map if it asks for more. Called under the registry mutex.
  Status Reopen(const LmdbOptions& options);
  /// Begins a transaction and counts it as open (see the caveats) in
  /// `*gate_shard`.
  Result<MDB_txn*> Begin(unsigned flags, uint32_t* gate_shard);
  /// Whether read transaction `txn` may hold the root of a commit that was
  /// not yet published when it began (see the .cc): then it begins again.
  bool MayHoldAnUnpublishedCommit(MDB_txn* txn);
  /// The id in the newer meta page (mdb_env_info). The caller counts a
  /// transaction as open (EnterTxn): a resize replaces the map.
  uint64_t NewestMetaTxnId();
  /// Counts a transaction as open, waiting for a resize in progress, and
  /// returns the shard that counts it.
  uint32_t EnterTxn();
  /// Counts a transaction as ended, in the shard EnterTxn returned (possibly
  /// on another thread).
  void LeaveTxn(uint32_t shard);
  /// Open transactions: the sum of the shards. By the resizer only.
  int64_t OpenTxnsLocked() const;
  /// Sets the map size once no transaction of this process is open: to
  /// `map_size` if that is larger (0: adopt the size another process set),
  /// or with `grow_up_to`, to twice the current size but at most that (the
  /// map-full kIo if that is no larger). The caller must hold no transaction.
  Status Resize(uint64_t map_size, uint64_t grow_up_to = 0);
  uint64_t MapSizeLocked();  // inside the gate (EnterTxn) or by the resizer
  Status LockWriter();
  void UnlockWriter();

  MDB_env* env_;
  std::string path_;
  const Durability durability_;
  const unsigned max_readers_;
  const unsigned max_dbs_;
  std::atomic<uint64_t> max_map_size_;
  const int resize_wait_ms_;
  std::mutex writer_mutex_;
  int writer_lock_fd_;
  // The data file as Open() found it (CheckWritable).
  dev_t data_device_ = 0;
  ino_t data_inode_ = 0;
  // Set when a write operation hits MDB_MAP_FULL; reset when a top-level
  // write transaction begins. Only the writer-lock holder touches it.
  bool write_map_full_ = false;

  // The transaction gate that keeps resizes away from open transactions:
  // counts of open transactions in shards of a cache line each (a thread
  // enters in its own shard, so readers on two cores never write one line:
  // a shared counter made every lookup of the table mirror bounce a line),
  // and `resizing_` while a resize waits for their sum to reach zero or
  // runs. Entering is an atomic add to the shard and a load of `resizing_`;
  // the resizer stores `resizing_` and then sums the shards, so (all
  // sequentially consistent) either the entering thread sees the resize and
  // steps back, or the resizer sees it. The mutex and condition variable
  // serve only waits around a resize (and make resizes one at a time).
  struct alignas(64) GateShard {
    std::atomic<int64_t> open{0};
  };
  GateShard gate_shards_[kThreadShards];
  std::atomic<bool> resizing_{false};
  std::mutex gate_mutex_;
  std::condition_variable gate_cv_;
};

/// An LMDB return code as an Error (kIo, or kCorruption for MDB_CORRUPTED).
tl::unexpected<Error> LmdbError(std::string_view what, int rc);

}  // namespace skade::store::lmdb
