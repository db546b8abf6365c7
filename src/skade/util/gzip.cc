#include "skade/util/gzip.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <memory>

namespace skade {

namespace {

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

uint32_t TrailerSize(std::string_view data) {
  // The gzip trailer's ISIZE field: the uncompressed size modulo 2^32.
  auto p = reinterpret_cast<const uint8_t*>(data.data() + data.size() - 4);
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace

bool IsGzip(std::string_view data) {
  return data.size() >= 2 && static_cast<uint8_t>(data[0]) == 0x1f &&
         static_cast<uint8_t>(data[1]) == 0x8b;
}

Result<std::string> Gunzip(std::string_view data, size_t max_bytes) {
  if (!IsGzip(data) || data.size() < 18) return Corruption("not a gzip stream");
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> decompressor(
      libdeflate_alloc_decompressor());
  // The trailer of a corrupt or truncated stream is garbage: trusting it
  // could mean a 4 GiB allocation. Deflate never expands more than 1032:1,
  // so the clamp cannot cut a valid member short.
  constexpr size_t kMaxDeflateRatio = 1032;
  size_t capacity = std::min<size_t>(TrailerSize(data), data.size() * kMaxDeflateRatio);
  if (capacity == 0) capacity = data.size() * 4;
  capacity = std::min(capacity, max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string member_out;
    std::string result;
    std::string_view rest = data;
    bool too_small = false;
    while (!rest.empty()) {
      member_out.resize(capacity);
      size_t in_used = 0;
      size_t out_used = 0;
      auto status =
          libdeflate_gzip_decompress_ex(decompressor.get(), rest.data(), rest.size(),
                                        member_out.data(), member_out.size(), &in_used, &out_used);
      if (status == LIBDEFLATE_INSUFFICIENT_SPACE) {
        too_small = true;
        break;
      }
      if (status != LIBDEFLATE_SUCCESS) return Corruption("corrupt gzip stream");
      result.append(member_out.data(), out_used);
      if (result.size() > max_bytes) {
        return InvalidArgument("gzip stream expands beyond ", max_bytes, " bytes");
      }
      rest.remove_prefix(in_used);
      // Padding after the last member is tolerated, as gzip(1) does.
      if (!IsGzip(rest)) break;
    }
    if (!too_small) return result;
    if (capacity > max_bytes) {
      return InvalidArgument("gzip stream expands beyond ", max_bytes, " bytes");
    }
    capacity = std::min(capacity * 4, max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1);
  }
  return Corruption("gzip stream expands beyond the supported size");
}

std::string Gzip(std::string_view data, int level) {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(level);
  std::string out(libdeflate_gzip_compress_bound(compressor, data.size()), '\0');
  size_t size =
      libdeflate_gzip_compress(compressor, data.data(), data.size(), out.data(), out.size());
  libdeflate_free_compressor(compressor);
  out.resize(size);
  return out;
}

}  // namespace skade
