// skade_rest_bench: the REST load generator of `make bench`, for skade-rest,
// iceberg-rest-fixture and nessie alike. `--phase populate` creates the benchmark
// catalog; scripts/bench.sh then restarts the server (cold caches) and runs
// `--phase measure`, which runs every scenario and prints one JSON line each.
// With --rebase-peer (skade serve only) the commit scenarios also run, case by
// case in turn, on tables created with skade.commit.rebase-appends=false: the
// records say `"rebase": "on"` / `"off"`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <vector>

#include "common/scenario_plan.h"
#include "rest/rest_target.h"

int main(int argc, char** argv) {
  skade::bench::BenchOptions options;
  skade::bench::RestTargetOptions target_options;
  std::string phase;
  bool rebase_peer = false;
  CLI::App app("Iceberg REST catalog load generator (bench/README.md)");
  options.AddTo(app);
  app.add_option("--uri", target_options.uri, "http://127.0.0.1:PORT[/MOUNT]")->required();
  app.add_option("--target", target_options.name, "Target name in the records")->required();
  app.add_option("--durability", target_options.durability, "Durability label")->required();
  app.add_option("--write-notes", target_options.write_notes, "Note for write records");
  app.add_option("--phase", phase, "populate | measure")
      ->required()
      ->check(CLI::IsMember({"populate", "measure"}));
  app.add_flag("--rebase-peer", rebase_peer,
               "skade only: also run the commit scenarios with the server-side rebase of "
               "appends off");
  CLI11_PARSE(app, argc, argv);

  if (rebase_peer) target_options.rebase = "on";
  auto target = skade::bench::RestTarget::Connect(target_options);
  if (!target) {
    std::cerr << "skade_rest_bench: " << target.error().ToString() << "\n";
    return 1;
  }
  if (phase == "populate") {
    if (auto status = skade::bench::Populate(**target, options); !status) {
      std::cerr << "skade_rest_bench: populate: " << status.error().ToString() << "\n";
      return 1;
    }
    std::cerr << target_options.name << ": " << options.tables << " tables created\n";
    return 0;
  }
  std::vector<skade::bench::CatalogTarget*> commit_peers;
  std::unique_ptr<skade::bench::RestTarget> rebase_off;
  if (rebase_peer) {
    target_options.rebase = "off";
    auto peer = skade::bench::RestTarget::Connect(target_options);
    if (!peer) {
      std::cerr << "skade_rest_bench: " << peer.error().ToString() << "\n";
      return 1;
    }
    rebase_off = std::move(*peer);
    commit_peers.push_back(rebase_off.get());
  }
  skade::bench::RunScenarios(**target, commit_peers, options, std::cout);
  return 0;
}
