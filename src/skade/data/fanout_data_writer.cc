#include "skade/data/fanout_data_writer.h"

#include <absl/container/flat_hash_map.h>
#include <arrow/record_batch.h>

#include "skade/data/conform_batch.h"
#include "skade/data/rolling_data_writer.h"

namespace skade::data {

struct FanoutDataWriter::Impl {
  spec::SchemaPtr schema;
  PartitionSplitter splitter;
  DataWriterOptions options;
  OpenDataFileSink open_sink;
  // In first-seen order; the map indexes it by tuple key.
  std::vector<std::unique_ptr<RollingDataWriter>> writers;
  absl::flat_hash_map<std::string, size_t> writer_by_key;
};

FanoutDataWriter::FanoutDataWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FanoutDataWriter::~FanoutDataWriter() = default;

Result<std::unique_ptr<FanoutDataWriter>> FanoutDataWriter::Make(spec::SchemaPtr schema,
                                                                 spec::PartitionSpecPtr spec,
                                                                 DataWriterOptions options,
                                                                 OpenDataFileSink open_sink) {
  SKADE_ASSIGN_OR_RAISE(auto splitter, PartitionSplitter::Make(schema, std::move(spec)));
  auto impl = std::unique_ptr<Impl>(new Impl{
      std::move(schema), std::move(splitter), std::move(options), std::move(open_sink), {}, {}});
  return std::unique_ptr<FanoutDataWriter>(new FanoutDataWriter(std::move(impl)));
}

Result<std::unique_ptr<FanoutDataWriter>> FanoutDataWriter::Make(std::shared_ptr<io::FileIO> io,
                                                                 spec::SchemaPtr schema,
                                                                 spec::PartitionSpecPtr spec,
                                                                 DataWriterOptions options,
                                                                 NextLocation next_location) {
  bool durable = options.durable;
  return Make(std::move(schema), std::move(spec), std::move(options),
              SinksThrough(std::move(io), durable, std::move(next_location)));
}

Status FanoutDataWriter::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  Impl& impl = *impl_;
  SKADE_ASSIGN_OR_RAISE(auto conformed, ConformBatch(batch, *impl.schema));
  SKADE_ASSIGN_OR_RAISE(auto parts, impl.splitter.Split(conformed));
  for (auto& part : parts) {
    auto [it, inserted] = impl.writer_by_key.try_emplace(PartitionKey(part.partition), 0);
    if (inserted) {
      it->second = impl.writers.size();
      auto partition = part.partition;
      OpenDataFileSink open = impl.open_sink;
      impl.writers.push_back(std::make_unique<RollingDataWriter>(
          impl.schema, impl.options, [open, partition] { return open(partition); },
          std::move(part.partition), impl.splitter.spec().spec_id));
    }
    SKADE_RETURN_NOT_OK(impl.writers[it->second]->Write(part.batch));
  }
  return OkStatus();
}

Result<std::vector<spec::DataFile>> FanoutDataWriter::Close() {
  std::vector<spec::DataFile> out;
  for (auto& writer : impl_->writers) {
    SKADE_ASSIGN_OR_RAISE(auto files, writer->Close());
    for (auto& file : files) out.push_back(std::move(file));
  }
  impl_->writers.clear();
  impl_->writer_by_key.clear();
  return out;
}

}  // namespace skade::data
