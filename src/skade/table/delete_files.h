// DeleteFiles: removes whole data files in one "delete" snapshot — the
// files a PartitionFilter matches (Iceberg Java's DeleteFiles by partition;
// e.g. "drop partition ts_day=2026-11-01").
//
// Removed files become DELETED entries in rewritten manifests (see
// manifest_filter_internal.h); the summary carries "deleted-data-files",
// "deleted-records" and "removed-files-size". A filter that matches nothing
// still commits an empty delete snapshot. The filter is evaluated on every
// version the update is applied to, so a rebase also removes matching files
// a concurrent commit added — the outcome of running the delete after it.
//
// Concurrent commits are checked as the isolation level says (see
// isolation_level.h). The default is kSnapshot: a delete by partition
// decides nothing from rows it read, so only concurrent delete files in the
// matched partitions conflict; kSerializable also fails on concurrent data
// files there (for a delete whose filter came from reading the table).
//
// The manifests it keeps unchanged merge as MergeAppend's do
// (manifest_merge_internal.h; Iceberg Java's overwrites and deletes merge
// too).
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include <memory>
#include <vector>

#include "skade/table/isolation_level.h"
#include "skade/table/partition_filter.h"
#include "skade/table/snapshot_update.h"

namespace skade::table {

class ConflictValidator;
class ManifestFilter;

class DeleteFiles : public SnapshotUpdate {
 public:
  DeleteFiles(Table table, PartitionFilter filter);
  ~DeleteFiles() override;

  DeleteFiles& SetIsolationLevel(IsolationLevel isolation);

  Status Validate(const spec::TableMetadata& current) override;
  bool ReadsCurrentManifests() const override { return true; }

 protected:
  bool MergesManifests() const override { return true; }
  std::string_view operation() const override { return spec::kOperationDelete; }
  Result<std::vector<spec::ManifestFile>> Manifests(const spec::TableMetadata& base,
                                                    const std::vector<spec::ManifestFile>& current,
                                                    SnapshotSummaryBuilder* summary) override;

 private:
  std::unique_ptr<ManifestFilter> filter_;
  PartitionFilter conflict_filter_;
  IsolationLevel isolation_ = IsolationLevel::kSnapshot;
  std::unique_ptr<ConflictValidator> validator_;  // made on the first Validate()
};

}  // namespace skade::table
