#include "skade/avro/container_writer.h"

#include <cstring>

#include "skade/util/random.h"

namespace skade::avro {

namespace {

SyncMarker RandomSyncMarker() {
  SyncMarker sync;
  uint64_t high = RandomU64();
  uint64_t low = RandomU64();
  std::memcpy(sync.data(), &high, sizeof(high));
  std::memcpy(sync.data() + sizeof(high), &low, sizeof(low));
  return sync;
}

}  // namespace

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Make(
    const Node& schema, std::vector<std::pair<std::string, std::string>> metadata,
    const ContainerWriterOptions& options) {
  return Make(SchemaToJson(schema), std::move(metadata), options);
}

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Make(
    std::string schema_json, std::vector<std::pair<std::string, std::string>> metadata,
    const ContainerWriterOptions& options) {
  for (const auto& [key, value] : metadata) {
    if (key == "avro.schema" || key == "avro.codec") {
      return InvalidArgument("Reserved Avro metadata key: ", key);
    }
  }
  metadata.emplace_back("avro.schema", std::move(schema_json));
  metadata.emplace_back("avro.codec", std::string(CodecName(options.codec)));

  SyncMarker sync = options.sync_marker ? *options.sync_marker : RandomSyncMarker();
  std::string header(kMagic, sizeof(kMagic));
  Encoder encoder(&header);
  encoder.WriteBlockCount(static_cast<int64_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    encoder.WriteString(key);
    encoder.WriteBytes(value);
  }
  encoder.WriteEndOfBlocks();
  header.append(reinterpret_cast<const char*>(sync.data()), sync.size());
  return std::unique_ptr<ContainerWriter>(new ContainerWriter(options, std::move(header), sync));
}

ContainerWriter::ContainerWriter(const ContainerWriterOptions& options, std::string header,
                                 SyncMarker sync)
    : options_(options),
      codec_(options.codec, options.compression_level),
      sync_(sync),
      file_(std::move(header)),
      encoder_(&block_),
      header_size_(file_.size()) {}

Status ContainerWriter::EndDatum() {
  if (finished_) return InternalError("Avro container writer used after Finish()");
  ++block_count_;
  if (block_.size() >= options_.block_size) SKADE_RETURN_NOT_OK(FlushBlock());
  datum_start_ = block_.size();
  return OkStatus();
}

Status ContainerWriter::FlushBlock() {
  if (block_count_ == 0) return OkStatus();
  SKADE_RETURN_NOT_OK(codec_.Compress(block_, &compressed_));
  Encoder encoder(&file_);
  encoder.WriteLong(block_count_);
  encoder.WriteLong(static_cast<int64_t>(compressed_.size()));
  file_.append(compressed_);
  file_.append(reinterpret_cast<const char*>(sync_.data()), sync_.size());
  block_.clear();
  block_count_ = 0;
  ++blocks_;
  return OkStatus();
}

Status ContainerWriter::AppendBlocks(std::string_view blocks, int64_t count) {
  if (finished_) return InternalError("Avro container writer used after Finish()");
  SKADE_RETURN_NOT_OK(FlushBlock());
  datum_start_ = 0;
  file_.append(blocks);
  blocks_ += count;
  return OkStatus();
}

Result<std::string> ContainerWriter::Finish() {
  if (finished_) return InternalError("Avro container writer finished twice");
  SKADE_RETURN_NOT_OK(FlushBlock());
  finished_ = true;
  return std::move(file_);
}

}  // namespace skade::avro
