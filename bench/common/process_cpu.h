// CPU time a process has used (user + system, all its threads), to say how
// much of a 2-core machine the load generator itself takes from the catalog
// it measures.
#pragma once

#include <optional>

namespace skade::bench {

/// Seconds of CPU used so far by process `pid` (0: this process), or nullopt
/// when it cannot be read (no such process).
std::optional<double> ProcessCpuSeconds(int pid);

}  // namespace skade::bench
