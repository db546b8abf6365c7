// Writes a stream of record batches into a partitioned table: each batch is
// split by partition tuple (PartitionSplitter) and each partition's rows go
// to that partition's RollingDataWriter.
//
// Every partition seen keeps a file open until Close() (the "fanout"
// strategy: input need not be clustered, at the cost of one buffered row
// group per open partition). Close() returns DataFiles grouped by
// partition in the order each partition was first seen, each partition's
// files in the order written; rows keep their relative order within a
// partition. Deterministic like ParquetDataWriter.
//
// Not thread-safe. A writer destroyed before Close() removes its open
// files.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "skade/data/data_file_sink.h"
#include "skade/data/data_writer_options.h"
#include "skade/data/partition_splitter.h"
#include "skade/io/file_io.h"
#include "skade/spec/data_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

class FanoutDataWriter {
 public:
  /// Where each new file goes: `open_sink(partition)`. Errors as
  /// PartitionSplitter::Make.
  static Result<std::unique_ptr<FanoutDataWriter>> Make(spec::SchemaPtr schema,
                                                        spec::PartitionSpecPtr spec,
                                                        DataWriterOptions options,
                                                        OpenDataFileSink open_sink);
  /// Files created through `io` at `next_location(partition)` (see
  /// partition_path.h), fsynced as options.durable says.
  static Result<std::unique_ptr<FanoutDataWriter>> Make(std::shared_ptr<io::FileIO> io,
                                                        spec::SchemaPtr schema,
                                                        spec::PartitionSpecPtr spec,
                                                        DataWriterOptions options,
                                                        NextLocation next_location);
  ~FanoutDataWriter();
  FanoutDataWriter(const FanoutDataWriter&) = delete;
  FanoutDataWriter& operator=(const FanoutDataWriter&) = delete;

  /// Conforms `batch` to the schema, splits it and appends each part to its
  /// partition's files. On error the writer is unusable.
  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);

  /// Finishes every open file; returns all files written (see above). Each
  /// DataFile carries its partition tuple and the spec's id.
  Result<std::vector<spec::DataFile>> Close();

 private:
  struct Impl;
  explicit FanoutDataWriter(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::data
