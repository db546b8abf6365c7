// What a process has used so far: CPU time (user + system, all its threads),
// to say how much of a 2-core machine the load generator itself takes from
// the catalog it measures; and bytes it sent to storage, to set a write
// scenario against the disk's bandwidth.
#pragma once

#include <cstdint>
#include <optional>

namespace skade::bench {

/// Seconds of CPU used so far by process `pid` (0: this process), or nullopt
/// when it cannot be read (no such process).
std::optional<double> ProcessCpuSeconds(int pid);

/// Bytes process `pid` (0: this process) caused to be written to storage so
/// far: /proc/<pid>/io `write_bytes`, counted when a page is first dirtied
/// (a file written and then deleted before write-back still counts). nullopt
/// when it cannot be read.
std::optional<uint64_t> ProcessWriteBytes(int pid);

}  // namespace skade::bench
