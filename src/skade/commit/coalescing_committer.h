// CoalescingCommitter: many small writes from many threads of one process,
// committed as few physical commits.
//
// Callers append Arrow record batches (or data files they already wrote)
// and upsert batches by key, to any tables of one EmbeddedCatalog. Each call
// blocks until its write is durably committed and returns where its rows
// landed, or its own error.
//
// Batching is LevelDB's write queue (DBImpl::Write): a write that finds no
// flush in flight becomes the leader; writes that arrive while a flush runs
// wait, and the first of them leads the next flush with all the others (up
// to max_ops and max_bytes). Writers that loop — write, wait, write again —
// come back together after each flush; so for a quarter of a flush's
// duration after it (at most 100 ms), a leader waits while writes are being
// prepared or fewer have arrived than that flush acknowledged (else the
// first back commits alone and the others make the next commit: half the
// writers per commit). It stops waiting when a writer blocks on the full
// buffer. Otherwise a leader commits at once: no added latency when idle
// (no flush within that window).
// A flush is ONE physical commit across all the tables it
// touches: each table gets one new metadata file, and every pointer swap
// lands in one store transaction and one sync (table::CommitTransactions →
// Catalog::CommitTransaction).
//
// Small data is deferred: a batch smaller than the table's
// `skade.commit.deferred-max-bytes` (commit_properties.h; default 4 MiB) is
// kept in memory, conformed to the table's schema, and at the flush all the
// table's deferred batches of one snapshot are encoded together — one
// Parquet data file per partition, with full metrics. A larger batch is
// encoded and written by the calling thread before it joins the queue, so
// a flush never waits on a big encode.
//
// Upserts (format v2+): Upsert(table, batch, key columns) adds the rows and
// an equality delete file on the key columns, which removes every older row
// with one of the batch's keys. Within a flush the upserts to one table
// merge: later keys win in arrival order, and one data file plus one delete
// file per partition is written. The key columns must be required primitive
// columns and include every partition source column (an equality delete is
// scoped to its partition, so a key must not move between partitions).
// While rows written under an earlier partition spec are live, the delete
// files go under a spec without fields instead, which reaches every
// partition of every spec; a table that has none gets one (default spec
// unchanged) in a metadata commit of its own, once, before the flush.
//
// History (`skade.commit.history-mode`): `merged` (the default) makes one
// snapshot per flush per table — or one per run of the same kind of write,
// so an upsert after an append in the same flush still deletes the rows it
// replaces; the summary's `skade.logical-writes` says how many writes a
// snapshot holds. `per-transaction` makes one snapshot per write, chained in
// arrival order, each with its own data files, all in the same single
// metadata commit: history is kept, the sync is still shared.
//
// Failure contract:
//   - A call returns success only after its commit is durable at the
//     catalog's durability level (store::Durability). Nothing is
//     acknowledged early.
//   - A bad write fails alone and holds back no other: an unknown table, a
//     batch that does not conform to the schema, a bad key, a requirement
//     that does not hold when its commit lands, a table whose files could
//     not be written. Its error is the catalog's (kNoSuchTable, kInvalidArgument,
//     kCommitFailed, kIo, …).
//   - A flush whose commit fails fails every write in it with the same
//     error and makes nothing visible; the files it wrote are deleted
//     (except when the outcome is unknown, kCommitStateUnknown, where
//     nothing is deleted and the writes may or may not be committed).
//   - A crash loses only writes that were never acknowledged.
//   - Data files given to AppendFiles stay the caller's: never deleted.
//
// Back-pressure: at most max_buffered_bytes of writes wait in the queue; a
// call that would exceed it blocks until flushes make room (a single write
// larger than the bound waits for an empty queue).
//
// Thread-safe: call from any number of threads. Destroying the committer
// while calls are in flight is undefined; the catalog must outlive it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/spec/data_file.h"
#include "skade/spec/table_identifier.h"
#include "skade/spec/table_requirement.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::commit {

struct CoalescingCommitterOptions {
  /// How long a leader waits for more writes before it flushes, unless
  /// max_ops or max_bytes are reached first. 0 (the default): flush at once,
  /// or after the short wait for the last flush's writers (above). Capped at
  /// one second; a delay replaces that wait.
  std::chrono::microseconds max_delay{0};
  /// Most writes in one flush.
  size_t max_ops = 10000;
  /// Most bytes of writes (deferred rows, by their Arrow buffers) in one
  /// flush; the first write of a flush is always taken.
  int64_t max_bytes = 256ll << 20;
  /// Most bytes of writes waiting in the queue before callers block.
  int64_t max_buffered_bytes = 1ll << 30;
};

/// Where one write landed.
struct CommitReceipt {
  /// The snapshot that holds the write's rows, and its sequence number.
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  /// The metadata file the flush committed.
  std::string metadata_location;
  /// How many writes that snapshot holds (1 in per-transaction mode).
  int64_t writes_in_snapshot = 0;
  /// How many writes the physical commit held, over all tables.
  int64_t writes_in_commit = 0;
};

/// Totals since the committer was made.
struct CoalescingCommitterStats {
  int64_t logical_writes = 0;    // acknowledged writes
  int64_t failed_writes = 0;     // writes that returned an error
  int64_t physical_commits = 0;  // flushes that committed
  int64_t data_files = 0;        // data and delete files committed
  int64_t queued_writes = 0;     // now in the queue, the flush in flight included
};

/// Optional parts of a write.
struct WriteOptions {
  /// Checked against the table's metadata at the flush, before any write of
  /// that flush is applied to it, and again by the catalog with the commit
  /// (the table may change between); a failure fails this write alone
  /// (kCommitFailed, as a REST commit).
  std::vector<spec::TableRequirement> requirements;
};

class CoalescingCommitter {
 public:
  static Result<std::unique_ptr<CoalescingCommitter>> Make(
      std::shared_ptr<catalog::EmbeddedCatalog> catalog, CoalescingCommitterOptions options = {});
  ~CoalescingCommitter();
  CoalescingCommitter(const CoalescingCommitter&) = delete;
  CoalescingCommitter& operator=(const CoalescingCommitter&) = delete;

  /// Appends `batch`'s rows to `table` (matched to its schema by column
  /// name, as data/conform_batch.h). An empty batch commits nothing and
  /// returns the table's current snapshot.
  Result<CommitReceipt> Append(const spec::TableIdentifier& table,
                               const std::shared_ptr<arrow::RecordBatch>& batch,
                               const WriteOptions& options = {});

  /// Appends data files already written (each with its partition tuple and
  /// the spec id it was written for, as table::FastAppend takes them).
  Result<CommitReceipt> AppendFiles(const spec::TableIdentifier& table,
                                    std::vector<spec::DataFile> files,
                                    const WriteOptions& options = {});

  /// Writes `batch`'s rows and deletes every older row of `table` that has
  /// one of their keys (`key_columns`, by name). Within the batch the last
  /// row of a key wins. kInvalidArgument for a format v1 table or bad key
  /// columns (see above).
  Result<CommitReceipt> Upsert(const spec::TableIdentifier& table,
                               const std::shared_ptr<arrow::RecordBatch>& batch,
                               const std::vector<std::string>& key_columns,
                               const WriteOptions& options = {});

  CoalescingCommitterStats stats() const;

 private:
  class Impl;
  explicit CoalescingCommitter(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::commit
