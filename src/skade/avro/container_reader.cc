#include "skade/avro/container_reader.h"

#include <cstring>

namespace skade::avro {

ContainerReader::ContainerReader(std::string_view file, const ContainerReaderOptions& options)
    : options_(options), file_decoder_(file) {}

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(
    std::string_view file, const ContainerReaderOptions& options) {
  if (file.size() < sizeof(kMagic) || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
    return Corruption("Not an Avro object container file: bad magic");
  }
  std::unique_ptr<ContainerReader> reader(new ContainerReader(file, options));
  Decoder& decoder = reader->file_decoder_;
  SKADE_RETURN_NOT_OK(decoder.Skip(sizeof(kMagic)));
  while (true) {
    SKADE_ASSIGN_OR_RAISE(int64_t count, decoder.ReadBlockCount());
    if (count == 0) break;
    for (int64_t i = 0; i < count; ++i) {
      SKADE_ASSIGN_OR_RAISE(std::string_view key, decoder.ReadString());
      SKADE_ASSIGN_OR_RAISE(std::string_view value, decoder.ReadBytes());
      reader->metadata_.insert_or_assign(std::string(key), std::string(value));
    }
  }
  SKADE_ASSIGN_OR_RAISE(std::string_view sync, decoder.ReadFixed(kSyncSize));
  std::memcpy(reader->sync_.data(), sync.data(), kSyncSize);

  auto schema_json = reader->Metadata("avro.schema");
  if (!schema_json) return Corruption("Avro file has no avro.schema metadata");
  auto schema = ParseSchema(*schema_json);
  if (!schema) return Corruption("Invalid avro.schema: ", schema.error().message);
  reader->schema_ = std::move(*schema);

  auto codec = ParseCodec(reader->Metadata("avro.codec").value_or("null"));
  if (!codec) {
    if (codec.error().kind == ErrorKind::kUnsupported) return tl::unexpected(codec.error());
    return Corruption(codec.error().message);
  }
  reader->codec_ = std::make_unique<BlockCodec>(*codec, BlockCodec::kDefaultLevel);
  return reader;
}

std::optional<std::string_view> ContainerReader::Metadata(std::string_view key) const {
  auto it = metadata_.find(key);
  if (it == metadata_.end()) return std::nullopt;
  return std::string_view(it->second);
}

Result<bool> ContainerReader::NextBlock() {
  if (file_decoder_.at_end()) return false;
  block_offset_ = file_decoder_.position();
  SKADE_ASSIGN_OR_RAISE(int64_t count, file_decoder_.ReadLong());
  SKADE_ASSIGN_OR_RAISE(int64_t size, file_decoder_.ReadLong());
  if (count < 0 || size < 0 || static_cast<uint64_t>(size) > file_decoder_.remaining()) {
    return Corruption("Invalid Avro block at offset ", block_offset_, ": ", count, " datums in ",
                      size, " bytes with ", file_decoder_.remaining(), " bytes left");
  }
  SKADE_ASSIGN_OR_RAISE(std::string_view data, file_decoder_.ReadFixed(static_cast<size_t>(size)));
  SKADE_ASSIGN_OR_RAISE(std::string_view sync, file_decoder_.ReadFixed(kSyncSize));
  if (std::memcmp(sync.data(), sync_.data(), kSyncSize) != 0) {
    return Corruption("Avro block at offset ", block_offset_, " does not end in the sync marker");
  }
  std::string_view block = data;
  if (codec_->codec() != Codec::kNull) {
    SKADE_RETURN_NOT_OK(codec_->Decompress(data, options_.max_block_size, &block_data_));
    block = block_data_;
  }
  // Every datum of the schemas Iceberg writes takes at least one byte; this
  // bounds the caller's loop over the count.
  if (static_cast<uint64_t>(count) > block.size()) {
    return Corruption("Avro block at offset ", block_offset_, " claims ", count, " datums in only ",
                      block.size(), " bytes");
  }
  block_count_ = count;
  block_decoder_ = Decoder(block);
  return true;
}

}  // namespace skade::avro
