#include "skade/data/rolling_data_writer.h"

#include <arrow/record_batch.h>

#include "skade/data/conform_batch.h"

namespace skade::data {

RollingDataWriter::RollingDataWriter(spec::SchemaPtr schema, DataWriterOptions options,
                                     OpenSink open_sink, std::vector<spec::Literal> partition,
                                     int32_t spec_id)
    : schema_(std::move(schema)),
      options_(std::move(options)),
      open_sink_(std::move(open_sink)),
      partition_(std::move(partition)),
      spec_id_(spec_id) {}

RollingDataWriter::RollingDataWriter(std::shared_ptr<io::FileIO> io, spec::SchemaPtr schema,
                                     DataWriterOptions options,
                                     std::function<Result<std::string>()> next_location,
                                     std::vector<spec::Literal> partition, int32_t spec_id)
    : RollingDataWriter(
          std::move(schema), options,
          [open = SinksThrough(
               std::move(io), options.durable,
               [next_location = std::move(next_location)](const std::vector<spec::Literal>&) {
                 return next_location();
               })] { return open({}); },
          std::move(partition), spec_id) {}

RollingDataWriter::~RollingDataWriter() = default;

Status RollingDataWriter::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  // Conform once here; the file writer's own conforming is then a no-op.
  SKADE_ASSIGN_OR_RAISE(auto conformed, ConformBatch(batch, *schema_));
  int64_t offset = 0;
  while (offset < conformed->num_rows()) {
    if (current_ == nullptr) {
      SKADE_ASSIGN_OR_RAISE(DataFileSink sink, open_sink_());
      SKADE_ASSIGN_OR_RAISE(current_, ParquetDataWriter::Open(std::move(sink), schema_, options_));
    }
    auto rest = offset == 0 ? conformed : conformed->Slice(offset);
    SKADE_ASSIGN_OR_RAISE(int64_t written,
                          current_->WriteUntilFileSize(rest, options_.target_file_size_bytes));
    offset += written;
    if (current_->EstimatedFileSize() >= options_.target_file_size_bytes) {
      SKADE_RETURN_NOT_OK(FinishFile());
    }
  }
  return OkStatus();
}

Status RollingDataWriter::FinishFile() {
  auto writer = std::move(current_);
  SKADE_ASSIGN_OR_RAISE(auto file, writer->Close());
  file.partition = partition_;
  file.spec_id = spec_id_;
  finished_.push_back(std::move(file));
  return OkStatus();
}

Result<std::vector<spec::DataFile>> RollingDataWriter::Close() {
  if (current_ != nullptr) SKADE_RETURN_NOT_OK(FinishFile());
  return std::move(finished_);
}

}  // namespace skade::data
