// Transaction: several snapshot updates to one table, committed as one
// metadata commit (Iceberg Java's Transaction, for snapshot updates).
//
// Updates are created from the transaction and configured by the caller;
// Commit() stages them in order — each snapshot's parent is the previous
// one, so history keeps one snapshot per update — and commits them with one
// CommitTable, rebasing every update on conflict (see snapshot_update.h).
// CommitTransactions() commits transactions on several tables of one
// catalog atomically: all or nothing, through Catalog::CommitTransaction.
// Require() adds a caller's own requirement to the commit: checked by the
// catalog with it, so it holds for the version the snapshots land on.
//
// Not thread-safe. A transaction is committed at most once; its updates
// live as long as it does.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "skade/spec/table_requirement.h"
#include "skade/table/delete_files.h"
#include "skade/table/fast_append.h"
#include "skade/table/merge_append.h"
#include "skade/table/overwrite_files.h"
#include "skade/table/partition_filter.h"
#include "skade/table/row_delta.h"
#include "skade/table/table.h"
#include "skade/util/result.h"

namespace skade::table {

class Transaction {
 public:
  explicit Transaction(Table table) : table_(std::move(table)) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction(Transaction&&) = default;
  Transaction& operator=(Transaction&&) = default;

  FastAppend& NewFastAppend();
  MergeAppend& NewMergeAppend();
  OverwriteFiles& NewOverwrite(PartitionFilter filter);
  DeleteFiles& NewDelete(PartitionFilter filter);
  RowDelta& NewRowDelta();

  /// Commits only while `requirement` holds (see above); when it no longer
  /// does, Commit() fails with its error (kCommitFailed), without retrying.
  void Require(spec::TableRequirement requirement) {
    requirements_.push_back(std::move(requirement));
  }

  /// Commits every update (none: returns the table unchanged) and returns
  /// the table as committed. Errors as SnapshotUpdate::Commit.
  Result<Table> Commit();

  /// The table version the transaction started on.
  const Table& table() const { return table_; }
  bool empty() const { return updates_.empty(); }

 private:
  friend Result<std::vector<Table>> CommitTransactions(const std::vector<Transaction*>&);

  std::vector<SnapshotUpdate*> Updates() const;

  template <typename Update, typename... Args>
  Update& Add(Args&&... args) {
    auto update = std::make_unique<Update>(table_, std::forward<Args>(args)...);
    Update& ref = *update;
    updates_.push_back(std::move(update));
    return ref;
  }

  Table table_;
  std::vector<std::unique_ptr<SnapshotUpdate>> updates_;
  std::vector<spec::TableRequirement> requirements_;
};

/// Commits `transactions` (distinct tables of the same catalog) in one
/// atomic catalog transaction, rebasing all of them when any conflicts.
/// Returns the tables in order, reloaded after the commit. Empty
/// transactions are left out of the commit and come back unchanged.
Result<std::vector<Table>> CommitTransactions(const std::vector<Transaction*>& transactions);

}  // namespace skade::table
