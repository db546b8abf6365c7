#include "skade/spec/bucket_hash.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "skade/spec/temporal_internal.h"

namespace skade::spec {

namespace {

static_assert(std::endian::native == std::endian::little, "hashes read little-endian words");

constexpr uint32_t kC1 = 0xcc9e2d51;
constexpr uint32_t kC2 = 0x1b873593;

uint32_t MixK(uint32_t k) {
  k *= kC1;
  k = std::rotl(k, 15);
  return k * kC2;
}

uint32_t FinalMix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

}  // namespace

int32_t Murmur3X86Hash32(std::string_view bytes, uint32_t seed) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t blocks = bytes.size() / 4;
  uint32_t h = seed;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k;
    std::memcpy(&k, data + 4 * i, 4);
    h ^= MixK(k);
    h = std::rotl(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  const uint8_t* tail = data + 4 * blocks;
  uint32_t k = 0;
  switch (bytes.size() & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      h ^= MixK(k);
  }
  h ^= static_cast<uint32_t>(bytes.size());
  return static_cast<int32_t>(FinalMix(h));
}

int32_t BucketHashInt(int32_t value) { return BucketHashLong(value); }

int32_t BucketHashLong(int64_t value) {
  char bytes[8];
  std::memcpy(bytes, &value, 8);
  return Murmur3X86Hash32(std::string_view(bytes, 8));
}

int32_t BucketHashTimestampNanos(int64_t nanos) { return BucketHashLong(FloorDiv(nanos, 1000)); }

int32_t BucketHashBytes(std::string_view bytes) { return Murmur3X86Hash32(bytes); }

int32_t BucketHashBoolean(bool value) { return BucketHashInt(value ? 1 : 0); }

int32_t BucketHashFloat(float value) { return BucketHashDouble(static_cast<double>(value)); }

int32_t BucketHashDouble(double value) {
  int64_t bits;
  if (std::isnan(value)) {
    bits = 0x7ff8000000000000LL;
  } else {
    if (value == 0.0) value = 0.0;  // -0.0 hashes as 0.0
    std::memcpy(&bits, &value, 8);
  }
  return BucketHashLong(bits);
}

}  // namespace skade::spec
