#include "common/bench_options.h"

#include <algorithm>
#include <cstdio>

namespace skade::bench {

namespace {

std::string Numbered(const char* prefix, int digits, int value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%s%0*d", prefix, digits, value);
  return buffer;
}

}  // namespace

void BenchOptions::AddTo(CLI::App& app) {
  app.add_option("--run-id", run_id, "Run id shared by every record of one run");
  app.add_option("--tables", tables, "Tables in the benchmark catalog")->check(CLI::PositiveNumber);
  app.add_option("--tables-per-namespace", tables_per_namespace, "Tables per namespace")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "N of the multi-threaded scenarios")
      ->check(CLI::PositiveNumber);
  app.add_option("--ops", ops, "Timed ops per read scenario (upper bound)");
  app.add_option("--commit-ops", commit_ops, "Timed ops per write scenario (upper bound)");
  app.add_option("--seconds", seconds, "Time bound of one scenario");
  app.add_option("--warmup", warmup, "Untimed ops per thread before a read scenario");
  app.add_option("--scenarios", scenarios, "Run only these scenarios (default: all)")
      ->delimiter(',');
  app.add_option("--server-pid", server_pid,
                 "The catalog server's pid on this machine: records give its CPU per op");
}

bool BenchOptions::Runs(const std::string& scenario, const std::string& variant) const {
  return scenarios.empty() ||
         std::find(scenarios.begin(), scenarios.end(), scenario) != scenarios.end() ||
         std::find(scenarios.begin(), scenarios.end(), scenario + "/" + variant) != scenarios.end();
}

spec::Namespace BenchOptions::PopulationNamespace(int index) const {
  return {Numbered("bench_ns", 3, (index % tables) / tables_per_namespace)};
}

spec::TableIdentifier BenchOptions::PopulationTable(int index) const {
  return {PopulationNamespace(index), Numbered("t", 5, index % tables)};
}

}  // namespace skade::bench
