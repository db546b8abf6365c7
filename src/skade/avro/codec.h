// Block compression codecs of Avro object container files (Avro 1.11 spec:
// "Required Codecs", "Optional Codecs").
//
// `deflate` is raw RFC 1951 deflate without a zlib or gzip wrapper
// (libdeflate); `zstandard` is one or more Zstandard frames per block
// (libzstd; frames without a content size, as Java's streaming writer makes
// them, are read too); `snappy` is one raw Snappy block followed by the
// big-endian CRC32 of the uncompressed bytes (libsnappy). Other codecs
// (bzip2, xz) are kUnsupported.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade::avro {

enum class Codec { kNull, kDeflate, kZstandard, kSnappy };

/// The `avro.codec` metadata value: "null", "deflate", "zstandard", "snappy".
std::string_view CodecName(Codec codec);

/// Parses an `avro.codec` value. Iceberg's property spellings "gzip" and
/// "zstd" are accepted too. A known but unimplemented codec is kUnsupported;
/// anything else is kInvalidArgument.
Result<Codec> ParseCodec(std::string_view name);

/// Compresses and decompresses blocks with one codec. The compression
/// contexts are the calling thread's, reused across blocks and files.
class BlockCodec {
 public:
  /// `level` is the codec's compression level (deflate 0-12, zstandard
  /// 1-22; snappy has none), or kDefaultLevel for the codec's default.
  static constexpr int kDefaultLevel = -1;

  BlockCodec(Codec codec, int level);

  Codec codec() const { return codec_; }

  /// Replaces `*out` with the compressed form of `data`. Errors are kInternal.
  Status Compress(std::string_view data, std::string* out);

  /// Replaces `*out` with the decompressed form of `data`. Output larger
  /// than `max_size` bytes, or malformed input, is kCorruption.
  Status Decompress(std::string_view data, size_t max_size, std::string* out);

 private:
  Codec codec_;
  int level_;
};

}  // namespace skade::avro
