// CommitLogRecord: one entry of a CatalogStore's append-only commit log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skade::store {

/// A pointer move as committed: the table, the metadata file it now points
/// at, and the snapshots that commit added (CatalogStore::FindSnapshot).
struct CommitLogRecord {
  uint64_t table_id = 0;
  std::string metadata_location;
  std::vector<int64_t> added_snapshot_ids;
  bool operator==(const CommitLogRecord&) const = default;
};

}  // namespace skade::store
