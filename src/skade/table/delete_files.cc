#include "skade/table/delete_files.h"

#include "skade/table/manifest_filter_internal.h"

namespace skade::table {

DeleteFiles::DeleteFiles(Table table, PartitionFilter filter)
    : SnapshotUpdate(std::move(table)),
      filter_(std::make_unique<ManifestFilter>(std::move(filter))) {}

DeleteFiles::~DeleteFiles() = default;

Result<std::vector<spec::ManifestFile>> DeleteFiles::Manifests(
    const spec::TableMetadata& base, const std::vector<spec::ManifestFile>& current,
    SnapshotSummaryBuilder* summary) {
  return filter_->Filter(
      base, io(), snapshot_id(), current,
      [&](std::string_view bytes) { return WriteNewManifest(base, bytes); }, summary);
}

}  // namespace skade::table
