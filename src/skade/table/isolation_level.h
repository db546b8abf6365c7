// IsolationLevel: what an overwrite or delete checks against the snapshots
// committed between the version it was created on and the one it commits
// on (Iceberg's "isolation level", as Iceberg Java's
// `write.*.isolation-level` and MergingSnapshotProducer's validations).
//
//   kSerializable  fail when a concurrent commit added data files or delete
//                  files the operation's conflict filter matches: the
//                  operation decided what to replace without seeing them,
//                  so rebasing would silently drop (or keep) their rows.
//   kSnapshot      fail only on concurrent delete files the filter
//                  matches; concurrent data files are rebased over (an
//                  overwrite by filter then also removes them).
//
// Matching is by partition (PartitionFilter), so it is conservative: a file
// in a matched partition conflicts even if none of its rows would.
#pragma once

namespace skade::table {

enum class IsolationLevel { kSerializable, kSnapshot };

}  // namespace skade::table
