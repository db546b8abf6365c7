#include "common/process_usage.h"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace skade::bench {

std::optional<double> ProcessCpuSeconds(int pid) {
  // The process's CPU-time clock counts nanoseconds (/proc's stat counts
  // 10 ms ticks, too coarse for a short scenario).
  clockid_t clock;
  if (clock_getcpuclockid(pid == 0 ? getpid() : pid, &clock) != 0) return std::nullopt;
  timespec used{};
  if (clock_gettime(clock, &used) != 0) return std::nullopt;
  return static_cast<double>(used.tv_sec) + static_cast<double>(used.tv_nsec) / 1e9;
}

std::optional<uint64_t> ProcessWriteBytes(int pid) {
  std::ifstream io(pid == 0 ? std::string("/proc/self/io")
                            : "/proc/" + std::to_string(pid) + "/io");
  std::string key;
  uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "write_bytes:") return value;
  }
  return std::nullopt;
}

}  // namespace skade::bench
