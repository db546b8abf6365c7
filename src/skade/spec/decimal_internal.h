// Unscaled decimal values as 128-bit integers, and their Iceberg byte form
// (minimal big-endian two's complement: spec Appendix D, and the bucket
// hash of Appendix B).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace skade::spec {

__extension__ typedef __int128 Int128;

/// The minimal big-endian two's complement bytes of `value` (at least one).
inline std::string MinimalBigEndian(Int128 value) {
  unsigned char bytes[16];
  auto bits = static_cast<unsigned __int128>(value);
  for (int i = 15; i >= 0; --i) {
    bytes[i] = static_cast<unsigned char>(bits & 0xFF);
    bits >>= 8;
  }
  // Drop leading bytes that only repeat the sign of the byte after them.
  int start = 0;
  while (start < 15) {
    bool redundant = (bytes[start] == 0x00 && (bytes[start + 1] & 0x80) == 0) ||
                     (bytes[start] == 0xFF && (bytes[start + 1] & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(bytes + start), 16 - start);
}

/// Sign-extends big-endian two's complement bytes (at most 16).
inline Int128 FromBigEndian(std::string_view bytes) {
  if (bytes.empty()) return 0;
  unsigned __int128 bits =
      (static_cast<unsigned char>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (unsigned char byte : bytes) bits = (bits << 8) | byte;
  return static_cast<Int128>(bits);
}

}  // namespace skade::spec
