// RowDelta: adds data files and delete files (position or equality deletes)
// in one snapshot (Iceberg Java's RowDelta) — how an upsert commits: the new
// rows, and an equality delete file that removes older rows with the same
// keys.
//
// New data files go into one data manifest per partition spec, new delete
// files into one delete manifest per spec, written on the first Apply() and
// reused by every rebase; the parent's manifests follow untouched. The
// operation is Iceberg's: "append" for data files only, "delete" for delete
// files only, "overwrite" for both. Delete files need format version 2 or
// later (kInvalidArgument otherwise). A delete file applies to data files of
// lower sequence numbers only (spec: "Scan Planning"), so rows committed in
// the same snapshot are never deleted by it.
//
// The parent's manifests are merged as the table's commit.manifest.*
// properties say (manifest_merge_internal.h), as Java's RowDelta does.
//
// Concurrent commits are not validated against (snapshot isolation, like
// an append): rows another writer adds with the same key between this
// update's start and its commit are not deleted.
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include <vector>

#include "skade/spec/data_file.h"
#include "skade/table/snapshot_update.h"

namespace skade::table {

class RowDelta : public SnapshotUpdate {
 public:
  explicit RowDelta(Table table) : SnapshotUpdate(std::move(table)) {}

  RowDelta& AddRows(spec::DataFile file);
  RowDelta& AddDeletes(spec::DataFile file);

 protected:
  std::string_view operation() const override;
  bool MergesManifests() const override { return true; }
  Result<std::vector<spec::ManifestFile>> Manifests(const spec::TableMetadata& base,
                                                    const std::vector<spec::ManifestFile>& current,
                                                    SnapshotSummaryBuilder* summary) override;

 private:
  std::vector<spec::DataFile> data_files_;
  std::vector<spec::DataFile> delete_files_;
  // Written once, on the first Apply().
  std::vector<spec::ManifestFile> new_manifests_;
  bool manifests_written_ = false;
};

}  // namespace skade::table
