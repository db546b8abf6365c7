// A separate process that commits to one table in a loop, for the
// multi-process and crash tests. Prints "ACK <snapshot-id>" (flushed) after
// each acknowledged commit, so the parent knows exactly what must survive.
//
//   skade_commit_worker WAREHOUSE NS.TABLE COMMITS [CRASH_PROBABILITY [FLUSH_INTERVAL_MS]]
//   skade_commit_worker WAREHOUSE --rename NS.FROM NS.TO
//   skade_commit_worker WAREHOUSE --drop NS.TABLE
//   skade_commit_worker WAREHOUSE --create NS.TABLE
//
// With CRASH_PROBABILITY > 0 the worker kills itself with SIGKILL right after
// writing a new metadata file and before the pointer swap, with that
// probability per metadata write: the window where a crash could leave a
// pointer to a missing or partial file if the commit order were wrong.
// FLUSH_INTERVAL_MS sets EmbeddedCatalogOptions::flush_interval_ms (a long
// one keeps the metadata files journaled in the store when it is killed).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "skade/catalog/embedded_catalog.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/util/random.h"
#include "testing/fast_append.h"

namespace {

class CrashingFileIO : public skade::io::ForwardingFileIO {
 public:
  CrashingFileIO(std::shared_ptr<skade::io::FileIO> base, double probability)
      : ForwardingFileIO(std::move(base)), probability_(probability) {}

  skade::Status WriteFile(std::string_view location, std::string_view contents,
                          bool durable) override {
    auto status = inner().WriteFile(location, contents, durable);
    if (status && location.ends_with(".metadata.json") &&
        static_cast<double>(skade::RandomU64() % 1000000) < probability_ * 1000000) {
      ::kill(::getpid(), SIGKILL);
    }
    return status;
  }

 private:
  double probability_;
};

// One catalog operation by this process (for the cross-process tests).
int RunOperation(skade::catalog::EmbeddedCatalog& catalog, int argc, char** argv) {
  std::string_view op = argv[2];
  auto first = skade::spec::ParseTableIdentifier(argv[3]);  // main checked argc >= 4
  if (!first) return 2;
  skade::Status status = skade::OkStatus();
  if (op == "--rename" && argc > 4) {
    auto to = skade::spec::ParseTableIdentifier(argv[4]);
    if (!to) return 2;
    status = catalog.RenameTable(*first, *to);
  } else if (op == "--drop") {
    status = catalog.DropTable(*first, false);
  } else if (op == "--create") {
    skade::catalog::CreateTableRequest request;
    request.name = first->name;
    request.schema = std::make_shared<const skade::spec::Schema>(
        0, std::vector<skade::spec::NestedField>{
               {1, "id", skade::spec::Type::Long(), true, {}, {}, {}}});
    auto created = catalog.CreateTable(first->ns, request);
    if (!created) status = tl::unexpected(created.error());
  } else {
    return 2;
  }
  if (!status) {
    std::fprintf(stderr, "%s\n", status.error().ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s WAREHOUSE NS.TABLE COMMITS [CRASH_PROBABILITY]\n", argv[0]);
    return 2;
  }
  skade::catalog::EmbeddedCatalogOptions options;
  options.warehouse = argv[1];
  options.store_map_size = 1ull << 30;
  double crash_probability = argc > 4 ? std::atof(argv[4]) : 0.0;
  if (argc > 5) options.flush_interval_ms = std::atoi(argv[5]);
  options.file_io =
      std::make_shared<CrashingFileIO>(skade::io::NewLocalFileIO(), crash_probability);
  auto catalog = skade::catalog::EmbeddedCatalog::Open(options);
  if (!catalog) {
    std::fprintf(stderr, "%s\n", catalog.error().ToString().c_str());
    return 1;
  }
  if (std::string_view(argv[2]).starts_with("--")) return RunOperation(**catalog, argc, argv);
  auto identifier = skade::spec::ParseTableIdentifier(argv[2]);
  if (!identifier) return 1;
  int commits = std::atoi(argv[3]);
  for (int i = 0; i < commits; ++i) {
    auto snapshot_id = skade::testing::FastAppend(**catalog, *identifier);
    if (!snapshot_id) {
      std::fprintf(stderr, "%s\n", snapshot_id.error().ToString().c_str());
      return 1;
    }
    std::printf("ACK %lld\n", static_cast<long long>(*snapshot_id));
    std::fflush(stdout);
  }
  return 0;
}
