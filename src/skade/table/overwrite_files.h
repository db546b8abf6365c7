// OverwriteFiles: replaces whole data files in one "overwrite" snapshot —
// the files a PartitionFilter matches are deleted and the added files
// appended atomically (Iceberg Java's OverwriteFiles with a partition
// filter; e.g. "replace partition ts_day=2026-11-01").
//
// Removed files become DELETED entries in rewritten manifests (see
// manifest_filter_internal.h); the summary carries "deleted-data-files",
// "deleted-records", "removed-files-size" besides the added counts. Added
// files are not checked against the filter. Added files follow FastAppend's
// rules.
//
// Concurrent commits: before a rebase, the snapshots committed since the
// version the update was created on are checked against the conflict
// detection filter (the overwrite filter unless set), as the isolation
// level says (default kSerializable, as Iceberg Java): a concurrent file in
// a matched partition fails the commit with kCommitFailed "Found
// conflicting files that can contain records matching …", instead of
// rebasing over rows the caller never saw. Under kSnapshot, concurrent data
// files are rebased over: the filter is evaluated on every version the
// update is applied to, so a rebase also removes matching files that a
// concurrent commit added.
//
// The manifests it keeps unchanged merge as MergeAppend's do
// (manifest_merge_internal.h; Iceberg Java's overwrites and deletes merge
// too).
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include <memory>
#include <vector>

#include "skade/spec/data_file.h"
#include "skade/table/isolation_level.h"
#include "skade/table/partition_filter.h"
#include "skade/table/snapshot_update.h"

namespace skade::table {

class ConflictValidator;
class ManifestFilter;

class OverwriteFiles : public SnapshotUpdate {
 public:
  OverwriteFiles(Table table, PartitionFilter filter);
  ~OverwriteFiles() override;

  OverwriteFiles& AddFile(spec::DataFile file);
  OverwriteFiles& SetIsolationLevel(IsolationLevel isolation);
  /// Which partitions concurrent files must not touch (default: the
  /// overwrite filter).
  OverwriteFiles& ConflictDetectionFilter(PartitionFilter filter);

  Status Validate(const spec::TableMetadata& current) override;
  bool ReadsCurrentManifests() const override { return true; }

 protected:
  bool MergesManifests() const override { return true; }
  std::string_view operation() const override { return spec::kOperationOverwrite; }
  Result<std::vector<spec::ManifestFile>> Manifests(const spec::TableMetadata& base,
                                                    const std::vector<spec::ManifestFile>& current,
                                                    SnapshotSummaryBuilder* summary) override;

 private:
  std::unique_ptr<ManifestFilter> filter_;
  PartitionFilter conflict_filter_;
  IsolationLevel isolation_ = IsolationLevel::kSerializable;
  std::unique_ptr<ConflictValidator> validator_;  // made on the first Validate()
  std::vector<spec::DataFile> files_;
  std::vector<spec::ManifestFile> new_manifests_;
  bool manifests_written_ = false;
};

}  // namespace skade::table
