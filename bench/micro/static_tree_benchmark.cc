// Lookups in a sorted set of random 64-bit keys: skade's index::StaticTree
// (one search at a time, and LowerBoundBatch with prefetching) against
// std::lower_bound on the same sorted array, absl::flat_hash_map::find,
// absl::btree_map::find and an LMDB cursor (MDB_SET_RANGE on big-endian
// keys), over 10^3 and 10^6 keys; one random read per probe in an array of
// the keys' size (the floor under a single lookup); and the rate at which
// StaticTree::Build lays out sorted keys.
//
//   skade_micro_bench --benchmark_filter='StaticTree|Lookup'
//   SKADE_BENCH_LARGE=1 skade_micro_bench --benchmark_filter='StaticTree|Lookup'
//
// SKADE_BENCH_LARGE=1 adds 10^8 keys: about 3 GB at the peak (the keys plus
// one structure at a time; each is built once per size and freed when the
// next is needed) and several minutes of setup, so no default run pays it.
//
// Probes are keys of the set ("present:1") or random 64-bit values, absent
// with overwhelming probability ("present:0"). An iteration looks up
// kProbesPerIteration probes; the per_lookup counter is the time per probe
// (SI suffix: "12.3n" is 12.3 ns). Single lookups are independent of each
// other, so an out-of-order core overlaps a few of them: this is
// throughput, not the latency of one isolated lookup. StaticTree runs are
// repeated per rank kernel ("kernel:0" scalar, 1 AVX2, 2 AVX-512; a kernel
// this CPU lacks is skipped).
#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>
#include <benchmark/benchmark.h>
#include <lmdb.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "skade/index/static_tree.h"
#include "skade/index/static_tree_internal.h"
#include "testing/temp_dir.h"

