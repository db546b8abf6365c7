// PendingWrite: one caller's write while it waits in the committer's queue.
//
// The calling thread fills it in (conformed rows or the files it wrote) and
// waits; the flush that takes it sets `result` and `settled` on the
// leader's thread, then the leader sets `done` under the committer's mutex
// and wakes the caller. Owned by the calling thread's stack frame.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skade/commit/coalescing_committer.h"
#include "skade/spec/data_file.h"
#include "skade/spec/table_identifier.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::commit {

struct PendingWrite {
  enum class Kind { kAppend, kUpsert };

  Kind kind = Kind::kAppend;
  spec::TableIdentifier table;
  std::string table_key;  // store::TableKey(table), to group a flush by table
  WriteOptions options;
  /// Deferred rows, conformed to the schema `schema_id`; null when the write
  /// brought files instead.
  std::shared_ptr<arrow::RecordBatch> rows;
  int32_t schema_id = 0;
  /// Files already written: by the caller (AppendFiles), or for a large
  /// batch by the committer on the calling thread (`owns_files`).
  std::vector<spec::DataFile> data_files;
  std::vector<spec::DataFile> delete_files;
  bool owns_files = false;
  /// Upserts: the key, by name as given and as the table's field ids.
  std::vector<std::string> key_columns;
  std::vector<int32_t> key_field_ids;
  /// What it holds in memory, against the committer's caps.
  int64_t bytes = 0;

  // Set by the flush that takes the write, on the leader's thread.
  Result<CommitReceipt> result = CommitReceipt{};
  bool settled = false;
  // Guarded by the committer's mutex: the caller may return.
  bool done = false;
  std::condition_variable wake;

  bool deferred() const { return rows != nullptr; }
  /// Every file the committer wrote for it (removed if it is not committed).
  std::vector<std::string> OwnedLocations() const {
    std::vector<std::string> locations;
    if (!owns_files) return locations;
    for (const auto& file : data_files) locations.push_back(file.file_path);
    for (const auto& file : delete_files) locations.push_back(file.file_path);
    return locations;
  }
};

}  // namespace skade::commit
