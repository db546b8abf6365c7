#include "skade/util/zstd.h"

#include <zstd.h>

#include <algorithm>
#include <memory>

#include "skade/util/strings.h"

namespace skade {

namespace {

// First guess for output of unknown size; grown by doubling up to the limit.
constexpr size_t kMinOutputGuess = 64 * 1024;

struct ContextDeleter {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

// Contexts hold ~1 MB of tables each: one per thread, reused.
ZSTD_CCtx* ThreadCompressor() {
  thread_local std::unique_ptr<ZSTD_CCtx, ContextDeleter> context(ZSTD_createCCtx());
  return context.get();
}

ZSTD_DCtx* ThreadDecompressor() {
  thread_local std::unique_ptr<ZSTD_DCtx, ContextDeleter> context(ZSTD_createDCtx());
  return context.get();
}

tl::unexpected<Error> TooLarge(size_t max_size) {
  return Corruption("Decompressed zstd data is larger than the limit of ", max_size, " bytes");
}

// zstd's smallest window, and the largest its decoders accept by default
// (ZSTD_WINDOWLOG_ABSOLUTEMIN and ZSTD_WINDOWLOG_LIMIT_DEFAULT, which zstd.h
// exports only to static linking).
constexpr int kMinWindowLog = 10;
constexpr int kMaxWindowLog = 27;

// The window a frame needs to reach back over a prefix of `prefix_size`
// bytes from anywhere in `data_size` bytes, within kMaxWindowLog (which
// bounds how far a prefix helps).
int WindowLogFor(size_t prefix_size, size_t data_size) {
  int log = kMinWindowLog;
  while (log < kMaxWindowLog && (size_t{1} << log) < prefix_size + data_size) ++log;
  return log;
}

std::string Compress(std::string_view data, std::string_view prefix, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  ZSTD_CCtx* context = ThreadCompressor();
  ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1);
  if (!prefix.empty()) {
    ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, WindowLogFor(prefix.size(), data.size()));
    ZSTD_CCtx_refPrefix(context, prefix.data(), prefix.size());
  }
  size_t size = ZSTD_compress2(context, out.data(), out.size(), data.data(), data.size());
  // Only a too-small output buffer fails, and ZSTD_compressBound rules it out.
  out.resize(ZSTD_isError(size) ? 0 : size);
  return out;
}

Result<std::string> Decompress(std::string_view data, std::string_view prefix, size_t max_size) {
  ZSTD_DCtx* context = ThreadDecompressor();
  if (context == nullptr) return InternalError("Cannot create a zstd decompressor");
  ZSTD_DCtx_reset(context, ZSTD_reset_session_only);
  // A prefix lasts for one frame; a frame that holds more than one is not ours.
  if (!prefix.empty()) ZSTD_DCtx_refPrefix(context, prefix.data(), prefix.size());
  unsigned long long content_size = ZSTD_getFrameContentSize(data.data(), data.size());
  size_t capacity = std::min(max_size, std::max(kMinOutputGuess, data.size() * 8));
  if (content_size != ZSTD_CONTENTSIZE_UNKNOWN && content_size != ZSTD_CONTENTSIZE_ERROR) {
    if (content_size > max_size) return TooLarge(max_size);
    capacity = std::max<size_t>(content_size, 1);
  }
  std::string out(capacity, '\0');
  ZSTD_inBuffer input{data.data(), data.size(), 0};
  size_t produced = 0;
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= max_size) return TooLarge(max_size);
      out.resize(std::min(max_size, out.size() * 2));
    }
    ZSTD_outBuffer output{out.data(), out.size(), produced};
    size_t hint = ZSTD_decompressStream(context, &output, &input);
    if (ZSTD_isError(hint)) return Corruption("Invalid zstd data: ", ZSTD_getErrorName(hint));
    produced = output.pos;
    bool input_done = input.pos == input.size;
    if (input_done && hint == 0) break;
    // Out of input mid-frame while the output still had room: truncated.
    if (input_done && output.pos < output.size) return Corruption("Truncated zstd data");
  }
  out.resize(produced);
  return out;
}

}  // namespace

std::string ZstdCompress(std::string_view data, int level) { return Compress(data, {}, level); }

std::string ZstdCompressWithPrefix(std::string_view data, std::string_view prefix, int level) {
  return Compress(data, prefix, level);
}

Result<std::string> ZstdDecompress(std::string_view data, size_t max_size) {
  return Decompress(data, {}, max_size);
}

Result<std::string> ZstdDecompressWithPrefix(std::string_view data, std::string_view prefix,
                                             size_t max_size) {
  return Decompress(data, prefix, max_size);
}

}  // namespace skade
