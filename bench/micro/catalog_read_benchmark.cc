// Warm reads of the embedded catalog: LoadTable, ResolveMetadata and
// TableExists over 1,000 tables (each with 8 snapshots), at 1 and 2 threads,
// in three access patterns:
//   - (default) each thread reads its own tables (thread t: t, t+n, t+2n, …);
//   - "AllTables": every thread cycles through all tables, so a table's
//     shared_ptr reference counts are written by one core, then the other;
//   - "SameTable": every thread reads one table.
//
//   skade_micro_bench --benchmark_filter=Warm
//
// Besides Google Benchmark's mean time, p50_ns/p99_ns are the per-operation
// percentiles over batches of 128 operations (timing each operation alone
// would add a clock read as large as the operation).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/util/strings.h"
#include "testing/fast_append.h"

namespace skade::catalog {
namespace {

constexpr int kTables = 1000;
constexpr int kSnapshotsPerTable = 8;
constexpr int kBatch = 128;

class ReadFixture {
 public:
  ReadFixture() {
    std::string pattern = (std::filesystem::temp_directory_path() / "skade-bench-XXXXXX").string();
    warehouse_ = mkdtemp(pattern.data());
    EmbeddedCatalogOptions options;
    options.warehouse = warehouse_;
    options.durability = store::Durability::kNone;
    options.store_map_size = 1ull << 30;
    catalog_ = *EmbeddedCatalog::Open(options);
    Namespace ns{"bench"};
    (void)catalog_->CreateNamespace(ns, {});
    CreateTableRequest request;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}},
                                          {2, "name", spec::Type::String(), false, {}, {}, {}}});
    for (int i = 0; i < kTables; ++i) {
      request.name = StrCat("table_", i);
      (void)catalog_->CreateTable(ns, request);
      identifiers_.push_back({ns, request.name});
      for (int s = 0; s < kSnapshotsPerTable; ++s) {
        (void)testing::FastAppend(*catalog_, identifiers_.back());
      }
    }
    // Warm every layer once.
    for (const auto& id : identifiers_) (void)catalog_->LoadTable(id);
  }
  ~ReadFixture() {
    catalog_.reset();
    std::error_code ec;
    std::filesystem::remove_all(warehouse_, ec);
  }

  EmbeddedCatalog& catalog() { return *catalog_; }
  const TableIdentifier& table(size_t i) const { return identifiers_[i % identifiers_.size()]; }

 private:
  std::string warehouse_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
  std::vector<TableIdentifier> identifiers_;
};

ReadFixture& GetFixture() {
  static auto* fixture = new ReadFixture();
  return *fixture;
}

enum class Tables { kOwn, kAll, kOne };

// Runs `op(table)` per iteration and reports ops/s and batch percentiles.
template <typename Op>
void RunReads(benchmark::State& state, Tables tables, Op op) {
  ReadFixture& fixture = GetFixture();
  size_t next = 0;
  size_t stride = 1;
  if (tables == Tables::kOwn) {
    next = static_cast<size_t>(state.thread_index());
    stride = static_cast<size_t>(state.threads());
  } else if (tables == Tables::kAll) {
    next = static_cast<size_t>(state.thread_index()) * (kTables / 2);
  } else {
    stride = 0;
  }
  std::vector<double> batch_ns;
  auto batch_start = std::chrono::steady_clock::now();
  int in_batch = 0;
  for (auto _ : state) {
    op(fixture.catalog(), fixture.table(next));
    next += stride;
    if (++in_batch == kBatch) {
      auto now = std::chrono::steady_clock::now();
      batch_ns.push_back(std::chrono::duration<double, std::nano>(now - batch_start).count() /
                         kBatch);
      batch_start = now;
      in_batch = 0;
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (!batch_ns.empty()) {
    std::sort(batch_ns.begin(), batch_ns.end());
    auto at = [&](double q) { return batch_ns[static_cast<size_t>(q * (batch_ns.size() - 1))]; };
    state.counters["p50_ns"] = benchmark::Counter(at(0.50), benchmark::Counter::kAvgThreads);
    state.counters["p99_ns"] = benchmark::Counter(at(0.99), benchmark::Counter::kAvgThreads);
  }
}

void LoadTable(EmbeddedCatalog& catalog, const TableIdentifier& id) {
  auto loaded = catalog.LoadTable(id);
  benchmark::DoNotOptimize(loaded->metadata.get());
}

void ResolveMetadata(EmbeddedCatalog& catalog, const TableIdentifier& id) {
  auto metadata = catalog.ResolveMetadata(id);
  benchmark::DoNotOptimize(metadata->get());
}

void TableExists(EmbeddedCatalog& catalog, const TableIdentifier& id) {
  auto exists = catalog.TableExists(id);
  benchmark::DoNotOptimize(*exists);
}

void BM_WarmLoadTable(benchmark::State& state) { RunReads(state, Tables::kOwn, LoadTable); }
void BM_WarmResolveMetadata(benchmark::State& state) {
  RunReads(state, Tables::kOwn, ResolveMetadata);
}
void BM_WarmTableExists(benchmark::State& state) { RunReads(state, Tables::kOwn, TableExists); }
void BM_WarmLoadTableAllTables(benchmark::State& state) {
  RunReads(state, Tables::kAll, LoadTable);
}
void BM_WarmResolveMetadataAllTables(benchmark::State& state) {
  RunReads(state, Tables::kAll, ResolveMetadata);
}
void BM_WarmLoadTableSameTable(benchmark::State& state) {
  RunReads(state, Tables::kOne, LoadTable);
}
void BM_WarmResolveMetadataSameTable(benchmark::State& state) {
  RunReads(state, Tables::kOne, ResolveMetadata);
}

BENCHMARK(BM_WarmLoadTable)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_WarmResolveMetadata)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_WarmTableExists)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_WarmLoadTableAllTables)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_WarmResolveMetadataAllTables)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_WarmLoadTableSameTable)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_WarmResolveMetadataSameTable)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace skade::catalog
