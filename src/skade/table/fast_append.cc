#include "skade/table/fast_append.h"

#include "skade/table/new_manifests_internal.h"

namespace skade::table {

FastAppend& FastAppend::AppendFile(spec::DataFile file) {
  files_.push_back(std::move(file));
  return *this;
}

Result<std::vector<spec::ManifestFile>> FastAppend::Manifests(
    const spec::TableMetadata& base, const std::vector<spec::ManifestFile>& current,
    SnapshotSummaryBuilder* summary) {
  if (!manifests_written_) {
    SKADE_ASSIGN_OR_RAISE(
        new_manifests_,
        WriteAddedManifests(base, snapshot_id(), files_,
                            [&](std::string_view bytes) { return StageNewManifest(base, bytes); }));
    manifests_written_ = true;
  }
  for (const spec::DataFile& file : files_) summary->AddedFile(file);
  std::vector<spec::ManifestFile> manifests = new_manifests_;
  manifests.insert(manifests.end(), current.begin(), current.end());
  return manifests;
}

}  // namespace skade::table
