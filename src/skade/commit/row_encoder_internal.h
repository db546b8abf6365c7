// Encoding a write's rows into a table's files: data files of the default
// partition spec and, for an upsert, the equality delete files on its key
// (under the spec its caller chose).
// Used by the calling thread for a large batch and by the flush for the
// deferred ones, so both write the same kind of files.
//
// Stateless; thread-safe for distinct calls.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/catalog.h"
#include "skade/io/file_io.h"
#include "skade/spec/data_file.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::commit {

struct EncodedRows {
  std::vector<spec::DataFile> data_files;
  std::vector<spec::DataFile> delete_files;  // equality deletes; upserts only
  /// The files written without sync, for the commit to make durable.
  std::vector<catalog::UnsyncedFile> unsynced;
};

/// Where and how durably EncodeRows writes.
struct RowSink {
  std::shared_ptr<io::FileIO> io;
  bool durable = false;
  /// Durable files up to this size are written without sync and returned
  /// as EncodedRows::unsynced (Catalog::UnsyncedFileLimit); 0: none.
  size_t unsynced_limit = 0;
};

/// Writes `batches` (conformed to `metadata`'s current schema), in order, as
/// one data file per partition (more only past write.target-file-size-bytes)
/// named by a fresh data::DataFileNamer, through `sink`. With
/// `key_field_ids` (an upsert), only the last row of each key is written,
/// and the key columns of those rows go into equality delete files with
/// those equality ids, partitioned by `delete_spec` (a spec of `metadata`,
/// equality_delete_spec_internal.h). Every file started is appended to
/// `written`, also on failure, so the caller can remove what it does not
/// commit.
Result<EncodedRows> EncodeRows(const spec::TableMetadata& metadata, const RowSink& sink,
                               const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                               const std::vector<int32_t>& key_field_ids,
                               const spec::PartitionSpecPtr& delete_spec,
                               std::vector<std::string>* written);

/// Deletes `locations` (best effort: a leftover file is only untidy).
void DeleteFiles(io::FileIO& io, const std::vector<std::string>& locations);

}  // namespace skade::commit
