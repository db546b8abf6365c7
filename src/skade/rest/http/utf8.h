// Making client-supplied bytes safe to put into a JSON response.
#pragma once

#include <string>
#include <string_view>

namespace skade::rest {

/// `text` with every byte that does not begin a well-formed UTF-8 sequence
/// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF)
/// replaced by U+FFFD. Valid text comes back unchanged.
std::string ToValidUtf8(std::string_view text);

}  // namespace skade::rest
