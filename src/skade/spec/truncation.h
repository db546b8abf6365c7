// Truncating strings and binary values: the truncate[W] transform and the
// truncated lower/upper bounds of metrics mode truncate(N).
//
// Strings are UTF-8 and cut at code-point boundaries; binary values at
// bytes. A truncated upper bound must still be >= every value it covers, so
// its last unit is incremented (code points skip the surrogate range
// U+D800..U+DFFF); when no unit can be incremented (all U+10FFFF or 0xFF)
// there is no upper bound. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skade::spec {

/// The first `code_points` code points of `text` (all of it if shorter).
/// Bytes that are not valid UTF-8 count as one code point each.
std::string_view TruncateUtf8(std::string_view text, int32_t code_points);

/// The smallest value of at most `code_points` code points that is >= every
/// string starting with TruncateUtf8(text, code_points); `text` itself when
/// it is short enough; nullopt if none exists.
std::optional<std::string> TruncateUtf8UpperBound(std::string_view text, int32_t code_points);

/// The first `length` bytes of `bytes` (all of them if shorter).
std::string_view TruncateBinary(std::string_view bytes, int32_t length);

/// As TruncateUtf8UpperBound, in bytes.
std::optional<std::string> TruncateBinaryUpperBound(std::string_view bytes, int32_t length);

}  // namespace skade::spec
