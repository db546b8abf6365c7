// When a file was made, for tests that tell a file made ahead of need
// (io/spare_files.h) from one created by the call under test.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <optional>
#include <string>

namespace skade::testing {

/// The birth time of `path`, by the coarse clock the file system stamps
/// files with; nullopt where the file system keeps none.
inline std::optional<std::chrono::nanoseconds> BirthTime(const std::string& path) {
  struct statx stx;
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_BTIME, &stx) != 0) return std::nullopt;
  if (!(stx.stx_mask & STATX_BTIME)) return std::nullopt;
  return std::chrono::seconds(stx.stx_btime.tv_sec) +
         std::chrono::nanoseconds(stx.stx_btime.tv_nsec);
}

/// Now, by that clock.
inline std::chrono::nanoseconds CoarseNow() {
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace skade::testing
