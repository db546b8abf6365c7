// Random numbers: fast ones for identifiers, and the OS CSPRNG for secrets.
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "skade/util/result.h"

namespace skade {

/// 64 random bits from a per-thread generator seeded from the OS. Fast and
/// unpredictable enough for identifiers, but not for secrets: its state can
/// be recovered from its output.
uint64_t RandomU64();

/// A random positive 63-bit id, as Iceberg uses for snapshot ids.
int64_t NewSnapshotId();

/// Fills `out` with `size` bytes from the kernel's CSPRNG (getrandom(2)), for
/// tokens, keys and anything else secret. Blocks only before the kernel's pool
/// is first initialized (early boot). kIo if the kernel refuses, which a Linux
/// since 3.17 does not do.
Status SecureRandomBytes(void* out, size_t size);

/// `bytes` bytes from SecureRandomBytes as lowercase hex: bearer tokens,
/// scan plan ids, anything a client must not guess. Errors as there.
Result<std::string> SecureRandomHex(size_t bytes);

}  // namespace skade
