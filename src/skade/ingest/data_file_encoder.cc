#include <memory>

#include "skade/data/fanout_data_writer.h"
#include "skade/data/partition_path.h"
#include "skade/ingest/data_file_encoder_internal.h"
#include "skade/ingest/memory_file_io_internal.h"
#include "skade/util/strings.h"

namespace skade::ingest {

Result<std::vector<EncodedFile>> DataFileEncoder::Encode(const RecordBatchGroup& group) const {
  auto memory = std::make_shared<MemoryFileIO>();
  int next = 0;
  data::DataWriterOptions options = options_;
  options.durable = false;  // memory; the write stage decides durability
  SKADE_ASSIGN_OR_RAISE(auto writer,
                        data::FanoutDataWriter::Make(
                            memory, schema_, spec_, options,
                            [&next](const std::vector<spec::Literal>&) -> Result<std::string> {
                              return StrCat("memory:", next++);
                            }));
  for (const auto& batch : group) SKADE_RETURN_NOT_OK(writer->Write(batch));
  SKADE_ASSIGN_OR_RAISE(std::vector<spec::DataFile> files, writer->Close());

  std::vector<EncodedFile> encoded;
  encoded.reserve(files.size());
  for (spec::DataFile& file : files) {
    EncodedFile out;
    SKADE_ASSIGN_OR_RAISE(out.bytes, memory->Take(file.file_path));
    if (!spec_->fields.empty()) {
      SKADE_ASSIGN_OR_RAISE(out.partition_path,
                            data::PartitionPath(*spec_, *schema_, file.partition));
    }
    file.file_path.clear();
    out.data_file = std::move(file);
    encoded.push_back(std::move(out));
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
