// skade_rest_bench: the REST load generator of `make bench`, for skade-rest,
// iceberg-rest-fixture and nessie alike. `--phase populate` creates the benchmark
// catalog; scripts/bench.sh then restarts the server (cold caches) and runs
// `--phase measure`, which runs every scenario and prints one JSON line each.
// With --rebase-peer (skade serve only) the commit scenarios also run, case by
// case in turn, on tables created with skade.commit.rebase-appends=false: the
// records say `"rebase": "on"` / `"off"`.
//
// Appends write their manifests through the FileIO of the table location's
// scheme (rest_target.h): local paths, or s3:// (Nessie's tables, skade
// serve on an s3:// warehouse) with --s3-endpoint / --io settings and the
// credentials of the AWS environment (AWS_ACCESS_KEY_ID, …).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <vector>

#include "common/scenario_plan.h"
#include "rest/rest_target.h"
#ifdef SKADE_WITH_S3
#include "skade/s3/s3_file_io.h"
#endif

namespace {

int Run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
#ifdef SKADE_WITH_S3
  skade::s3::RegisterS3FileIO(skade::io::FileIORegistry::Default());
#endif
  const int rc = Run(argc, argv);
#ifdef SKADE_WITH_S3
  // Every target, and so every S3FileIO, is gone once Run returns.
  skade::s3::FinalizeS3();
#endif
  return rc;
}

namespace {

int Run(int argc, char** argv) {
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
  std::string s3_endpoint;
  std::vector<std::string> io_pairs;
  app.add_option("--s3-endpoint", s3_endpoint,
                 "S3-compatible server for s3:// table locations, http(s)://HOST:PORT");
  app.add_option("--io", io_pairs,
                 "A FileIO property KEY=VALUE for the appends' files (repeatable; S3 "
                 "credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)");
  CLI11_PARSE(app, argc, argv);
  for (const auto& pair : io_pairs) {
    const size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      std::cerr << "skade_rest_bench: --io expects KEY=VALUE, got " << pair << "\n";
      return 2;
    }
    target_options.io_properties[pair.substr(0, equals)] = pair.substr(equals + 1);
  }
  if (!s3_endpoint.empty()) target_options.io_properties["s3.endpoint"] = s3_endpoint;

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

}  // namespace
