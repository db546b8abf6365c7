#include "skade/table/transaction.h"

#include "skade/table/commit_retry_internal.h"

namespace skade::table {

FastAppend& Transaction::NewFastAppend() { return Add<FastAppend>(); }

MergeAppend& Transaction::NewMergeAppend() { return Add<MergeAppend>(); }

OverwriteFiles& Transaction::NewOverwrite(PartitionFilter filter) {
  return Add<OverwriteFiles>(std::move(filter));
}

DeleteFiles& Transaction::NewDelete(PartitionFilter filter) {
  return Add<DeleteFiles>(std::move(filter));
}

RowDelta& Transaction::NewRowDelta() { return Add<RowDelta>(); }

std::vector<SnapshotUpdate*> Transaction::Updates() const {
  std::vector<SnapshotUpdate*> updates;
  for (const auto& update : updates_) updates.push_back(update.get());
  return updates;
}

Result<Table> Transaction::Commit() {
  if (updates_.empty()) return table_;
  SKADE_ASSIGN_OR_RAISE(std::vector<Table> committed,
                        CommitWithRetry({{table_, Updates(), requirements_}}));
  return std::move(committed.front());
}

Result<std::vector<Table>> CommitTransactions(const std::vector<Transaction*>& transactions) {
  std::vector<TableUpdates> tables;
  for (Transaction* transaction : transactions) {
    if (!transaction->empty())
      tables.push_back({transaction->table(), transaction->Updates(), transaction->requirements_});
  }
  SKADE_ASSIGN_OR_RAISE(std::vector<Table> committed, CommitWithRetry(std::move(tables)));
  std::vector<Table> result;
  size_t next = 0;
  for (Transaction* transaction : transactions) {
    result.push_back(transaction->empty() ? transaction->table() : std::move(committed[next++]));
  }
  return result;
}

}  // namespace skade::table
