// DeleteFiles: removes whole data files in one "delete" snapshot — the
// files a PartitionFilter matches (Iceberg Java's DeleteFiles by partition;
// e.g. "drop partition ts_day=2026-11-01").
//
// Removed files become DELETED entries in rewritten manifests (see
// manifest_filter_internal.h); the summary carries "deleted-data-files",
// "deleted-records" and "removed-files-size". A filter that matches nothing
// still commits an empty delete snapshot. The filter is evaluated on every
// version the update is applied to.
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include <memory>
#include <vector>

#include "skade/table/partition_filter.h"
#include "skade/table/snapshot_update.h"

namespace skade::table {

class ManifestFilter;

class DeleteFiles : public SnapshotUpdate {
 public:
  DeleteFiles(Table table, PartitionFilter filter);
  ~DeleteFiles() override;

 protected:
  std::string_view operation() const override { return spec::kOperationDelete; }
  Result<std::vector<spec::ManifestFile>> Manifests(const spec::TableMetadata& base,
                                                    const std::vector<spec::ManifestFile>& current,
                                                    SnapshotSummaryBuilder* summary) override;

 private:
  std::unique_ptr<ManifestFilter> filter_;
};

}  // namespace skade::table
