// Writes one Iceberg data file in Parquet from Arrow record batches.
//
// Every column, nested ones included, carries its Iceberg field id; the
// codec, compression level, page size, page row limit, dictionary size and
// row-group size come from DataWriterOptions. Row groups are closed by
// estimated size: a row group's on-disk size is predicted from the Arrow
// size of the rows buffered in it times the compressed/Arrow ratio of the
// row groups already written (1 before the first), and batches are split
// where that prediction reaches the target. Columns whose first page of
// rows would not shrink under a dictionary are written plain from the
// start, as Iceberg Java does (dictionary_choice.h); so the file itself is
// started by its first rows.
//
// Deterministic: the same schema, options and sequence of batches (same
// rows, same batch boundaries) give byte-identical files — nothing
// time-dependent or random is written, created_by is fixed and columns are
// encoded on the calling thread.
//
// Not thread-safe: one thread drives a writer. Distinct writers are
// independent. A writer destroyed before Close() removes its file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "skade/data/data_file_sink.h"
#include "skade/data/data_writer_options.h"
#include "skade/io/file_io.h"
#include "skade/spec/data_file.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

/// The Parquet created_by string of skade's files, in the
/// "<application> version <version>" form readers parse.
inline constexpr char kParquetCreatedBy[] = "skade version 0.1.0";

class ParquetDataWriter {
 public:
  /// Creates `location` through `io` (never overwriting); the Parquet
  /// header follows with the first rows. kInvalidArgument for a schema or options Parquet cannot
  /// take; FileIO errors as FileIO reports them.
  static Result<std::unique_ptr<ParquetDataWriter>> Open(io::FileIO& io, std::string location,
                                                         spec::SchemaPtr schema,
                                                         DataWriterOptions options);
  /// Writes into `sink` (its durability is the sink's; options.durable is
  /// not consulted). Errors as above.
  static Result<std::unique_ptr<ParquetDataWriter>> Open(DataFileSink sink, spec::SchemaPtr schema,
                                                         DataWriterOptions options);

  ~ParquetDataWriter();
  ParquetDataWriter(const ParquetDataWriter&) = delete;
  ParquetDataWriter& operator=(const ParquetDataWriter&) = delete;

  /// Appends all rows of `batch` (conformed with ConformBatch first). On
  /// error the writer is unusable; destroy it.
  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);

  /// Appends rows from the start of `batch` until the estimated file size
  /// reaches `max_file_bytes` (at least one row when `batch` has any), and
  /// returns how many it wrote. The rolling writer uses this to cut files.
  Result<int64_t> WriteUntilFileSize(const std::shared_ptr<arrow::RecordBatch>& batch,
                                     int64_t max_file_bytes);

  /// Bytes written so far plus the predicted size of the open row group.
  int64_t EstimatedFileSize() const;
  /// Rows written so far.
  int64_t record_count() const;
  const std::string& location() const;

  /// Writes the footer, closes (and, if options.durable, syncs) the file,
  /// and returns its DataFile: path (the sink's location), PARQUET, size and the metrics of
  /// parquet_metrics.h; partition and spec id are left to the caller. The
  /// writer cannot be used afterwards.
  Result<spec::DataFile> Close();

 private:
  struct Impl;
  explicit ParquetDataWriter(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::data
