// SnapshotSummaryBuilder: a snapshot's summary as Iceberg Java computes it
// (SnapshotSummary.Builder and SnapshotProducer.summary()).
//
// Counts the files a snapshot adds and removes ("added-data-files",
// "deleted-records", "added-files-size", "removed-position-deletes", …, each
// written only when non-zero), the partitions it changes
// ("changed-partition-count"), and carries the parent's running totals
// forward ("total-records", "total-files-size", "total-data-files",
// "total-delete-files", "total-position-deletes", "total-equality-deletes"):
// total = parent total + added − removed, starting from 0 when there is no
// parent, and left out when the parent's summary lacks it.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "skade/spec/data_file.h"
#include "skade/spec/snapshot.h"

namespace skade::table {

class SnapshotSummaryBuilder {
 public:
  void AddedFile(const spec::DataFile& file);
  void RemovedFile(const spec::DataFile& file);
  /// An extra property (e.g. "engine-name"); the computed ones win.
  void Set(std::string key, std::string value) { properties_[std::move(key)] = std::move(value); }

  /// The summary of a snapshot doing `operation` on top of `parent` (null
  /// for the first snapshot).
  std::map<std::string, std::string> Build(std::string_view operation,
                                           const spec::Snapshot* parent) const;

 private:
  struct Counts {
    int64_t data_files = 0;
    int64_t records = 0;
    int64_t file_size = 0;
    int64_t delete_files = 0;
    int64_t position_delete_files = 0;
    int64_t equality_delete_files = 0;
    int64_t position_deletes = 0;
    int64_t equality_deletes = 0;

    void Count(const spec::DataFile& file);
  };

  Counts added_;
  Counts removed_;
  std::set<std::string> changed_partitions_;
  std::map<std::string, std::string> properties_;
};

}  // namespace skade::table
