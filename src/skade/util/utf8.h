// UTF-8 encoding of Unicode code points.
#pragma once

#include <cstdint>
#include <string>

namespace skade {

/// Appends the UTF-8 encoding of `code_point` (at most 0x10FFFF; the caller
/// rejects surrogates if it must) to `out`.
void AppendUtf8(uint32_t code_point, std::string* out);

}  // namespace skade
