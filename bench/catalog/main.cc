// skade_catalog_bench: the skade-embedded target of `make bench`. Populates a
// fresh catalog in --warehouse, reopens it (cold caches) at --durability and
// runs every scenario with group commit on; the commit scenarios also run,
// case by case in turn, on a second catalog with group commit off. One JSON
// line per scenario on stdout.
#include <unistd.h>

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
  const std::string main_warehouse = warehouse + "/catalog";
  // Group commit off gets its own warehouse so both catalogs can be open at once and the commit
  // cases alternate between them.
  const std::string off_warehouse = warehouse + "/catalog-group-commit-off";
  {
    // Populating is not measured: skip the fsyncs (a clean close syncs the store).
    SKADE_ASSIGN_OR_RAISE(auto target,
                          EmbeddedTarget::Open(main_warehouse, store::Durability::kNone, {}));
    SKADE_RETURN_NOT_OK(Populate(*target, options));
    SKADE_ASSIGN_OR_RAISE(auto off,
                          EmbeddedTarget::Open(off_warehouse, store::Durability::kNone, {}));
    SKADE_ASSIGN_OR_RAISE(auto session, off->NewSession());
    SKADE_RETURN_NOT_OK(session->CreateNamespace({kCommitNamespace}));
    std::cerr << "skade-embedded: " << options.tables << " tables created\n";
  }
  // The populate's metadata files are written out before measuring, as every driver does
  // (bench/README.md): the kernel's writeback of them would otherwise take a core from the first
  // scenarios.
  ::sync();
  SKADE_ASSIGN_OR_RAISE(auto on, EmbeddedTarget::Open(main_warehouse, durability, true));
  SKADE_ASSIGN_OR_RAISE(auto off, EmbeddedTarget::Open(off_warehouse, durability, false));
  RunScenarios(*on, {off.get()}, options, std::cout);
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
