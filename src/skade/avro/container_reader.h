// Reads an Avro object container file (Avro 1.11 spec: "Object Container
// Files") held in memory.
//
// Open() checks the magic, reads the metadata map, parses `avro.schema` and
// `avro.codec` and takes the sync marker. Blocks are then read one at a time:
// each block's count and size are checked against the bytes left, its data is
// decompressed (up to max_block_size) and its trailing sync marker must match
// the header's. Any malformed, truncated or oversized part is kCorruption
// with a message naming it; an unsupported codec is kUnsupported.
//
// The reader borrows the file bytes, which must outlive it and every view it
// hands out. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "skade/avro/codec.h"
#include "skade/avro/container_writer.h"
#include "skade/avro/decoder.h"
#include "skade/avro/schema.h"
#include "skade/util/result.h"

namespace skade::avro {

struct ContainerReaderOptions {
  /// The largest block a compressed codec may inflate to (guards against
  /// decompression bombs; uncompressed blocks are bounded by the file).
  size_t max_block_size = 256 << 20;
  /// The most memory the manifest or manifest list readers may spend on
  /// what they parse from one file (DecodeBudget's estimate), whatever the
  /// file says: the larger of `max_decoded_bytes` and
  /// `decoded_bytes_per_file_byte` times the file's size (DecodedBudget).
  /// Over it the read fails with kInvalidArgument naming the file and the
  /// limit. Parsed entries take 15-25 times their manifest's compressed size
  /// (25 for entries without metrics, the densest kind): an 8 MiB manifest
  /// (Iceberg's commit.manifest.target-size-bytes) is charged at most about
  /// 300 MiB, and a larger one (PyIceberg and Flink do not split theirs) as
  /// much as its size allows — a decompression bomb packs a thousand times
  /// more into its bytes.
  size_t max_decoded_bytes = 512 << 20;
  size_t decoded_bytes_per_file_byte = 64;

  size_t DecodedBudget(size_t file_bytes) const {
    return std::max(max_decoded_bytes, decoded_bytes_per_file_byte * file_bytes);
  }
};

class ContainerReader {
 public:
  static Result<std::unique_ptr<ContainerReader>> Open(std::string_view file,
                                                       const ContainerReaderOptions& options = {});

  // block_decoder() views into the reader's own buffer, so it stays put.
  ContainerReader(const ContainerReader&) = delete;
  ContainerReader& operator=(const ContainerReader&) = delete;

  const NodePtr& schema() const { return schema_; }
  Codec codec() const { return codec_->codec(); }
  const SyncMarker& sync_marker() const { return sync_; }
  /// Every metadata entry, including `avro.schema` and `avro.codec`.
  const std::map<std::string, std::string, std::less<>>& metadata() const { return metadata_; }
  /// The value of one metadata entry, or nullopt.
  std::optional<std::string_view> Metadata(std::string_view key) const;

  /// Moves to the next block; false at the end of the file. The block's
  /// datums are then read from block_decoder().
  Result<bool> NextBlock();
  Decoder& block_decoder() { return block_decoder_; }

  /// Calls `read(Decoder&)` once per datum, in file order; `read` must
  /// consume exactly one datum. A block with bytes left after its datums is
  /// kCorruption.
  template <typename ReadDatum>
  Status ForEachDatum(ReadDatum&& read) {
    return ForEachDatum([](int64_t) { return OkStatus(); }, read);
  }
  /// As above, calling `start_block(count)` (a Status) before the `count`
  /// datums of each block are read: a reader makes room for them there.
  template <typename StartBlock, typename ReadDatum>
  Status ForEachDatum(StartBlock&& start_block, ReadDatum&& read) {
    while (true) {
      SKADE_ASSIGN_OR_RAISE(bool has_block, NextBlock());
      if (!has_block) return OkStatus();
      SKADE_RETURN_NOT_OK(start_block(block_count_));
      for (int64_t i = 0; i < block_count_; ++i) {
        SKADE_RETURN_NOT_OK(read(block_decoder_));
      }
      if (!block_decoder_.at_end()) {
        return Corruption("Avro block at offset ", block_offset_, " has ",
                          block_decoder_.remaining(), " bytes after its ", block_count_, " datums");
      }
    }
  }

 private:
  ContainerReader(std::string_view file, const ContainerReaderOptions& options);

  ContainerReaderOptions options_;
  Decoder file_decoder_;
  std::map<std::string, std::string, std::less<>> metadata_;
  NodePtr schema_;
  std::unique_ptr<BlockCodec> codec_;
  SyncMarker sync_{};
  std::string block_data_;
  Decoder block_decoder_{std::string_view()};
  int64_t block_count_ = 0;
  size_t block_offset_ = 0;
};

}  // namespace skade::avro
