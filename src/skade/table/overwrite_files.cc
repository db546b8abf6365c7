#include "skade/table/overwrite_files.h"

#include "skade/table/conflict_validator_internal.h"
#include "skade/table/manifest_filter_internal.h"

namespace skade::table {

OverwriteFiles::OverwriteFiles(Table table, PartitionFilter filter)
    : SnapshotUpdate(std::move(table)),
      filter_(std::make_unique<ManifestFilter>(filter)),
      conflict_filter_(std::move(filter)) {}

OverwriteFiles::~OverwriteFiles() = default;

OverwriteFiles& OverwriteFiles::AddFile(spec::DataFile file) {
  files_.push_back(std::move(file));
  return *this;
}

OverwriteFiles& OverwriteFiles::SetIsolationLevel(IsolationLevel isolation) {
  isolation_ = isolation;
  validator_.reset();
  return *this;
}

OverwriteFiles& OverwriteFiles::ConflictDetectionFilter(PartitionFilter filter) {
  conflict_filter_ = std::move(filter);
  validator_.reset();
  return *this;
}

Status OverwriteFiles::Validate(const spec::TableMetadata& current) {
  if (!validator_) {
    validator_ =
        std::make_unique<ConflictValidator>(StartingSnapshotId(), conflict_filter_, isolation_);
  }
  return validator_->Validate(current, io());
}

Result<std::vector<spec::ManifestFile>> OverwriteFiles::Manifests(
    const spec::TableMetadata& base, const std::vector<spec::ManifestFile>& current,
    SnapshotSummaryBuilder* summary) {
  StoreManifest store = [&](std::string_view bytes) { return StageNewManifest(base, bytes); };
  if (!manifests_written_) {
    SKADE_ASSIGN_OR_RAISE(new_manifests_, WriteAddedManifests(base, snapshot_id(), files_, store));
    manifests_written_ = true;
  }
  for (const spec::DataFile& file : files_) summary->AddedFile(file);
  SKADE_ASSIGN_OR_RAISE(auto kept,
                        filter_->Filter(base, io(), snapshot_id(), current, store, summary));
  std::vector<spec::ManifestFile> manifests = new_manifests_;
  manifests.insert(manifests.end(), kept.begin(), kept.end());
  return manifests;
}

}  // namespace skade::table
