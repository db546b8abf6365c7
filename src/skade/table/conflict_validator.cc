#include "skade/avro/manifest_list_reader.h"
#include "skade/table/conflict_validator_internal.h"
#include "skade/table/table_manifest_internal.h"

namespace skade::table {

Status ConflictValidator::Validate(const spec::TableMetadata& current, io::FileIO& io) {
  spec::SnapshotPtr snapshot = current.SnapshotForRef(spec::kMainBranch);
  std::vector<spec::SnapshotPtr> newer;  // newest first
  while (snapshot && snapshot->snapshot_id != starting_snapshot_id_) {
    // Parent ids are any writer's: a cycle must end the walk, not loop.
    if (newer.size() > current.snapshots.size()) {
      return CommitFailed("Cannot validate against concurrent commits: the parents of main's ",
                          "snapshots form a cycle");
    }
    newer.push_back(snapshot);
    if (!snapshot->parent_snapshot_id) {
      snapshot = nullptr;
      break;
    }
    spec::SnapshotPtr parent = current.SnapshotById(*snapshot->parent_snapshot_id);
    if (!parent) {
      return CommitFailed("Cannot validate against concurrent commits: snapshot ",
                          *snapshot->parent_snapshot_id, " (parent of ", snapshot->snapshot_id,
                          ") is no longer in the table's history");
    }
    snapshot = std::move(parent);
  }
  if (!snapshot && starting_snapshot_id_) {
    return CommitFailed("Cannot validate against concurrent commits: starting snapshot ",
                        *starting_snapshot_id_, " is no longer an ancestor of main");
  }
  // Oldest first, so the error names the first conflict that landed.
  for (auto it = newer.rbegin(); it != newer.rend(); ++it) {
    if (validated_.count((*it)->snapshot_id) > 0) continue;
    SKADE_RETURN_NOT_OK(ValidateSnapshot(current, io, **it));
    validated_.insert((*it)->snapshot_id);
  }
  return OkStatus();
}

Status ConflictValidator::ValidateSnapshot(const spec::TableMetadata& current, io::FileIO& io,
                                           const spec::Snapshot& snapshot) {
  if (snapshot.operation() == spec::kOperationReplace) return OkStatus();
  if (snapshot.manifest_list.empty()) {
    return CommitFailed("Cannot validate against concurrent snapshot ", snapshot.snapshot_id,
                        ": it lists its manifests inline");
  }
  SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(snapshot.manifest_list));
  SKADE_ASSIGN_OR_RAISE(avro::ManifestList list, avro::ReadManifestList(bytes));
  for (const spec::ManifestFile& manifest : list.manifests) {
    if (manifest.added_snapshot_id != snapshot.snapshot_id) continue;
    const bool data = manifest.content == spec::ManifestContent::kData;
    if (data && isolation_ != IsolationLevel::kSerializable) continue;
    SKADE_ASSIGN_OR_RAISE(TableManifest read, ReadTableManifest(current, io, manifest));
    for (const spec::ManifestEntry& entry : read.entries) {
      if (entry.status != spec::ManifestEntryStatus::kAdded) continue;
      if (entry.snapshot_id.value_or(snapshot.snapshot_id) != snapshot.snapshot_id) continue;
      if (!filter_.Matches(*read.spec, entry.data_file)) continue;
      return CommitFailed("Found conflicting ", data ? "data" : "delete",
                          " files that can contain records matching ", filter_.description(), ": ",
                          entry.data_file.file_path, " added by concurrent snapshot ",
                          snapshot.snapshot_id, " (", snapshot.operation(), ")");
    }
  }
  return OkStatus();
}

}  // namespace skade::table
