// The request an Iceberg client sends for a snapshot update it staged on the
// table version it loaded: assert-table-uuid, assert-ref-snapshot-id main,
// add-snapshot, set-snapshot-ref main (docs/REST-CHECKLIST.md §2). The
// update (table::FastAppend, …) writes real manifests and a manifest list.
#pragma once

#include <gtest/gtest.h>

#include "skade/catalog/catalog.h"
#include "skade/table/snapshot_update.h"
#include "skade/table/table.h"

namespace skade::testing {

inline catalog::CommitTableRequest StagedRequest(const table::Table& base,
                                                 table::SnapshotUpdate& update) {
  auto snapshot = update.Apply(base.metadata());
  EXPECT_TRUE(snapshot) << snapshot.error().ToString();
  auto written = base.io().WriteFiles(update.TakeFilesToWrite());
  EXPECT_TRUE(written) << written.error().ToString();
  catalog::CommitTableRequest request{base.identifier(), {}, {}};
  request.requirements.push_back(spec::AssertTableUuid{base.metadata().table_uuid});
  request.requirements.push_back(
      spec::AssertRefSnapshotId{spec::kMainBranch, base.metadata().current_snapshot_id});
  request.updates.push_back(spec::AddSnapshot{*snapshot});
  request.updates.push_back(spec::SetSnapshotRef{
      spec::kMainBranch, {(*snapshot)->snapshot_id, spec::SnapshotRefType::kBranch, {}, {}, {}}});
  return request;
}

/// The id of the snapshot a StagedRequest adds.
inline int64_t StagedSnapshotId(const catalog::CommitTableRequest& request) {
  return std::get<spec::AddSnapshot>(request.updates.front().value()).snapshot->snapshot_id;
}

}  // namespace skade::testing
