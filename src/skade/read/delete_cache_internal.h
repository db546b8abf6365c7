// DeleteCache: the row-level deletes of a scan (spec: "Row-level Deletes"),
// each delete file read once however many tasks it applies to.
//
// Position deletes: Parquet files of (file_path, pos), and v3 deletion
// vectors — a Puffin "deletion-vector-v1" blob at content_offset /
// content_size_in_bytes holding a length, a magic, a portable 64-bit roaring
// bitmap of positions and a CRC-32 — give the sorted deleted positions of
// one data file. Equality deletes give, per delete file, the set of rows
// (keys over its equality field ids, read in the read schema's types) whose
// equal rows are deleted; null equals null.
//
// Thread-safe: tasks on several threads ask at once; a file being loaded by
// one is waited for by the others. Errors (a missing or corrupt delete file)
// are returned to every task that needs the file.
#pragma once

#include <absl/container/flat_hash_set.h>
#include <arrow/array.h>

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/read/name_mapping.h"
#include "skade/read/parquet_file_internal.h"
#include "skade/scan/scan_plan.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::read {

/// The rows of one equality delete file.
struct EqualityDeleteSet {
  std::vector<int32_t> field_ids;
  absl::flat_hash_set<std::string> keys;
};

/// Appends the key encoding of row `row` of `columns` (of `types`) to
/// `key`: what EqualityDeleteSet::keys hold.
Status AppendEqualityKey(const std::vector<std::shared_ptr<arrow::Array>>& columns,
                         const std::vector<spec::TypePtr>& types, int64_t row, std::string* key);

class DeleteCache {
 public:
  DeleteCache(io::FileIO& io, spec::SchemaPtr schema, const NameMapping* mapping,
              ParquetReadOptions options)
      : io_(io), schema_(std::move(schema)), mapping_(mapping), options_(options) {}

  /// The deleted positions of `data_file_path` by the position delete files
  /// and deletion vectors among `deletes`, sorted and unique.
  Result<std::vector<int64_t>> DeletedPositions(const std::string& data_file_path,
                                                const std::vector<scan::ScanDelete>& deletes);

  /// The equality delete files among `deletes`.
  Result<std::vector<std::shared_ptr<const EqualityDeleteSet>>> EqualityDeletes(
      const std::vector<scan::ScanDelete>& deletes);

 private:
  using PositionsByFile = std::map<std::string, std::vector<int64_t>, std::less<>>;

  template <typename T, typename Load>
  Result<std::shared_ptr<const T>> Cached(
      std::map<std::string, std::shared_future<Result<std::shared_ptr<const T>>>>& cache,
      const std::string& key, Load load);

  Result<std::shared_ptr<const PositionsByFile>> LoadPositionFile(const spec::DataFile& file);
  Result<std::vector<int64_t>> LoadDeletionVector(const spec::DataFile& file);
  Result<std::shared_ptr<const EqualityDeleteSet>> LoadEqualityFile(const spec::DataFile& file);

  io::FileIO& io_;
  const spec::SchemaPtr schema_;
  const NameMapping* mapping_;
  const ParquetReadOptions options_;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<Result<std::shared_ptr<const PositionsByFile>>>>
      position_files_;
  std::map<std::string, std::shared_future<Result<std::shared_ptr<const EqualityDeleteSet>>>>
      equality_files_;
};

}  // namespace skade::read
