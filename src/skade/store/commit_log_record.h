// CommitLogRecord: one entry of a CatalogStore's append-only commit log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skade/spec/table_identifier.h"

namespace skade::store {

/// Who asked for a commit: kept with it in the commit log (the change
/// feed's `actor` and `request-id`). Empty fields are unknown.
struct CommitOrigin {
  /// The authenticated client (REST: the OAuth client id), or a tool's own
  /// name ("skade-cli").
  std::string requester;
  /// The REST request's X-Request-ID.
  std::string request_id;
  bool operator==(const CommitOrigin&) const = default;
};

/// What a commit-log entry did to its table.
enum class CommitKind : uint8_t {
  kUpdate = 0,    // moved an existing table's pointer (a commit)
  kCreate = 1,    // created the table
  kRegister = 2,  // pointed a table at an existing metadata file
};

/// A pointer move as committed: the table, the metadata file it now points
/// at, the snapshots that commit added (CatalogStore::FindSnapshot), and when
/// the store committed it. Commit times never decrease along the log (a
/// clock that steps back repeats the last time), so the log is in time order
/// too; 0 for commits recorded before the store kept times.
///
/// Records written since the change feed also say which table by name (as
/// it was named at the commit), what kind of move it was, each added
/// snapshot's operation (its summary's "operation", parallel to
/// `added_snapshot_ids`) and the requests it answers (several when
/// concurrent requests shared one commit). Older records leave them empty.
struct CommitLogRecord {
  uint64_t table_id = 0;
  std::string metadata_location;
  std::vector<int64_t> added_snapshot_ids;
  int64_t committed_at_ms = 0;
  spec::TableIdentifier identifier;
  CommitKind kind = CommitKind::kUpdate;
  std::vector<std::string> snapshot_operations;
  std::vector<CommitOrigin> origins;
  bool operator==(const CommitLogRecord&) const = default;
};

}  // namespace skade::store
