// One benchmark record: a JSON line with the fields bench/README.md "Records"
// fixes (target, scenario, threads, ops, ops_per_sec, p50_us, p99_us,
// p999_us, run_id) plus variant, catalog_tables, durability, group_commit,
// rebase, notes; for write scenarios conflicts, retries, failures (commit:
// also commits_per_sec); for each op kind of a mixed scenario
// <kind>_ops, <kind>_p50_us, <kind>_p99_us, <kind>_p999_us; a scenario's own
// numbers (BenchRecord::numbers) — or `error` when the scenario failed.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

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
  std::string rebase;        // write scenarios: "on" / "off" (server rebases refused appends) or ""
  bool write = false;        // a write scenario: conflicts, retries and failures are written
  uint64_t conflicts = 0;    // commit attempts lost to a concurrent commit (REST: 409s)
  uint64_t retries = 0;      // attempts made again after a conflict
  uint64_t failures = 0;     // appends given up after the client's last retry
  /// Names of the measurement's op kinds (Measurement::kind_latencies_ns), e.g. {"read", "commit"}.
  std::vector<std::string> kinds;
  /// Fields of the scenario's own (e.g. ns_per_key), written after the common ones when
  /// the scenario was measured.
  std::vector<std::pair<std::string, double>> numbers;
  std::string notes;
};

/// Writes `record` with `measurement`'s numbers (or its error) as one line and
/// flushes, so a crash later in the run keeps what was measured.
void WriteRecord(std::ostream& out, const BenchOptions& options, const BenchRecord& record,
                 const Result<Measurement>& measurement);

}  // namespace skade::bench
