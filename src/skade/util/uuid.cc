#include "skade/util/uuid.h"

#include <cctype>

#include "skade/util/random.h"

namespace skade {

std::string NewUuid() {
  static constexpr char kHex[] = "0123456789abcdef";
  uint8_t bytes[16];
  uint64_t hi = RandomU64();
  uint64_t lo = RandomU64();
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  bytes[6] = (bytes[6] & 0x0F) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3F) | 0x80;  // RFC 4122 variant
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xF]);
  }
  return out;
}

bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace skade
