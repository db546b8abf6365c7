// A separate process that appends one-row batches to db.t through a
// CoalescingCommitter from many threads, for the crash test. Prints
// "ACK <id>" (flushed) after each acknowledged write, so the parent knows
// exactly which rows must survive a kill.
//
//   skade_committer_worker WAREHOUSE THREADS
//
// Thread k writes ids k, k + THREADS, k + 2 * THREADS, … offset by a
// per-process random base, until killed.
#include <arrow/api.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/commit/coalescing_committer.h"
#include "skade/util/random.h"

namespace {

std::shared_ptr<arrow::RecordBatch> Row(int64_t id) {
  arrow::Int64Builder ids;
  if (!ids.Append(id).ok()) std::abort();
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false)});
  return arrow::RecordBatch::Make(schema, 1, {ids.Finish().ValueOrDie()});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s WAREHOUSE THREADS\n", argv[0]);
    return 2;
  }
  skade::catalog::EmbeddedCatalogOptions options;
  options.warehouse = argv[1];
  options.store_map_size = 1ull << 30;
  auto catalog = skade::catalog::EmbeddedCatalog::Open(options);
  if (!catalog) {
    std::fprintf(stderr, "open: %s\n", catalog.error().ToString().c_str());
    return 1;
  }
  auto committer = skade::commit::CoalescingCommitter::Make(*catalog);
  if (!committer) return 1;
  int threads = std::atoi(argv[2]);
  int64_t base = static_cast<int64_t>(skade::RandomU64() % (1ll << 40)) * 1000;
  std::mutex out;
  std::vector<std::thread> workers;
  for (int k = 0; k < threads; ++k) {
    workers.emplace_back([&, k] {
      for (int64_t id = base + k;; id += threads) {
        auto receipt = (*committer)->Append({{"db"}, "t"}, Row(id));
        if (!receipt) {
          std::fprintf(stderr, "append: %s\n", receipt.error().ToString().c_str());
          std::exit(1);
        }
        std::lock_guard<std::mutex> lock(out);
        std::printf("ACK %lld\n", static_cast<long long>(id));
        std::fflush(stdout);
      }
    });
  }
  for (auto& worker : workers) worker.join();
  return 0;
}
