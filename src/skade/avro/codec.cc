#include "skade/avro/codec.h"

#include <libdeflate.h>
#include <snappy.h>

#include <algorithm>
#include <array>
#include <memory>

#include "skade/util/strings.h"
#include "skade/util/zstd.h"

namespace skade::avro {

namespace {

constexpr int kDefaultDeflateLevel = 6;
constexpr int kDefaultZstdLevel = 3;
// First guess for a decompressed block; grown by doubling up to the limit.
constexpr size_t kMinOutputGuess = 64 * 1024;

size_t FirstOutputGuess(size_t input_size, size_t max_size) {
  return std::min(max_size, std::max(kMinOutputGuess, input_size * 8));
}

tl::unexpected<Error> TooLarge(size_t max_size) {
  return Corruption("Decompressed Avro block is larger than the limit of ", max_size, " bytes");
}

// Avro's snappy blocks end with the CRC32 (big-endian) of what they hold.
constexpr size_t kSnappyChecksumBytes = 4;

struct DeflateDeleter {
  void operator()(libdeflate_compressor* compressor) const {
    libdeflate_free_compressor(compressor);
  }
  void operator()(libdeflate_decompressor* decompressor) const {
    libdeflate_free_decompressor(decompressor);
  }
};

// A compressor holds hundreds of KB of tables, which a fresh one faults in
// page by page: a commit writing a small manifest paid more for that than
// for compressing. One per thread and level, reused (as util/zstd.cc does).
constexpr int kMaxDeflateLevel = 12;

libdeflate_compressor* ThreadDeflateCompressor(int level) {
  thread_local std::array<std::unique_ptr<libdeflate_compressor, DeflateDeleter>,
                          kMaxDeflateLevel + 1>
      compressors;
  if (level < 0 || level > kMaxDeflateLevel) return nullptr;
  auto& compressor = compressors[static_cast<size_t>(level)];
  if (!compressor) compressor.reset(libdeflate_alloc_compressor(level));
  return compressor.get();
}

libdeflate_decompressor* ThreadDeflateDecompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DeflateDeleter> decompressor(
      libdeflate_alloc_decompressor());
  return decompressor.get();
}

uint32_t Crc32(std::string_view data) { return libdeflate_crc32(0, data.data(), data.size()); }

void AppendBigEndian32(std::string* out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(value >> shift));
}

uint32_t ReadBigEndian32(std::string_view bytes) {
  uint32_t value = 0;
  for (char c : bytes) value = (value << 8) | static_cast<uint8_t>(c);
  return value;
}

}  // namespace

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kZstandard:
      return "zstandard";
    case Codec::kSnappy:
      return "snappy";
  }
  return "null";
}

Result<Codec> ParseCodec(std::string_view name) {
  if (name == "null" || name.empty()) return Codec::kNull;
  if (name == "deflate" || name == "gzip") return Codec::kDeflate;
  if (name == "zstandard" || name == "zstd") return Codec::kZstandard;
  if (name == "snappy") return Codec::kSnappy;
  if (name == "bzip2" || name == "xz" || name == "lz4") {
    return Unsupported("Avro codec not supported: ", name);
  }
  return InvalidArgument("Unknown Avro codec: ", name);
}

BlockCodec::BlockCodec(Codec codec, int level) : codec_(codec), level_(level) {}

Status BlockCodec::Compress(std::string_view data, std::string* out) {
  switch (codec_) {
    case Codec::kNull:
      out->assign(data);
      return OkStatus();
    case Codec::kDeflate: {
      libdeflate_compressor* compressor =
          ThreadDeflateCompressor(level_ == kDefaultLevel ? kDefaultDeflateLevel : level_);
      if (compressor == nullptr) {
        return InternalError("Cannot create a deflate compressor at level ", level_);
      }
      out->resize(libdeflate_deflate_compress_bound(compressor, data.size()));
      size_t size = libdeflate_deflate_compress(compressor, data.data(), data.size(), out->data(),
                                                out->size());
      if (size == 0) return InternalError("deflate compression failed");
      out->resize(size);
      return OkStatus();
    }
    case Codec::kZstandard:
      *out = ZstdCompress(data, level_ == kDefaultLevel ? kDefaultZstdLevel : level_);
      return OkStatus();
    case Codec::kSnappy:
      out->clear();
      snappy::Compress(data.data(), data.size(), out);
      AppendBigEndian32(out, Crc32(data));
      return OkStatus();
  }
  return InternalError("Unknown codec");
}

Status BlockCodec::Decompress(std::string_view data, size_t max_size, std::string* out) {
  switch (codec_) {
    case Codec::kNull:
      if (data.size() > max_size) return TooLarge(max_size);
      out->assign(data);
      return OkStatus();
    case Codec::kDeflate: {
      libdeflate_decompressor* decompressor = ThreadDeflateDecompressor();
      if (decompressor == nullptr) return InternalError("Cannot create a deflate decompressor");
      // libdeflate needs room for the whole output; the size is not stored,
      // so grow until it fits or the limit is reached.
      size_t capacity = FirstOutputGuess(data.size(), max_size);
      while (true) {
        out->resize(capacity);
        size_t actual = 0;
        libdeflate_result result = libdeflate_deflate_decompress(
            decompressor, data.data(), data.size(), out->data(), capacity, &actual);
        if (result == LIBDEFLATE_SUCCESS) {
          out->resize(actual);
          return OkStatus();
        }
        if (result != LIBDEFLATE_INSUFFICIENT_SPACE) {
          return Corruption("Invalid deflate data in Avro block");
        }
        if (capacity >= max_size) return TooLarge(max_size);
        capacity = std::min(max_size, capacity * 2);
      }
    }
    case Codec::kZstandard: {
      auto inflated = ZstdDecompress(data, max_size);
      if (!inflated) return Corruption(inflated.error().message, " in an Avro block");
      *out = std::move(*inflated);
      return OkStatus();
    }
    case Codec::kSnappy: {
      if (data.size() < kSnappyChecksumBytes) return Corruption("Truncated snappy Avro block");
      std::string_view compressed = data.substr(0, data.size() - kSnappyChecksumBytes);
      size_t size = 0;
      if (!snappy::GetUncompressedLength(compressed.data(), compressed.size(), &size)) {
        return Corruption("Invalid snappy data in Avro block");
      }
      if (size > max_size) return TooLarge(max_size);
      out->resize(size);
      if (!snappy::RawUncompress(compressed.data(), compressed.size(), out->data())) {
        return Corruption("Invalid snappy data in Avro block");
      }
      if (Crc32(*out) != ReadBigEndian32(data.substr(compressed.size()))) {
        return Corruption("Snappy Avro block does not match its checksum");
      }
      return OkStatus();
    }
  }
  return InternalError("Unknown codec");
}

}  // namespace skade::avro
