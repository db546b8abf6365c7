// Commit throughput with 16 concurrent committers on 16 different tables at
// durability=immediate, with group commit on (group_commit:1) and off
// (group_commit:0), and the metadata-file journal on (journal:1: the file is
// written without sync, its bytes ride in the store's transaction) and off
// (journal:0: the file and its directory are fsynced before the swap). Each
// operation is a client's fast append: load the table, commit one snapshot.
//
//   skade_micro_bench --benchmark_filter=GroupCommit
//
// items_per_second is commits/s; commits_per_txn is how many commits shared
// each LMDB transaction (and its fsync).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "skade/util/strings.h"
#include "testing/fast_append.h"

namespace skade::catalog {
namespace {

constexpr int kCommitters = 16;

class CommitFixture {
 public:
  CommitFixture(bool group_commit, bool journal) {
    std::string pattern = (std::filesystem::temp_directory_path() / "skade-bench-XXXXXX").string();
    warehouse_ = mkdtemp(pattern.data());
    EmbeddedCatalogOptions options;
    options.warehouse = warehouse_;
    options.durability = store::Durability::kImmediate;
    options.store_map_size = 1ull << 30;
    options.group_commit = group_commit;
    if (!journal) options.journal_max_bytes = 0;
    catalog_ = *EmbeddedCatalog::Open(options);
    Namespace ns{"bench"};
    (void)catalog_->CreateNamespace(ns, {});
    CreateTableRequest request;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    for (int i = 0; i < kCommitters; ++i) {
      request.name = StrCat("table_", i);
      (void)catalog_->CreateTable(ns, request);
      identifiers_.push_back({ns, request.name});
    }
  }
  ~CommitFixture() {
    catalog_.reset();
    std::error_code ec;
    std::filesystem::remove_all(warehouse_, ec);
  }

  EmbeddedCatalog& catalog() { return *catalog_; }
  const TableIdentifier& table(int i) const { return identifiers_[i]; }

 private:
  std::string warehouse_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
  std::vector<TableIdentifier> identifiers_;
};

CommitFixture& GetFixture(bool group_commit, bool journal) {
  static std::mutex mutex;
  static auto* fixtures = new std::map<std::pair<bool, bool>, std::unique_ptr<CommitFixture>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& fixture = (*fixtures)[{group_commit, journal}];
  if (!fixture) fixture = std::make_unique<CommitFixture>(group_commit, journal);
  return *fixture;
}

void BM_GroupCommit(benchmark::State& state) {
  CommitFixture& fixture = GetFixture(state.range(0) != 0, state.range(1) != 0);
  const TableIdentifier& table = fixture.table(state.thread_index());
  // The default store is LMDB: count its transactions.
  auto& lmdb_store = dynamic_cast<store::lmdb::LmdbCatalogStore&>(fixture.catalog().store());
  uint64_t first_txn = lmdb_store.env().LastTxnId();
  for (auto _ : state) {
    auto committed = testing::FastAppend(fixture.catalog(), table);
    if (!committed) state.SkipWithError(committed.error().ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    // The timed region ends with a barrier, so every thread is done here.
    uint64_t txns = lmdb_store.env().LastTxnId() - first_txn;
    double commits = static_cast<double>(state.iterations()) * state.threads();
    state.counters["commits_per_txn"] = txns == 0 ? 0 : commits / static_cast<double>(txns);
  }
}
BENCHMARK(BM_GroupCommit)
    ->ArgNames({"group_commit", "journal"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Threads(kCommitters)
    ->Iterations(40)
    ->UseRealTime();

}  // namespace
}  // namespace skade::catalog