namespace skade::index {
namespace {

constexpr size_t kProbesPerIteration = 1024;
constexpr size_t kProbeCount = size_t{1} << 20;  // cycled through

struct KeySet {
  std::vector<uint64_t> keys;     // sorted
  std::vector<uint64_t> present;  // random members of keys
  std::vector<uint64_t> absent;   // random values
};

// One key set per size, kept for the whole run: every structure of a size
// is measured on the same keys and probes.
const KeySet& KeysOf(size_t count) {
  static std::map<size_t, std::unique_ptr<KeySet>> sets;
  auto& set = sets[count];
  if (set == nullptr) {
    set = std::make_unique<KeySet>();
    std::mt19937_64 rng(count);
    set->keys.resize(count);
    for (auto& key : set->keys) key = rng();
    std::sort(set->keys.begin(), set->keys.end());
    set->present.resize(kProbeCount);
    set->absent.resize(kProbeCount);
    for (auto& probe : set->present) probe = set->keys[rng() % count];
    for (auto& probe : set->absent) probe = rng();
  }
  return *set;
}

// The one structure alive at a time (besides the key sets), so that the
// 10^8 run needs memory for the keys and the largest structure only.
// Benchmarks run in registration order, each over all its sizes, so a
// structure is built once per benchmark and size.
struct StructureSlot {
  std::shared_ptr<void> value;
  const std::type_info* type = nullptr;
  int64_t count = 0;
};
StructureSlot& TheStructure() {
  static StructureSlot slot;
  return slot;
}

// The benchmark's structure of type T over `count` keys, built by
// `make(keys)` (which returns a std::shared_ptr<T>) after the previous one is
// freed.
template <typename T, typename Make>
const T& Structure(int64_t count, Make make) {
  StructureSlot& slot = TheStructure();
  if (slot.value == nullptr || slot.type != &typeid(T) || slot.count != count) {
    slot.value.reset();
    slot.value = make(KeysOf(static_cast<size_t>(count)).keys);
    slot.type = &typeid(T);
    slot.count = count;
  }
  return *static_cast<const T*>(slot.value.get());
}

const std::vector<uint64_t>& Probes(const benchmark::State& state) {
  const KeySet& set = KeysOf(static_cast<size_t>(state.range(0)));
  return state.range(1) != 0 ? set.present : set.absent;
}

// Runs `lookup(probes, kProbesPerIteration)` per iteration over successive
// slices of the probes.
template <typename Lookup>
void RunLookups(benchmark::State& state, Lookup lookup) {
  const std::vector<uint64_t>& probes = Probes(state);
  size_t offset = 0;
  for (auto _ : state) {
    lookup(probes.data() + offset);
    offset = (offset + kProbesPerIteration) % kProbeCount;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kProbesPerIteration));
  state.counters["per_lookup"] = benchmark::Counter(
      static_cast<double>(kProbesPerIteration),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

std::shared_ptr<StaticTree> BuildTree(const std::vector<uint64_t>& keys) {
  auto tree = StaticTree::Build(keys);
  if (!tree) std::abort();
  return std::make_shared<StaticTree>(std::move(*tree));
}

// Switches the process to the benchmark's rank kernel; false (after
// skipping the benchmark) if the CPU lacks it.
bool UseKernel(benchmark::State& state) {
  const auto kernel = static_cast<internal::RankKernel>(state.range(2));
  if (!internal::SetRankKernel(kernel)) {
    state.SkipWithError("rank kernel not supported by this CPU");
    return false;
  }
  state.SetLabel(std::string(internal::RankKernelName(kernel)));
  return true;
}

void BM_StaticTreeLowerBound(benchmark::State& state) {
  if (!UseKernel(state)) return;
  const auto& tree = Structure<StaticTree>(state.range(0), BuildTree);
  RunLookups(state, [&](const uint64_t* probes) {
    for (size_t i = 0; i < kProbesPerIteration; ++i) {
      benchmark::DoNotOptimize(tree.LowerBound(probes[i]));
    }
  });
}

void BM_StaticTreeLowerBoundBatch(benchmark::State& state) {
  if (!UseKernel(state)) return;
  const auto& tree = Structure<StaticTree>(state.range(0), BuildTree);
  std::vector<size_t> out(kProbesPerIteration);
  RunLookups(state, [&](const uint64_t* probes) {
    tree.LowerBoundBatch({probes, kProbesPerIteration}, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
}

void BM_LookupStdLowerBound(benchmark::State& state) {
  const auto& keys = KeysOf(state.range(0)).keys;
  RunLookups(state, [&](const uint64_t* probes) {
    for (size_t i = 0; i < kProbesPerIteration; ++i) {
      benchmark::DoNotOptimize(std::lower_bound(keys.begin(), keys.end(), probes[i]));
    }
  });
}

// The least a single lookup can cost at this size: one read of a random
// element of an array as large as the sorted keys (StaticTree's leaf level
// is at least that large, and a lookup must read one of its lines), the
// reads independent as the single lookups are. No structure that reads one
// such line per lookup is faster on this machine.
void BM_LookupOneRandomRead(benchmark::State& state) {
  const auto& keys = KeysOf(state.range(0)).keys;
  const uint64_t count = keys.size();
  RunLookups(state, [&](const uint64_t* probes) {
    // Summed, so every read is made (DoNotOptimize of an element may pass
    // its address without loading it); the sum does not order the reads.
    uint64_t sum = 0;
    for (size_t i = 0; i < kProbesPerIteration; ++i) {
      // probe × count ÷ 2^64: a uniform index without a division.
      const auto index =
          static_cast<size_t>((static_cast<unsigned __int128>(probes[i]) * count) >> 64);
      sum += keys[index];
    }
    benchmark::DoNotOptimize(sum);
  });
}

using HashMap = absl::flat_hash_map<uint64_t, uint32_t>;
using BtreeMap = absl::btree_map<uint64_t, uint32_t>;

void BM_LookupFlatHashMap(benchmark::State& state) {
  const auto& map = Structure<HashMap>(state.range(0), [](const std::vector<uint64_t>& keys) {
    auto map = std::make_shared<HashMap>();
    map->reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) map->try_emplace(keys[i], static_cast<uint32_t>(i));
    return map;
  });
  RunLookups(state, [&](const uint64_t* probes) {
    for (size_t i = 0; i < kProbesPerIteration; ++i) {
      benchmark::DoNotOptimize(map.find(probes[i]));
    }
  });
}

void BM_LookupBtreeMap(benchmark::State& state) {
  const auto& map = Structure<BtreeMap>(state.range(0), [](const std::vector<uint64_t>& keys) {
    auto map = std::make_shared<BtreeMap>();
    for (size_t i = 0; i < keys.size(); ++i) {
      map->emplace_hint(map->end(), keys[i], static_cast<uint32_t>(i));
    }
    return map;
  });
  RunLookups(state, [&](const uint64_t* probes) {
    for (size_t i = 0; i < kProbesPerIteration; ++i) {
      benchmark::DoNotOptimize(map.find(probes[i]));
    }
  });
}

// An LMDB environment in a temporary directory holding key -> position,
// keys big-endian so that LMDB's byte order is numeric order.
class LmdbSet {
 public:
  explicit LmdbSet(const std::vector<uint64_t>& keys) {
    Check(mdb_env_create(&env_));
    Check(mdb_env_set_mapsize(env_, size_t{64} << 30));
    Check(mdb_env_open(env_, dir_.path().c_str(), MDB_NOSYNC | MDB_NOMETASYNC, 0644));
    MDB_txn* txn = nullptr;
    Check(mdb_txn_begin(env_, nullptr, 0, &txn));
    Check(mdb_dbi_open(txn, nullptr, 0, &dbi_));
    // Commits every million keys so the dirty page list stays bounded.
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i != 0 && i % 1000000 == 0) {
        Check(mdb_txn_commit(txn));
        Check(mdb_txn_begin(env_, nullptr, 0, &txn));
      }
      uint64_t big_endian = __builtin_bswap64(keys[i]);
      uint32_t position = static_cast<uint32_t>(i);
      MDB_val key{sizeof(big_endian), &big_endian};
      MDB_val value{sizeof(position), &position};
      // Random keys can repeat; MDB_APPEND rejects an equal key, keep the first.
      const int rc = mdb_put(txn, dbi_, &key, &value, MDB_APPEND | MDB_NOOVERWRITE);
      if (rc != MDB_KEYEXIST) Check(rc);
    }
    Check(mdb_txn_commit(txn));
  }
  ~LmdbSet() { mdb_env_close(env_); }
  LmdbSet(const LmdbSet&) = delete;
  LmdbSet& operator=(const LmdbSet&) = delete;

  MDB_env* env() const { return env_; }
  MDB_dbi dbi() const { return dbi_; }

  static void Check(int rc) {
    if (rc != MDB_SUCCESS) {
      std::fprintf(stderr, "lmdb: %s\n", mdb_strerror(rc));
      std::abort();
    }
  }

 private:
  skade::testing::TempDir dir_;
  MDB_env* env_ = nullptr;
  MDB_dbi dbi_ = 0;
};

// One read transaction and cursor for the whole run, as a reader that
// holds a snapshot would; MDB_SET_RANGE is LMDB's lower bound.
void BM_LookupLmdbCursor(benchmark::State& state) {
  const auto& set = Structure<LmdbSet>(state.range(0), [](const std::vector<uint64_t>& keys) {
    return std::make_shared<LmdbSet>(keys);
  });
  MDB_txn* txn = nullptr;
  LmdbSet::Check(mdb_txn_begin(set.env(), nullptr, MDB_RDONLY, &txn));
  MDB_cursor* cursor = nullptr;
  LmdbSet::Check(mdb_cursor_open(txn, set.dbi(), &cursor));
  RunLookups(state, [&](const uint64_t* probes) {
    for (size_t i = 0; i < kProbesPerIteration; ++i) {
      uint64_t big_endian = __builtin_bswap64(probes[i]);
      MDB_val key{sizeof(big_endian), &big_endian};
      MDB_val value{0, nullptr};
      benchmark::DoNotOptimize(mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE));
      benchmark::DoNotOptimize(value.mv_data);
    }
  });
  mdb_cursor_close(cursor);
  mdb_txn_abort(txn);
}

void BM_StaticTreeBuild(benchmark::State& state) {
  TheStructure() = {};  // room for the trees built here
  const auto& keys = KeysOf(state.range(0)).keys;
  for (auto _ : state) {
    auto tree = StaticTree::Build(keys);
    benchmark::DoNotOptimize(tree->words().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * keys.size()));
}

std::vector<int64_t> KeyCounts() {
  std::vector<int64_t> counts = {1000, 1000000};
  const char* large = std::getenv("SKADE_BENCH_LARGE");
  if (large != nullptr && std::strcmp(large, "1") == 0) counts.push_back(100000000);
  return counts;
}

void SizesAndPresence(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"keys", "present"});
  for (int64_t count : KeyCounts()) {
    for (int64_t present : {1, 0}) benchmark->Args({count, present});
  }
}

