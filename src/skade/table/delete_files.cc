#include "skade/table/delete_files.h"

#include "skade/table/conflict_validator_internal.h"
#include "skade/table/manifest_filter_internal.h"

namespace skade::table {

DeleteFiles::DeleteFiles(Table table, PartitionFilter filter)
    : SnapshotUpdate(std::move(table)),
      filter_(std::make_unique<ManifestFilter>(filter)),
      conflict_filter_(std::move(filter)) {}

DeleteFiles::~DeleteFiles() = default;

DeleteFiles& DeleteFiles::SetIsolationLevel(IsolationLevel isolation) {
  isolation_ = isolation;
  validator_.reset();
  return *this;
}

Status DeleteFiles::Validate(const spec::TableMetadata& current) {
  if (!validator_) {
    validator_ =
        std::make_unique<ConflictValidator>(StartingSnapshotId(), conflict_filter_, isolation_);
  }
  return validator_->Validate(current, io());
}

Result<std::vector<spec::ManifestFile>> DeleteFiles::Manifests(
    const spec::TableMetadata& base, const std::vector<spec::ManifestFile>& current,
    SnapshotSummaryBuilder* summary) {
  return filter_->Filter(
      base, io(), snapshot_id(), current,
      [&](std::string_view bytes) { return StageNewManifest(base, bytes); }, summary);
}

}  // namespace skade::table
