// Writes rows of one partition into as many Parquet data files as
// "write.target-file-size-bytes" calls for.
//
// A file is closed, and the next one started, once its estimated size
// reaches the target; batches are split at that point (see
// ParquetDataWriter::WriteUntilFileSize). No file is created until there is
// a row to write. Deterministic like ParquetDataWriter.
//
// Not thread-safe. A writer destroyed before Close() removes the file it has
// open; files it already finished stay (unreferenced until committed).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "skade/data/data_file_sink.h"
#include "skade/data/data_writer_options.h"
#include "skade/data/parquet_data_writer.h"
#include "skade/io/file_io.h"
#include "skade/spec/data_file.h"
#include "skade/spec/literal.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

class RollingDataWriter {
 public:
  /// Called once per new file for where it goes; an error fails the Write
  /// that needed the file.
  using OpenSink = std::function<Result<DataFileSink>()>;

  /// Files get `partition` and `spec_id` in their DataFile.
  RollingDataWriter(spec::SchemaPtr schema, DataWriterOptions options, OpenSink open_sink,
                    std::vector<spec::Literal> partition = {}, int32_t spec_id = 0);
  /// Files created through `io` at `next_location()` (which must not exist),
  /// fsynced as options.durable says.
  RollingDataWriter(std::shared_ptr<io::FileIO> io, spec::SchemaPtr schema,
                    DataWriterOptions options, std::function<Result<std::string>()> next_location,
                    std::vector<spec::Literal> partition = {}, int32_t spec_id = 0);
  ~RollingDataWriter();
  RollingDataWriter(const RollingDataWriter&) = delete;
  RollingDataWriter& operator=(const RollingDataWriter&) = delete;

  /// Appends all rows of `batch`. On error the writer is unusable.
  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);

  /// Finishes the open file; returns every file written, in order (none if
  /// no row was written).
  Result<std::vector<spec::DataFile>> Close();

 private:
  Status FinishFile();

  spec::SchemaPtr schema_;
  DataWriterOptions options_;
  OpenSink open_sink_;
  std::vector<spec::Literal> partition_;
  int32_t spec_id_;
  std::unique_ptr<ParquetDataWriter> current_;
  std::vector<spec::DataFile> finished_;
};

}  // namespace skade::data
