// Arrow's decimal128 slots (16 little-endian bytes) as the 128-bit
// unscaled values of spec/decimal_internal.h.
#pragma once

#include <cstdint>
#include <cstring>

#include "skade/spec/decimal_internal.h"

namespace skade::data {

using spec::FromBigEndian;
using spec::Int128;
using spec::MinimalBigEndian;

/// The value of one Arrow decimal128 slot (16 little-endian bytes).
inline Int128 FromArrowDecimal128(const uint8_t* bytes) {
  Int128 value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

}  // namespace skade::data
