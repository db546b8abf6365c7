#include <algorithm>
#include <deque>
#include <memory>

#include "skade/data/fanout_data_writer.h"
#include "skade/data/partition_path.h"
#include "skade/data/partition_splitter.h"
#include "skade/ingest/data_file_encoder_internal.h"
#include "skade/io/buffer_output_file.h"

namespace skade::ingest {

Result<std::vector<EncodedFile>> DataFileEncoder::Encode(const RecordBatchGroup& group) const {
  return Encode(StreamOf(group));
}

Result<std::vector<EncodedFile>> DataFileEncoder::Encode(const BatchStream& batches) const {
  // Every file the writer starts, in that order (deque: stable addresses
  // for the buffers the sinks write to).
  struct Started {
    std::string partition_key;
    EncodedFile file;
    bool finished = false;
  };
  std::deque<Started> started;
  data::DataWriterOptions options = options_;
  options.durable = false;  // memory; the write stage decides durability
  SKADE_ASSIGN_OR_RAISE(
      auto writer,
      data::FanoutDataWriter::Make(
          schema_, spec_, options,
          [&](const std::vector<spec::Literal>& partition) -> Result<data::DataFileSink> {
            Started& file = started.emplace_back();
            file.partition_key = data::PartitionKey(partition);
            if (!spec_->fields.empty()) {
              SKADE_ASSIGN_OR_RAISE(file.file.partition_path,
                                    data::PartitionPath(*spec_, *schema_, partition));
            }
            return data::DataFileSink{{}, std::make_unique<io::BufferOutputFile>(&file.file.bytes)};
          }));
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch, batches());
    if (batch == nullptr) break;
    SKADE_RETURN_NOT_OK(writer->Write(batch));
  }
  SKADE_ASSIGN_OR_RAISE(std::vector<spec::DataFile> finished, writer->Close());

  // Close() lists files by partition; a partition's files come in the
  // order they were started, so the k-th of a partition is the k-th
  // started with its tuple.
  for (spec::DataFile& data_file : finished) {
    const std::string key = data::PartitionKey(data_file.partition);
    auto it = std::find_if(started.begin(), started.end(), [&](const Started& file) {
      return !file.finished && file.partition_key == key;
    });
    if (it == started.end()) return InternalError("Encoded a data file that was never started");
    it->finished = true;
    it->file.data_file = std::move(data_file);
  }
  std::vector<EncodedFile> encoded;
  encoded.reserve(started.size());
  for (Started& file : started) {
    if (!file.finished) return InternalError("A started data file was never finished");
    encoded.push_back(std::move(file.file));
  }
  return encoded;
}

Result<std::vector<std::vector<EncodedFile>>> DataFileEncoder::EncodeAll(
    const std::vector<RecordBatchGroup>& groups, WorkerPool& pool) const {
  std::vector<Result<std::vector<EncodedFile>>> results(groups.size());
  pool.ParallelFor(groups.size(), [&](size_t i) { results[i] = Encode(groups[i]); });
  std::vector<std::vector<EncodedFile>> encoded;
  encoded.reserve(groups.size());
  for (auto& result : results) {
    if (!result) return tl::unexpected(std::move(result).error());
    encoded.push_back(std::move(*result));
  }
  return encoded;
}

}  // namespace skade::ingest
