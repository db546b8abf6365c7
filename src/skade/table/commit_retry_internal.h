// The commit loop behind SnapshotUpdate::Commit, Transaction::Commit and
// CommitTransactions: stage every update on the current version, commit
// with assert-table-uuid + assert-ref-snapshot-id, and on kCommitFailed
// reload, restage and retry (see snapshot_update.h for the policy and the
// clean-up of files). A caller's own requirements go into every attempt's
// request; once one no longer holds on the reloaded table the commit fails
// with it instead of retrying. Not thread-safe per update.
#pragma once

#include <vector>

#include "skade/catalog/catalog.h"
#include "skade/spec/table_requirement.h"
#include "skade/table/snapshot_update.h"
#include "skade/table/table.h"
#include "skade/util/result.h"

namespace skade::table {

/// Updates to commit to one table, in order; each snapshot's parent is the
/// previous one.
struct TableUpdates {
  Table table;
  std::vector<SnapshotUpdate*> updates;
  /// Checked by the catalog with the commit, on every attempt.
  std::vector<spec::TableRequirement> requirements;
};

/// The request that applies `updates` to the main branch of `base`.
Result<catalog::CommitTableRequest> StageUpdates(const Table& base,
                                                 const std::vector<SnapshotUpdate*>& updates);

/// Commits each table's updates — one CommitTable for a single table, one
/// atomic CommitTransaction for several, all through the first table's
/// catalog — retrying as described. Returns the tables as committed (for
/// several tables, as reloaded right after the commit).
Result<std::vector<Table>> CommitWithRetry(std::vector<TableUpdates> tables);

}  // namespace skade::table
