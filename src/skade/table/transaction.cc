#include "skade/table/transaction.h"

#include "skade/table/commit_retry_internal.h"

namespace skade::table {

FastAppend& Transaction::NewFastAppend() {
  auto update = std::make_unique<FastAppend>(table_);
  FastAppend& ref = *update;
  updates_.push_back(std::move(update));
  return ref;
}

OverwriteFiles& Transaction::NewOverwrite(PartitionFilter filter) {
  auto update = std::make_unique<OverwriteFiles>(table_, std::move(filter));
  OverwriteFiles& ref = *update;
  updates_.push_back(std::move(update));
  return ref;
}

DeleteFiles& Transaction::NewDelete(PartitionFilter filter) {
  auto update = std::make_unique<DeleteFiles>(table_, std::move(filter));
  DeleteFiles& ref = *update;
  updates_.push_back(std::move(update));
  return ref;
}

RowDelta& Transaction::NewRowDelta() {
  auto update = std::make_unique<RowDelta>(table_);
  RowDelta& ref = *update;
  updates_.push_back(std::move(update));
  return ref;
}

std::vector<SnapshotUpdate*> Transaction::Updates() const {
  std::vector<SnapshotUpdate*> updates;
  for (const auto& update : updates_) updates.push_back(update.get());
  return updates;
}

Result<Table> Transaction::Commit() {
  if (updates_.empty()) return table_;
  SKADE_ASSIGN_OR_RAISE(std::vector<Table> committed, CommitWithRetry({{table_, Updates()}}));
  return std::move(committed.front());
}

Result<std::vector<Table>> CommitTransactions(const std::vector<Transaction*>& transactions) {
  std::vector<TableUpdates> tables;
  for (Transaction* transaction : transactions) {
    if (!transaction->empty()) tables.push_back({transaction->table(), transaction->Updates()});
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
