// TableFlush: one table's part of a flush — the writes of one flush to one
// table, checked against its current version and staged as snapshot
// updates on one table::Transaction.
//
// Stage() fails the writes that cannot go in (a requirement that does not
// hold, rows that no longer conform, a key that no longer resolves, files
// that do not fit the table; the files the committer wrote for them go) and
// groups the rest into runs, each one snapshot: in merged mode a run is a
// sequence of writes of the same kind (appends, or upserts on the same key
// without pre-written files), in per-transaction mode every write is its own
// run. Deferred rows of a run are encoded together (row_encoder_internal.h).
// Every upsert of the flush writes its equality deletes under the spec
// chosen on the table version the flush starts on
// (equality_delete_spec_internal.h): the rows that version holds are the
// ones an upsert replaces (rows committed concurrently are not, as
// table/row_delta.h says), so a rebase keeps the choice. When that needs a
// spec without fields and the table has none, Stage() commits one first and
// starts on that version; an upsert whose delete files were written before,
// under another partitioned spec, is refused (the spec changed while it
// was queued).
// If writing a run's files fails, every write of the table fails with that
// error and nothing of the table is staged.
//
// Each staged write's requirements go into the commit too, so they hold for
// the version it lands on. When one stopped holding before it landed, the
// leader Abandon()s the flush and stages the writes again on the new
// version, where that write is refused alone.
//
// After the flush's commit, Committed() or Failed() sets every staged
// write's result. Not thread-safe: the flush's leader drives it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/commit/commit_properties.h"
#include "skade/commit/pending_write_internal.h"
#include "skade/table/transaction.h"

namespace skade::commit {

class TableFlush {
 public:
  /// `writes` are to `table` (its current version), in arrival order.
  TableFlush(table::Table table, std::vector<PendingWrite*> writes);

  /// See above. Returns false when nothing of the table is to be committed
  /// (every write already has its result).
  bool Stage();

  table::Transaction& transaction() { return transaction_; }
  /// Writes staged for the commit.
  size_t staged_writes() const;
  /// Data and delete files the flush wrote for the table.
  size_t files_written() const { return written_.size(); }

  /// The commit succeeded: `committed` is the table after it.
  void Committed(const table::Table& committed, int64_t writes_in_commit);
  /// The commit failed with `error`: every staged write gets it; the files
  /// the committer wrote are deleted unless the outcome is unknown.
  void Failed(const Error& error);

  /// Whether a staged write carries requirements of its own.
  bool carries_requirements() const;
  /// Whether one of them does not hold on `now`.
  bool ARequirementFailsOn(const spec::TableMetadata& now) const;
  /// The commit failed and will be staged again: deletes the files the
  /// flush wrote and leaves the staged writes without a result.
  void Abandon();

 private:
  struct Run {
    PendingWrite::Kind kind;
    std::vector<PendingWrite*> writes;
    table::SnapshotUpdate* update = nullptr;
  };

  // Sets `write`'s result to `error`.
  static void Settle(PendingWrite* write, Error error);
  // Fails `write` alone, before its commit: the files the committer wrote
  // for it are deleted.
  void Refuse(PendingWrite* write, Error error);
  // Answers `write`, which has nothing to commit, with the table as it is.
  void SettleUnchanged(PendingWrite* write);
  // Sets delete_spec_ when the flush holds upserts, adding a spec to the
  // table first if they need one; false when that failed (every write then
  // has the error).
  bool ChooseDeleteSpec();
  // Checks one write against the table; false if it failed.
  bool Admit(PendingWrite* write);
  bool Joins(const Run& run, const PendingWrite& write, HistoryMode mode) const;
  Status StageRun(Run& run);

  table::Table table_;
  std::vector<PendingWrite*> writes_;
  table::Transaction transaction_;
  std::vector<Run> runs_;
  spec::PartitionSpecPtr delete_spec_;  // of the upserts' equality deletes
  std::vector<std::string> written_;    // files this flush wrote
};

}  // namespace skade::commit
