#include "skade/util/random.h"

#include <random>

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

}  // namespace skade
