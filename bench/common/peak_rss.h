// The process's peak resident set, for the benchmark records' peak_rss_mb.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace skade::bench {

/// VmHWM of /proc/self/status in KiB; 0 where it cannot be read.
inline int64_t PeakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return 0;
}

}  // namespace skade::bench
