#include "skade/scan/appends_between.h"

namespace skade::scan {

Result<std::vector<spec::SnapshotPtr>> AppendsBetween(const spec::TableMetadata& metadata,
                                                      int64_t from_exclusive,
                                                      const spec::SnapshotPtr& to) {
  std::vector<spec::SnapshotPtr> appends;
  if (!to) return InvalidArgument("an incremental scan needs an end snapshot");
  if (to->snapshot_id == from_exclusive) return appends;
  // Bounded, so that parent ids forming a cycle cannot loop forever.
  size_t steps = metadata.snapshots.size() + 1;
  for (spec::SnapshotPtr at = to; at && steps-- > 0;) {
    if (at->operation() == spec::kOperationAppend) appends.push_back(at);
    if (at->parent_snapshot_id == from_exclusive) return appends;
    at = at->parent_snapshot_id ? metadata.SnapshotById(*at->parent_snapshot_id) : nullptr;
  }
  return InvalidArgument("start snapshot ", from_exclusive, " is not an ancestor of end snapshot ",
                         to->snapshot_id,
                         " (an incremental scan reads the end snapshot's history back to the "
                         "start, exclusive)");
}

}  // namespace skade::scan
