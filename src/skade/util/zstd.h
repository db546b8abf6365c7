// zstd compression (libzstd) of whole buffers: the catalog store's journal
// entries and Avro's "zstandard" blocks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade {

/// Compresses `data` as one zstd frame that records its content size and a
/// checksum (so damage is found on decompression, not written out).
/// Thread-safe (each thread keeps its own compression context).
std::string ZstdCompress(std::string_view data, int level);

/// Compresses `data` as one frame that refers back into `prefix` (a zstd
/// "prefix": a previous version of the same bytes, so that what they share
/// costs a few bytes). Decompressing it needs the same prefix
/// (ZstdDecompressWithPrefix); the frame's checksum fails on any other.
/// Thread-safe.
std::string ZstdCompressWithPrefix(std::string_view data, std::string_view prefix, int level);

/// Decompresses one or more zstd frames, with or without a recorded content
/// size. Invalid or truncated data is kCorruption; output beyond
/// `max_size` bytes (a bomb) is kCorruption too, naming the limit.
/// Thread-safe.
Result<std::string> ZstdDecompress(std::string_view data, size_t max_size = SIZE_MAX);

/// Decompresses one frame of ZstdCompressWithPrefix with its `prefix`. A
/// different prefix is kCorruption (the checksum), as is invalid data.
/// Thread-safe.
Result<std::string> ZstdDecompressWithPrefix(std::string_view data, std::string_view prefix,
                                             size_t max_size = SIZE_MAX);

}  // namespace skade
