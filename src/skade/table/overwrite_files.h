// OverwriteFiles: replaces whole data files in one "overwrite" snapshot —
// the files a PartitionFilter matches are deleted and the added files
// appended atomically (Iceberg Java's OverwriteFiles with a partition
// filter; e.g. "replace partition ts_day=2026-11-01").
//
// Removed files become DELETED entries in rewritten manifests (see
// manifest_filter_internal.h); the summary carries "deleted-data-files",
// "deleted-records", "removed-files-size" besides the added counts. The
// filter is evaluated on every version the update is applied to, so a
// rebase also removes matching files that a concurrent commit added. Added
// files are not checked against the filter. Added files follow FastAppend's
// rules.
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include <memory>
#include <vector>

#include "skade/spec/data_file.h"
#include "skade/table/partition_filter.h"
#include "skade/table/snapshot_update.h"

namespace skade::table {

class ManifestFilter;

class OverwriteFiles : public SnapshotUpdate {
 public:
  OverwriteFiles(Table table, PartitionFilter filter);
  ~OverwriteFiles() override;

  OverwriteFiles& AddFile(spec::DataFile file);

 protected:
  std::string_view operation() const override { return spec::kOperationOverwrite; }
  Result<std::vector<spec::ManifestFile>> Manifests(const spec::TableMetadata& base,
                                                    const std::vector<spec::ManifestFile>& current,
                                                    SnapshotSummaryBuilder* summary) override;

 private:
  std::unique_ptr<ManifestFilter> filter_;
  std::vector<spec::DataFile> files_;
  std::vector<spec::ManifestFile> new_manifests_;
  bool manifests_written_ = false;
};

}  // namespace skade::table
