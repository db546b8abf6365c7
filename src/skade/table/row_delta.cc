#include "skade/table/row_delta.h"

#include "skade/table/new_manifests_internal.h"

namespace skade::table {

RowDelta& RowDelta::AddRows(spec::DataFile file) {
  data_files_.push_back(std::move(file));
  return *this;
}

RowDelta& RowDelta::AddDeletes(spec::DataFile file) {
  delete_files_.push_back(std::move(file));
  return *this;
}

std::string_view RowDelta::operation() const {
  if (delete_files_.empty()) return spec::kOperationAppend;
  if (data_files_.empty()) return spec::kOperationDelete;
  return spec::kOperationOverwrite;
}

Result<std::vector<spec::ManifestFile>> RowDelta::Manifests(
    const spec::TableMetadata& base, const std::vector<spec::ManifestFile>& current,
    SnapshotSummaryBuilder* summary) {
  if (!manifests_written_) {
    StoreManifest store = [&](std::string_view bytes) { return StageNewManifest(base, bytes); };
    SKADE_ASSIGN_OR_RAISE(new_manifests_,
                          WriteAddedManifests(base, snapshot_id(), data_files_, store));
    if (!delete_files_.empty()) {
      SKADE_ASSIGN_OR_RAISE(auto deletes,
                            WriteAddedDeleteManifests(base, snapshot_id(), delete_files_, store));
      new_manifests_.insert(new_manifests_.end(), deletes.begin(), deletes.end());
    }
    manifests_written_ = true;
  }
  for (const spec::DataFile& file : data_files_) summary->AddedFile(file);
  for (const spec::DataFile& file : delete_files_) summary->AddedFile(file);
  std::vector<spec::ManifestFile> manifests = new_manifests_;
  manifests.insert(manifests.end(), current.begin(), current.end());
  return manifests;
}

}  // namespace skade::table
