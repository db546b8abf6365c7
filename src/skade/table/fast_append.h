// FastAppend: adds data files in a new "append" snapshot without touching
// the existing manifests (Iceberg Java's FastAppend).
//
// The new files go into one new manifest per partition spec, written on
// the first Apply() and reused by every rebase; the parent's manifests are
// listed after them, untouched. Each file must be a data file whose
// `spec_id` names one of the table's specs and whose partition tuple
// matches that spec (kInvalidArgument at Apply()/Commit() otherwise).
// Committing with no files makes an empty append snapshot.
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include <vector>

#include "skade/spec/data_file.h"
#include "skade/table/snapshot_update.h"

namespace skade::table {

class FastAppend : public SnapshotUpdate {
 public:
  explicit FastAppend(Table table) : SnapshotUpdate(std::move(table)) {}

  FastAppend& AppendFile(spec::DataFile file);

 protected:
  std::string_view operation() const override { return spec::kOperationAppend; }
  Result<std::vector<spec::ManifestFile>> Manifests(const spec::TableMetadata& base,
                                                    const std::vector<spec::ManifestFile>& current,
                                                    SnapshotSummaryBuilder* summary) override;

 private:
  std::vector<spec::DataFile> files_;
  // Written once, on the first Apply().
  std::vector<spec::ManifestFile> new_manifests_;
  bool manifests_written_ = false;
};

}  // namespace skade::table
