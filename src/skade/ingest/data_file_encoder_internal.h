// DataFileEncoder: the encode stage of the ingest pipelines — a group of
// record batches to Parquet bytes in memory plus their DataFiles.
//
// A group is split by partition tuple; each partition's rows, in order,
// become one file (more when one passes write.target-file-size-bytes).
// data::FanoutDataWriter writes them into in-memory sinks, and each file
// comes out once, in the order the writer started it (DataFileNamer's
// order), with its bytes, its DataFile and its partition directory. The
// same group gives the same bytes whichever thread or path encodes it.
// Files have no location yet: the pipeline names them (DataFileNamer).
//
// Immutable; Encode() is thread-safe.
#pragma once

#include <string>
#include <vector>

#include "skade/data/data_writer_options.h"
#include "skade/ingest/record_batch_group.h"
#include "skade/spec/data_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"
#include "skade/util/worker_pool.h"

namespace skade::ingest {

struct EncodedFile {
  /// Metrics, partition tuple and spec id; file_path is empty until named.
  spec::DataFile data_file;
  /// "a=1/b=x" (empty when unpartitioned), the directory under data/.
  std::string partition_path;
  std::string bytes;
};

class DataFileEncoder {
 public:
  DataFileEncoder(spec::SchemaPtr schema, spec::PartitionSpecPtr spec,
                  data::DataWriterOptions options)
      : schema_(std::move(schema)), spec_(std::move(spec)), options_(std::move(options)) {}

  /// Errors: kInvalidArgument for batches that do not conform to the schema
  /// or a spec the splitter cannot apply; kUnsupported codecs.
  Result<std::vector<EncodedFile>> Encode(const RecordBatchGroup& group) const;
  /// As above for the group `batches` streams; a stream error fails it.
  Result<std::vector<EncodedFile>> Encode(const BatchStream& batches) const;

  /// Encodes every group on `pool`: element i holds group i's files. The
  /// first error (in input order) wins.
  Result<std::vector<std::vector<EncodedFile>>> EncodeAll(
      const std::vector<RecordBatchGroup>& groups, WorkerPool& pool) const;

 private:
  spec::SchemaPtr schema_;
  spec::PartitionSpecPtr spec_;
  data::DataWriterOptions options_;
};

}  // namespace skade::ingest
