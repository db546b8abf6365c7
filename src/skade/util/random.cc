#include "skade/util/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "skade/util/error.h"

namespace skade {

uint64_t RandomU64() {
  thread_local std::mt19937_64 generator([] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }());
  return generator();
}

int64_t NewSnapshotId() {
  for (;;) {
    auto id = static_cast<int64_t>(RandomU64() >> 1);
    if (id != 0) return id;
  }
}

Status SecureRandomBytes(void* out, size_t size) {
  auto* bytes = static_cast<unsigned char*>(out);
  while (size > 0) {
    // Requests over 256 bytes may return short (and a signal may interrupt).
    const ssize_t n = ::getrandom(bytes, size, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("getrandom failed: ", std::strerror(errno));
    }
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return OkStatus();
}

Result<std::string> SecureRandomHex(size_t bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string random(bytes, '\0');
  SKADE_RETURN_NOT_OK(SecureRandomBytes(random.data(), random.size()));
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char byte : random) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 0xF]);
  }
  return hex;
}

}  // namespace skade
