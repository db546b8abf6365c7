// The snapshots an incremental append scan reads (spec: PlanTableScanRequest
// `start-snapshot-id`, exclusive, and `end-snapshot-id`, inclusive), with
// the rule of Iceberg Java's BaseIncrementalScan/BaseIncrementalAppendScan:
//
//   - The range is walked from the end snapshot back through its parents.
//     The start is valid when it is the parent of some snapshot on that walk
//     (SnapshotUtil.isParentAncestorOf), so it may itself have been expired;
//     anything else, a snapshot of another branch included, is
//     kInvalidArgument. A walk that reaches a snapshot the metadata no
//     longer has before finding the start fails the same way.
//   - start == end is the empty range (s, s]: no snapshots, not an error
//     (Java's API rejects it; an incremental reader polling "since the last
//     snapshot I saw" expects nothing new instead).
//   - Only snapshots whose summary operation is `append` count
//     (appendsBetween); replace, overwrite and delete snapshots in the range
//     are skipped, so files they added and deletes they wrote are not read.
#pragma once

#include <cstdint>
#include <vector>

#include "skade/spec/snapshot.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::scan {

/// The `append` snapshots after `from_exclusive` up to and including `to`,
/// newest first. `to` must be a snapshot of `metadata`.
Result<std::vector<spec::SnapshotPtr>> AppendsBetween(const spec::TableMetadata& metadata,
                                                      int64_t from_exclusive,
                                                      const spec::SnapshotPtr& to);

}  // namespace skade::scan
