// What one commit costs the pointer mirror, with 1,000 and with 1,000,000
// tables: the write-through of a pointer swap (OnCommitted with one change).
// It must not grow with the number of tables.
//
//   skade_micro_bench --benchmark_filter=Mirror
//
// The mirror is driven through its CommitListener interface, as the store
// drives it, so the measurement excludes the store and the file system.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "skade/catalog/table_pointer_mirror.h"
#include "skade/store/table_key.h"
#include "skade/util/strings.h"

namespace skade::catalog {
namespace {

std::string TableKeyFor(int64_t i) {
  return store::TableKey({{"warehouse", "ns"}, StrCat("table_", i)});
}

std::string LocationFor(int64_t i, int64_t version) {
  return StrCat("file:///warehouse/ns/table_", i, "/metadata/", version,
                "-6f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b.metadata.json");
}

void BM_MirrorCommitApply(benchmark::State& state) {
  const int64_t tables = state.range(0);
  std::string pattern = (std::filesystem::temp_directory_path() / "skade-bench-XXXXXX").string();
  std::string dir = mkdtemp(pattern.data());
  store::CatalogStoreOptions options;
  options.map_size = 1ull << 30;
  options.durability = store::Durability::kNone;
  auto store = std::move(*store::CatalogStore::Open(dir, options));
  auto mirror = std::move(*TablePointerMirror::Open(store.get()));
  uint64_t version = mirror->synced_version();
  std::vector<store::TableChange> changes;
  for (int64_t i = 0; i < tables; ++i) {
    changes.push_back(
        {TableKeyFor(i), store::TableRecord{static_cast<uint64_t>(i + 1), LocationFor(i, 0)}});
    if (changes.size() == 10000 || i + 1 == tables) {
      mirror->OnCommitting(version, version + 1);
      mirror->OnCommitted(version, version + 1, changes);
      ++version;
      changes.clear();
    }
  }
  // Pre-built changes, so the loop measures the mirror only.
  std::mt19937_64 random(42);
  std::vector<std::vector<store::TableChange>> commits;
  for (int64_t c = 0; c < 4096; ++c) {
    int64_t i = static_cast<int64_t>(random() % static_cast<uint64_t>(tables));
    commits.push_back({{TableKeyFor(i),
                        store::TableRecord{static_cast<uint64_t>(i + 1), LocationFor(i, c + 1)}}});
  }
  size_t next = 0;
  for (auto _ : state) {
    mirror->OnCommitting(version, version + 1);
    mirror->OnCommitted(version, version + 1, commits[next++ % commits.size()]);
    ++version;
  }
  state.SetItemsProcessed(state.iterations());
  mirror.reset();
  store.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}
BENCHMARK(BM_MirrorCommitApply)->Arg(1000)->Arg(1000000)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace skade::catalog
