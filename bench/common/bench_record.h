// One benchmark record: a JSON line with the fields bench/README.md "Records"
// fixes (target, scenario, threads, ops, ops_per_sec, p50_us, p99_us,
// p999_us, run_id) plus variant, catalog_tables, durability, group_commit,
// conflicts, notes — or `error` when the scenario failed.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "common/bench_options.h"
#include "common/measure.h"

namespace skade::bench {

struct BenchRecord {
  std::string target;
  std::string scenario;
  std::string variant;  // e.g. "same_table"; empty when the scenario has one form
  int threads = 1;
  std::string durability;
  std::string group_commit;  // "on" / "off"; omitted when empty
  uint64_t conflicts = 0;    // commit retries after losing to a concurrent commit
  std::string notes;
};

/// Writes `record` with `measurement`'s numbers (or its error) as one line and
/// flushes, so a crash later in the run keeps what was measured.
void WriteRecord(std::ostream& out, const BenchOptions& options, const BenchRecord& record,
                 const Result<Measurement>& measurement);

}  // namespace skade::bench
