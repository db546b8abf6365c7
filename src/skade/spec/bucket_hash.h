// Iceberg's 32-bit hash for the bucket transform (spec: "Appendix B: 32-bit
// Hash Requirements"): Murmur3, x86 32-bit variant, seed 0, over a canonical
// byte form of each value, so every Iceberg implementation puts a value in
// the same bucket.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace skade::spec {

/// Murmur3 x86_32 of `bytes` with `seed`.
int32_t Murmur3X86Hash32(std::string_view bytes, uint32_t seed = 0);

/// int, date: hashed as the equal long, so promoting int to long keeps buckets.
int32_t BucketHashInt(int32_t value);
/// long, time, timestamp(tz) (µs): the 8 little-endian bytes. Nanosecond
/// timestamps are hashed after floor-dividing to microseconds (see
/// BucketHashTimestampNanos).
int32_t BucketHashLong(int64_t value);
int32_t BucketHashTimestampNanos(int64_t nanos);
/// string (UTF-8 bytes), binary, fixed, uuid (16 big-endian bytes), decimal
/// (minimal big-endian two's complement of the unscaled value).
int32_t BucketHashBytes(std::string_view bytes);
/// Not bucketable today; the spec defines them for the future: booleans as
/// int 0/1, floats as the equal double, doubles by their IEEE bits with NaN
/// canonicalized and -0.0 as 0.0.
int32_t BucketHashBoolean(bool value);
int32_t BucketHashFloat(float value);
int32_t BucketHashDouble(double value);

/// The bucket of a hash: (hash & INT32_MAX) % buckets. `buckets` > 0.
inline int32_t BucketOf(int32_t hash, int32_t buckets) { return (hash & 0x7FFFFFFF) % buckets; }

}  // namespace skade::spec