void SizesPresenceAndKernel(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"keys", "present", "kernel"});
  for (int64_t count : KeyCounts()) {
    for (int64_t present : {1, 0}) {
      for (auto kernel : {internal::RankKernel::kScalar, internal::RankKernel::kAvx2,
                          internal::RankKernel::kAvx512}) {
        benchmark->Args({count, present, static_cast<int64_t>(kernel)});
      }
    }
  }
}

void Sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"keys"});
  for (int64_t count : KeyCounts()) benchmark->Arg(count);
}

BENCHMARK(BM_StaticTreeLowerBound)->Apply(SizesPresenceAndKernel);
BENCHMARK(BM_StaticTreeLowerBoundBatch)->Apply(SizesPresenceAndKernel);
BENCHMARK(BM_LookupStdLowerBound)->Apply(SizesAndPresence);
BENCHMARK(BM_LookupOneRandomRead)->Apply(SizesAndPresence);
BENCHMARK(BM_LookupFlatHashMap)->Apply(SizesAndPresence);
BENCHMARK(BM_LookupBtreeMap)->Apply(SizesAndPresence);
BENCHMARK(BM_LookupLmdbCursor)->Apply(SizesAndPresence);
BENCHMARK(BM_StaticTreeBuild)->Apply(Sizes)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace skade::index
