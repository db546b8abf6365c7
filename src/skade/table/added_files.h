// Checking files a snapshot is to add before anything is staged, so that a
// caller who batches many writes into one commit can fail the one whose
// files do not fit the table instead of the whole commit.
#pragma once

#include <vector>

#include "skade/spec/data_file.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::table {

/// Whether a snapshot may add `data_files` and `delete_files` to the table
/// `metadata` describes: each file of the right content, of a partition spec
/// the table has, with a partition tuple that fits it, and delete files only
/// at format version 2 or later. Checked by writing their manifests in
/// memory, as committing them does, and dropping the bytes: the same
/// kInvalidArgument the commit would fail with.
Status CheckAddedFiles(const spec::TableMetadata& metadata,
                       const std::vector<spec::DataFile>& data_files,
                       const std::vector<spec::DataFile>& delete_files);

}  // namespace skade::table
