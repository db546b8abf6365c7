// Fast-append-shaped commits for catalog tests: the requirements and updates
// an Iceberg client sends to append a snapshot (docs/REST-CHECKLIST.md §2 "What
// clients actually send"), without data files — the catalog never reads
// manifest lists, so the commit path is exercised exactly.
#pragma once

#include <cstdint>
#include <string>

#include "skade/catalog/catalog.h"
#include "skade/util/clock.h"
#include "skade/util/random.h"
#include "skade/util/strings.h"

namespace skade::testing {

/// The request that appends one snapshot on top of `current`'s main branch.
inline catalog::CommitTableRequest FastAppendRequest(const spec::TableIdentifier& identifier,
                                                     const spec::TableMetadata& current,
                                                     int64_t snapshot_id) {
  auto snapshot = std::make_shared<spec::Snapshot>();
  snapshot->snapshot_id = snapshot_id;
  snapshot->parent_snapshot_id = current.current_snapshot_id;
  snapshot->sequence_number = current.format_version >= 2 ? current.last_sequence_number + 1 : 0;
  snapshot->timestamp_ms = NowMillis();
  snapshot->manifest_list =
      StrCat(current.location, "/metadata/snap-", snapshot_id, "-1-manifest-list.avro");
  snapshot->summary = {{"operation", "append"}, {"added-data-files", "1"}, {"added-records", "1"}};
  snapshot->schema_id = current.current_schema_id;
  if (current.format_version >= 3) {
    snapshot->first_row_id = current.next_row_id;
    snapshot->added_rows = 1;
  }
  spec::SnapshotRef main{snapshot_id, spec::SnapshotRefType::kBranch, {}, {}, {}};
  catalog::CommitTableRequest request{identifier, {}, {}};
  request.requirements.push_back(spec::AssertTableUuid{current.table_uuid});
  request.requirements.push_back(spec::AssertRefSnapshotId{"main", current.current_snapshot_id});
  request.updates.push_back(spec::AddSnapshot{snapshot});
  request.updates.push_back(spec::SetSnapshotRef{"main", main});
  return request;
}

/// Appends one snapshot, reloading and retrying while a concurrent commit
/// wins (kCommitFailed), as a client does. Returns the snapshot id.
inline Result<int64_t> FastAppend(catalog::Catalog& catalog,
                                  const spec::TableIdentifier& identifier,
                                  int* conflicts = nullptr) {
  int64_t snapshot_id = NewSnapshotId();
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(auto current, catalog.LoadTable(identifier));
    auto committed =
        catalog.CommitTable(FastAppendRequest(identifier, *current.metadata, snapshot_id));
    if (committed) return snapshot_id;
    if (committed.error().kind != ErrorKind::kCommitFailed) {
      return tl::unexpected(committed.error());
    }
    if (conflicts != nullptr) ++*conflicts;
  }
}

}  // namespace skade::testing
