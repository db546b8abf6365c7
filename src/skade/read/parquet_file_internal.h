// ParquetFile: one Parquet file open for reading through a FileIO, with the
// field ids of its columns (from the file, or from the table's name mapping
// when the file has none).
//
// Not thread-safe: one task reads one file.
#pragma once

#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/read/name_mapping.h"
#include "skade/util/result.h"

namespace skade::read {

struct ParquetReadOptions {
  int64_t batch_rows = 64 * 1024;
  /// Decode the columns of a row group in parallel on Arrow's CPU pool (for
  /// scans with fewer files than threads).
  bool use_threads = false;
};

class ParquetFile {
 public:
  /// Opens `location` and reads its footer. kNotFound for a missing file,
  /// kCorruption for one that is not Parquet. A file whose columns carry no
  /// field ids takes them from `mapping`; without one that is
  /// kInvalidArgument.
  static Result<std::unique_ptr<ParquetFile>> Open(io::FileIO& io, const std::string& location,
                                                   const ParquetReadOptions& options,
                                                   const NameMapping* mapping);

  const std::string& location() const { return location_; }
  parquet::arrow::FileReader& reader() { return *reader_; }
  const parquet::FileMetaData& metadata() const { return *reader_->parquet_reader()->metadata(); }
  /// The file's Arrow schema with "PARQUET:field_id" wherever an id is known.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  /// Whether the ids came from the file itself (row-group statistics are
  /// keyed by them).
  bool has_field_ids() const { return has_field_ids_; }
  int num_row_groups() const { return metadata().num_row_groups(); }
  /// The position in the file of the first row of `row_group`.
  int64_t row_group_start(int row_group) const { return row_group_starts_[row_group]; }
  int64_t row_group_rows(int row_group) const;

  /// The leaf column indices under the top-level fields `fields` (indices
  /// into schema()).
  std::vector<int> LeafColumns(const std::vector<int>& fields) const;

  /// The batches of `row_group`, columns of the top-level `fields` (in file
  /// order).
  Result<std::unique_ptr<arrow::RecordBatchReader>> ReadRowGroup(int row_group,
                                                                 const std::vector<int>& fields);

 private:
  ParquetFile() = default;

  std::string location_;
  std::unique_ptr<parquet::arrow::FileReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  bool has_field_ids_ = false;
  std::vector<int64_t> row_group_starts_;
};

}  // namespace skade::read
