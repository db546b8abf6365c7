// Writes an Avro object container file (Avro 1.11 spec: "Object Container
// Files") into memory.
//
// Layout: magic `Obj\x01`, the metadata map (the caller's entries, then
// `avro.schema` and `avro.codec`), a 16-byte sync marker, then blocks of
// `count, byte size, compressed data, sync marker`. The caller encodes each
// datum with encoder() and ends it with EndDatum(); a block is cut once its
// uncompressed data reaches the block size. An empty file (no datums) has
// only the header.
//
// Not thread-safe. Manifests and manifest lists are small, so the whole file
// is kept in memory and returned by Finish(); the caller writes it out.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/avro/codec.h"
#include "skade/avro/encoder.h"
#include "skade/avro/schema.h"
#include "skade/util/result.h"

namespace skade::avro {

inline constexpr char kMagic[] = {'O', 'b', 'j', '\x01'};
inline constexpr size_t kSyncSize = 16;
using SyncMarker = std::array<uint8_t, kSyncSize>;

struct ContainerWriterOptions {
  Codec codec = Codec::kDeflate;
  int compression_level = BlockCodec::kDefaultLevel;
  /// Uncompressed bytes after which a block is written out.
  size_t block_size = 1 << 20;
  /// A fixed sync marker (tests that need byte-identical files); random
  /// when unset.
  std::optional<SyncMarker> sync_marker;
};

class ContainerWriter {
 public:
  /// `metadata` entries are written in order; keys `avro.schema` and
  /// `avro.codec` are reserved (kInvalidArgument).
  static Result<std::unique_ptr<ContainerWriter>> Make(
      const Node& schema, std::vector<std::pair<std::string, std::string>> metadata,
      const ContainerWriterOptions& options);
  /// The same, given the schema as its JSON (SchemaToJson), for callers
  /// that write many files of one schema.
  static Result<std::unique_ptr<ContainerWriter>> Make(
      std::string schema_json, std::vector<std::pair<std::string, std::string>> metadata,
      const ContainerWriterOptions& options);

  /// The encoder for the current datum. Valid until the next EndDatum().
  Encoder& encoder() { return encoder_; }

  /// Ends the datum just encoded; may compress and append a block.
  Status EndDatum();

  /// Drops what was encoded since the last EndDatum() (a datum that failed
  /// halfway).
  void DiscardDatum() { block_.resize(datum_start_); }

  /// Ends the current block and appends `blocks`, whole blocks another file
  /// of the same schema, codec and sync marker holds (its bytes after the
  /// header), without decoding them; `count` is how many blocks they are.
  Status AppendBlocks(std::string_view blocks, int64_t count);

  /// Writes the last block and returns the complete file. The writer cannot
  /// be used afterwards.
  Result<std::string> Finish();

  /// The file's header: its first header_size() bytes.
  size_t header_size() const { return header_size_; }
  /// Blocks in the file so far.
  int64_t blocks() const { return blocks_; }
  const SyncMarker& sync_marker() const { return sync_; }
  Codec codec() const { return options_.codec; }

 private:
  ContainerWriter(const ContainerWriterOptions& options, std::string header, SyncMarker sync);
  Status FlushBlock();

  ContainerWriterOptions options_;
  BlockCodec codec_;
  SyncMarker sync_;
  std::string file_;
  std::string block_;
  std::string compressed_;
  Encoder encoder_;
  size_t datum_start_ = 0;
  size_t header_size_ = 0;
  int64_t blocks_ = 0;
  int64_t block_count_ = 0;  // datums in the current block
  bool finished_ = false;
};

}  // namespace skade::avro
