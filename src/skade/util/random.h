// Thread-safe random numbers for identifiers.
#pragma once

#include <cstdint>

namespace skade {

/// 64 random bits from a per-thread generator seeded from the OS.
uint64_t RandomU64();

/// A random positive 63-bit id, as Iceberg uses for snapshot ids.
int64_t NewSnapshotId();

}  // namespace skade
