// The partition transforms on raw values (the representations of literal.h:
// int and date as int32 days, long, time and timestamps as int64 µs or ns,
// decimals as 128-bit unscaled values, strings and bytes as bytes).
// Transform::Apply (one Literal) and data/transform_array.h (Arrow arrays)
// both compute through these, so a value lands in the same partition
// whichever path wrote it. Bucket hashes are in bucket_hash.h, string and
// binary truncation in truncation.h, years and months of a day count in
// temporal_internal.h. Pure; thread-safe.
#pragma once

#include <cstdint>

#include "skade/spec/decimal_internal.h"
#include "skade/spec/temporal_internal.h"

namespace skade::spec::internal {

/// truncate[W] of an int: v - (v mod W) with a non-negative mod, wrapping
/// like Java's int arithmetic at the bottom of the range.
inline int32_t TruncateInt(int32_t value, int32_t width) {
  int64_t v = value;
  return static_cast<int32_t>(v - (((v % width) + width) % width));
}

/// truncate[W] of a long, wrapping like Java's long arithmetic.
inline int64_t TruncateLong(int64_t value, int32_t width) {
  int64_t remainder = ((value % width) + width) % width;
  return static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(remainder));
}

/// truncate[W] of a decimal's unscaled value.
inline Int128 TruncateDecimal(Int128 unscaled, int32_t width) {
  return unscaled - (((unscaled % width) + width) % width);
}

/// Nanosecond timestamps enter the time transforms and the bucket hash as
/// microseconds, floored.
inline int64_t MicrosFromNanos(int64_t nanos) { return FloorDiv(nanos, 1000); }

/// day of a timestamp in µs: days since 1970-01-01, floored.
inline int32_t DayFromMicros(int64_t micros) {
  return static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay));
}

/// hour of a timestamp in µs: hours since 1970-01-01T00:00, floored.
inline int32_t HourFromMicros(int64_t micros) {
  return static_cast<int32_t>(FloorDiv(micros, kMicrosPerHour));
}

}  // namespace skade::spec::internal
