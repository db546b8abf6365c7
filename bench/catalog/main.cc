// skade_catalog_bench: the skade-embedded target of `make bench`. Populates a
// fresh catalog in --warehouse, reopens it (cold caches) at --durability, runs
// every scenario with group commit on, then reopens it with group commit off
// and runs the commit scenarios again. One JSON line per scenario on stdout.
#include <CLI/CLI.hpp>
#include <iostream>

#include "catalog/embedded_target.h"
#include "common/scenario_plan.h"
#include "skade/util/strings.h"

namespace skade::bench {
namespace {

Status RunBench(const BenchOptions& options, const std::string& warehouse,
                const std::string& durability_name) {
  SKADE_ASSIGN_OR_RAISE(auto durability, store::ParseDurability(durability_name));
  {
    // Populating is not measured: skip the fsyncs (a clean close syncs the store).
    SKADE_ASSIGN_OR_RAISE(auto target,
                          EmbeddedTarget::Open(warehouse, store::Durability::kNone, std::nullopt));
    SKADE_RETURN_NOT_OK(Populate(*target, options));
    std::cerr << "skade-embedded: " << options.tables << " tables created\n";
  }
  {
    SKADE_ASSIGN_OR_RAISE(auto target, EmbeddedTarget::Open(warehouse, durability, true));
    RunScenarios(*target, options, ScenarioSet::kAll, "gc_on_", std::cout);
  }
  SKADE_ASSIGN_OR_RAISE(auto target, EmbeddedTarget::Open(warehouse, durability, false));
  RunScenarios(*target, options, ScenarioSet::kCommits, "gc_off_", std::cout);
  return OkStatus();
}

}  // namespace
}  // namespace skade::bench

int main(int argc, char** argv) {
  skade::bench::BenchOptions options;
  std::string warehouse;
  std::string durability = "immediate";
  CLI::App app("skade-embedded catalog benchmark (bench/README.md)");
  options.AddTo(app);
  app.add_option("--warehouse", warehouse, "Fresh warehouse directory")->required();
  app.add_option("--durability", durability, "immediate | eventual | none (measured scenarios)");
  CLI11_PARSE(app, argc, argv);
  auto status = skade::bench::RunBench(options, warehouse, durability);
  if (!status) {
    std::cerr << "skade_catalog_bench: " << status.error().ToString() << "\n";
    return 1;
  }
  return 0;
}
