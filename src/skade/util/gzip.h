// gzip decompression (libdeflate), for `.metadata.json.gz` and gzipped
// manifest lists.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade {

/// True if `data` starts with the gzip magic bytes.
bool IsGzip(std::string_view data);

/// Inflates a complete gzip member (or several concatenated members).
/// Errors are kCorruption; output beyond `max_bytes` (a bomb) is
/// kInvalidArgument.
Result<std::string> Gunzip(std::string_view data, size_t max_bytes = SIZE_MAX);

/// Compresses `data` as one gzip member at `level` (1-12).
std::string Gzip(std::string_view data, int level = 6);

}  // namespace skade
