// Wall-clock time as Iceberg records it.
#pragma once

#include <chrono>
#include <cstdint>

namespace skade {

/// Milliseconds since the Unix epoch.
inline int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Microseconds on a monotonic clock, for measuring durations.
inline int64_t MonotonicMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace skade
