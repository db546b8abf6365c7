// CommitLogRecord: one entry of a CatalogStore's append-only commit log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skade::store {

/// A pointer move as committed: the table, the metadata file it now points
/// at, the snapshots that commit added (CatalogStore::FindSnapshot), and when
/// the store committed it. Commit times never decrease along the log (a
/// clock that steps back repeats the last time), so the log is in time order
/// too; 0 for commits recorded before the store kept times.
struct CommitLogRecord {
  uint64_t table_id = 0;
  std::string metadata_location;
  std::vector<int64_t> added_snapshot_ids;
  int64_t committed_at_ms = 0;
  bool operator==(const CommitLogRecord&) const = default;
};

}  // namespace skade::store
