// skade_time_travel_bench: the time-travel scenarios of `make bench`
// (bench/README.md "Time travel"): LoadTableAt of random historical snapshots
// and ResolveMany of 1,000 keys per call, over a catalog whose commit log
// holds --commits commits, with the commit-log index built against the same
// catalog reading the same answers from the live store only.
//
// Population (records "populate_history"): --tables tables, each getting
// --commits / --tables fast appends (tests/testing/fast_append.h, no data
// files) through the real commit path, many tables per CommitTransaction on
// --populate-threads threads so group commit coalesces, at durability=none.
// Each append also expires the table's oldest snapshot beyond the last
// --keep-snapshots, so metadata files stay small while the commit log keeps
// every snapshot; old metadata files are kept (no delete-after-commit), so
// every historical snapshot stays loadable.
//
// Then two catalogs on that warehouse, both open at once, neither letting its
// index rebuild by itself: "index" has Rebuild() called once (timed); "live
// store" never builds, so every lookup misses the empty index and is answered
// by CatalogStore::FindSnapshot(s) — the same LoadTableAt / ResolveMany code.
// Every op is timed on one thread; drawing a key is not timed. The variants
// alternate in rounds (so drift hits both alike) and draw from different
// splitmix64 streams over the same keys, so neither reads files the other has
// just brought into the page cache.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <thread>

#include "common/bench_options.h"
#include "common/bench_record.h"
#include "common/bench_schema.h"
#include "common/measure.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/util/strings.h"
#include "testing/fast_append.h"

namespace skade::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kTarget[] = "skade-embedded";
constexpr char kNamespace[] = "bench_history";
// Each scenario alternates its variants in this many rounds.
constexpr int kRounds = 10;

struct TimeTravelOptions {
  std::string warehouse;
  int tables = 1000;
  uint64_t commits = 1'000'000;
  int keep_snapshots = 5;
  int populate_threads = 2;
  int tables_per_transaction = 50;
  int keys_per_call = 1000;
  uint64_t batch_ops = 2000;
};

/// One historical snapshot: the table it belongs to and its id.
struct HistoryKey {
  int table = 0;
  int64_t snapshot_id = 0;
};

struct History {
  std::vector<spec::TableIdentifier> tables;
  std::vector<uint64_t> table_ids;  // the store's, per table
  std::vector<HistoryKey> keys;     // every snapshot ever committed
};

spec::TableIdentifier HistoryTable(int index) {
  char name[16];
  std::snprintf(name, sizeof(name), "h%05d", index);
  return {{kNamespace}, name};
}

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

/// Measurement of ops timed one after another on this thread: `prepare(i)`
/// (untimed) then `run(i)` (timed) for iterations i from `first`, `warmup`
/// untimed ones first, until `ops` or `seconds`. The first error stops the loop
/// and is returned.
template <typename Prepare, typename Run>
Result<Measurement> TimeOps(uint64_t first, uint64_t ops, uint64_t warmup, double seconds,
                            Prepare prepare, Run run) {
  for (uint64_t i = first; i < first + warmup; ++i) {
    prepare(i);
    SKADE_RETURN_NOT_OK(run(i));
  }
  Measurement measurement;
  measurement.latencies_ns.reserve(std::min<uint64_t>(ops, 1 << 22));
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  Clock::duration busy{};
  for (uint64_t i = first + warmup; i < first + warmup + ops; ++i) {
    if (Clock::now() >= deadline) break;
    prepare(i);
    const auto began = Clock::now();
    SKADE_RETURN_NOT_OK(run(i));
    const auto took = Clock::now() - began;
    busy += took;
    measurement.latencies_ns.push_back(took.count());
  }
  std::sort(measurement.latencies_ns.begin(), measurement.latencies_ns.end());
  measurement.ops = measurement.latencies_ns.size();
  // The timed ops alone: ops_per_sec is then 1 / mean latency, untimed key drawing left out.
  measurement.wall_seconds = Seconds(busy);
  return measurement;
}

/// A round of one variant: TimeOps from iteration `first` with these bounds.
using Round = std::function<Result<Measurement>(int variant, uint64_t first, uint64_t ops,
                                                uint64_t warmup, double seconds)>;

/// Runs `variants` variants in `rounds` alternating rounds (so drift and the page cache hit
/// each alike), each round a share of `ops` and `seconds`, warm-up in the first; each variant's
/// key stream continues across its rounds. One merged measurement per variant.
std::vector<Result<Measurement>> Interleaved(int variants, int rounds, uint64_t ops,
                                             uint64_t warmup, double seconds, const Round& round) {
  std::vector<Result<Measurement>> merged(variants, Measurement{});
  std::vector<uint64_t> next(variants, 0);
  const uint64_t per_round = (ops + rounds - 1) / rounds;
  for (int r = 0; r < rounds; ++r) {
    for (int v = 0; v < variants; ++v) {
      if (!merged[v]) continue;
      const uint64_t round_warmup = r == 0 ? warmup : 0;
      auto measured = round(v, next[v], per_round, round_warmup, seconds / rounds);
      if (!measured) {
        merged[v] = tl::unexpected(measured.error());
        continue;
      }
      next[v] += round_warmup + measured->ops;
      auto& all = *merged[v];
      all.latencies_ns.insert(all.latencies_ns.end(), measured->latencies_ns.begin(),
                              measured->latencies_ns.end());
      all.wall_seconds += measured->wall_seconds;
    }
  }
  for (auto& measurement : merged) {
    if (!measurement) continue;
    std::sort(measurement->latencies_ns.begin(), measurement->latencies_ns.end());
    measurement->ops = measurement->latencies_ns.size();
  }
  return merged;
}

/// A catalog on the populated warehouse whose index never rebuilds by itself
/// (triggers out of reach); `use_files` lets it write and map index files.
Result<std::shared_ptr<catalog::EmbeddedCatalog>> OpenQuiet(const std::string& warehouse,
                                                            store::Durability durability,
                                                            bool use_files) {
  catalog::EmbeddedCatalogOptions options;
  options.warehouse = warehouse;
  options.durability = durability;
  options.commit_log_index.background = true;
  options.commit_log_index.rebuild_after_commits = std::numeric_limits<uint64_t>::max();
  options.commit_log_index.rebuild_after_tail_hits = std::numeric_limits<uint64_t>::max();
  options.commit_log_index.rebuild_interval_ms = std::numeric_limits<int64_t>::max();
  options.commit_log_index.poll_interval_ms = 60'000;
  options.commit_log_index.use_files = use_files;
  return catalog::EmbeddedCatalog::Open(options);
}

/// The appends of population thread `thread`: its tables in rounds, each
/// round one fast append (plus the expiry) per table, `per_transaction`
/// tables per CommitTransaction. Adds the snapshots to `keys` and each call's
/// latency to `latencies_ns`.
Status PopulateThread(catalog::EmbeddedCatalog& catalog, const TimeTravelOptions& options,
                      const History& history, int thread, uint64_t commits_per_table,
                      std::atomic<uint64_t>* committed, std::vector<HistoryKey>* keys,
                      std::vector<int64_t>* latencies_ns) {
  std::vector<int> mine;
  for (int t = thread; t < options.tables; t += options.populate_threads) mine.push_back(t);
  std::vector<std::deque<int64_t>> live(mine.size());
  for (uint64_t round = 0; round < commits_per_table; ++round) {
    for (size_t begin = 0; begin < mine.size(); begin += options.tables_per_transaction) {
      const size_t end = std::min(mine.size(), begin + options.tables_per_transaction);
      std::vector<catalog::CommitTableRequest> requests;
      requests.reserve(end - begin);
      for (size_t k = begin; k < end; ++k) {
        const auto& identifier = history.tables[mine[k]];
        SKADE_ASSIGN_OR_RAISE(auto current, catalog.LoadTable(identifier));
        const int64_t snapshot_id = NewSnapshotId();
        auto request = testing::FastAppendRequest(identifier, *current.metadata, snapshot_id);
        live[k].push_back(snapshot_id);
        if (live[k].size() > static_cast<size_t>(options.keep_snapshots)) {
          request.updates.push_back(spec::RemoveSnapshots{{live[k].front()}});
          live[k].pop_front();
        }
        requests.push_back(std::move(request));
        keys->push_back({mine[k], snapshot_id});
      }
      const auto began = Clock::now();
      SKADE_RETURN_NOT_OK(catalog.CommitTransaction(requests));
      latencies_ns->push_back((Clock::now() - began).count());
      committed->fetch_add(requests.size(), std::memory_order_relaxed);
    }
  }
  return OkStatus();
}

/// The sizes of the metadata files under `warehouse`: (files, bytes).
std::pair<uint64_t, uint64_t> MetadataFiles(const std::string& warehouse) {
  uint64_t files = 0, bytes = 0;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(warehouse, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file(error) && it->path().string().ends_with(".metadata.json")) {
      ++files;
      bytes += it->file_size(error);
    }
  }
  return {files, bytes};
}

Result<History> Populate(const TimeTravelOptions& options, const BenchOptions& bench) {
  History history;
  const uint64_t commits_per_table = options.commits / options.tables;
  SKADE_ASSIGN_OR_RAISE(auto catalog, OpenQuiet(options.warehouse, store::Durability::kNone,
                                                /*use_files=*/false));
  SKADE_RETURN_NOT_OK(catalog->CreateNamespace({kNamespace}, {}));
  for (int t = 0; t < options.tables; ++t) {
    history.tables.push_back(HistoryTable(t));
    catalog::CreateTableRequest request;
    request.name = history.tables.back().name;
    request.schema = BenchSchema();
    SKADE_RETURN_NOT_OK(catalog->CreateTable({kNamespace}, request).map([](auto&&) {}));
    SKADE_ASSIGN_OR_RAISE(auto record, catalog->store().GetTable(history.tables.back()));
    if (!record) return MakeError(ErrorKind::kNoSuchTable, history.tables.back().ToString());
    history.table_ids.push_back(record->table_id);
  }

  const int threads = options.populate_threads;
  std::vector<std::vector<HistoryKey>> keys(threads);
  std::vector<std::vector<int64_t>> latencies(threads);
  std::vector<Status> outcomes(threads, OkStatus());
  std::atomic<uint64_t> committed{0};
  std::atomic<int> running{threads};
  const uint64_t total = commits_per_table * options.tables;
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      keys[t].reserve(total / threads + options.tables);
      outcomes[t] = PopulateThread(*catalog, options, history, t, commits_per_table, &committed,
                                   &keys[t], &latencies[t]);
      running.fetch_sub(1);
    });
  }
  // Population takes minutes at full size: say where it is.
  for (auto last = start; running.load() > 0;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (Clock::now() - last < std::chrono::seconds(5)) continue;
    last = Clock::now();
    const uint64_t done = committed.load();
    const double elapsed = Seconds(Clock::now() - start);
    std::cerr << "time-travel: populated " << done << "/" << total << " commits in "
              << static_cast<int>(elapsed) << " s (" << static_cast<uint64_t>(done / elapsed)
              << " commits/s)\n";
  }
  for (auto& worker : workers) worker.join();
  const double populate_seconds = Seconds(Clock::now() - start);
  for (auto& outcome : outcomes) SKADE_RETURN_NOT_OK(outcome);
  // The clean close syncs what durability=none left unsynced; it is part of populating.
  catalog.reset();
  const double with_close_seconds = Seconds(Clock::now() - start);

  Measurement measurement;
  for (int t = 0; t < threads; ++t) {
    history.keys.insert(history.keys.end(), keys[t].begin(), keys[t].end());
    measurement.latencies_ns.insert(measurement.latencies_ns.end(), latencies[t].begin(),
                                    latencies[t].end());
  }
  std::sort(measurement.latencies_ns.begin(), measurement.latencies_ns.end());
  measurement.ops = history.keys.size();
  measurement.wall_seconds = populate_seconds;
  const auto [files, bytes] = MetadataFiles(options.warehouse);
  BenchRecord record{
      .target = kTarget,
      .scenario = "populate_history",
      .threads = threads,
      .durability = "none",
      .numbers = {{"commits", static_cast<double>(measurement.ops)},
                  {"seconds", populate_seconds},
                  {"seconds_with_close", with_close_seconds},
                  {"commits_per_table", static_cast<double>(commits_per_table)},
                  {"tables_per_transaction", static_cast<double>(options.tables_per_transaction)},
                  {"metadata_files", static_cast<double>(files)},
                  {"metadata_mb", bytes / 1e6}},
      .notes = StrCat("populating only, at durability=none (the clean close syncs): ",
                      options.tables, " tables x ", commits_per_table,
                      " fast appends (no data files), each expiring the oldest snapshot beyond ",
                      "the last ", options.keep_snapshots, "; ", options.tables_per_transaction,
                      " tables per CommitTransaction on ", threads,
                      " threads; ops = commits, ops_per_sec = commits/s, p50/p99 = one "
                      "CommitTransaction call")};
  WriteRecord(std::cout, bench, record, measurement);
  std::cerr << "time-travel: " << measurement.ops << " commits in " << populate_seconds << " s, "
            << files << " metadata files, " << bytes / 1e6 << " MB\n";
  return history;
}

std::vector<std::pair<std::string, double>> IndexNumbers(catalog::EmbeddedCatalog& catalog,
                                                         double build_ms) {
  const auto stats = catalog.commit_log_index().stats();
  std::vector<std::pair<std::string, double>> numbers = {
      {"index_keys", static_cast<double>(stats.keys)},
      {"index_covered_seq", static_cast<double>(stats.covered_seq)},
      {"index_builds", static_cast<double>(stats.builds)},
      {"index_hits", static_cast<double>(stats.index_hits)},
      {"index_tail_hits", static_cast<double>(stats.tail_hits)},
      {"index_mapped", stats.mapped ? 1.0 : 0.0}};
  if (build_ms >= 0) numbers.push_back({"index_build_ms", build_ms});
  return numbers;
}

int Run(const TimeTravelOptions& options, BenchOptions& bench) {
  bench.tables = options.tables;
  auto fail = [&](const std::string& scenario, const Error& error) {
    BenchRecord record{.target = kTarget, .scenario = scenario};
    WriteRecord(std::cout, bench, record, tl::unexpected(error));
    std::cerr << "skade_time_travel_bench: " << scenario << ": " << error.ToString() << "\n";
    return 1;
  };
  auto history = Populate(options, bench);
  if (!history) return fail("populate_history", history.error());
  const auto& keys = history->keys;
  const int key_count = static_cast<int>(keys.size());
  const uint64_t commits_per_table = options.commits / options.tables;
  const double expired = commits_per_table > static_cast<uint64_t>(options.keep_snapshots)
                             ? 1.0 - static_cast<double>(options.keep_snapshots) /
                                         static_cast<double>(commits_per_table)
                             : 0.0;

  auto live = OpenQuiet(options.warehouse, store::Durability::kImmediate, /*use_files=*/false);
  if (!live) return fail("load_table_at_snapshot", live.error());
  auto indexed = OpenQuiet(options.warehouse, store::Durability::kImmediate, /*use_files=*/true);
  if (!indexed) return fail("load_table_at_snapshot", indexed.error());
  const auto build_began = Clock::now();
  if (auto built = (*indexed)->commit_log_index().Rebuild(); !built) {
    return fail("load_table_at_snapshot", built.error());
  }
  const double build_ms = Seconds(Clock::now() - build_began) * 1000;
  std::cerr << "time-travel: index of " << (*indexed)->commit_log_index().stats().keys
            << " keys built in " << build_ms << " ms\n";

  struct Variant {
    std::string name;
    catalog::EmbeddedCatalog* catalog;
    int stream;  // PickIndex's thread argument: a key stream of its own
  };
  const std::vector<Variant> variants = {{"index", indexed->get(), 0},
                                         {"live_store", live->get(), 1}};
  const std::string shape =
      StrCat(key_count, " commits in the log: ", options.tables, " tables x ", commits_per_table,
             " appends, the last ", options.keep_snapshots, " snapshots live (",
             static_cast<int>(expired * 100), "% of keys expired from current metadata)");
  const std::string how =
      "index: the commit-log index rebuilt once after population; live_store: a second "
      "catalog on the same warehouse whose index never builds, so every lookup misses it and "
      "the LMDB store (CatalogStore::FindSnapshot(s)) answers";
  auto write = [&](const std::string& scenario, const Variant& variant,
                   const Result<Measurement>& measurement,
                   std::vector<std::pair<std::string, double>> numbers, const std::string& notes) {
    BenchRecord record{.target = kTarget,
                       .scenario = scenario,
                       .variant = variant.name,
                       .numbers = std::move(numbers),
                       .notes = notes};
    record.numbers.push_back({"expired_share", expired});
    record.numbers.push_back({"commit_log_commits", static_cast<double>(key_count)});
    if (variant.name == "index") {
      auto stats = IndexNumbers(*variant.catalog, build_ms);
      record.numbers.insert(record.numbers.end(), stats.begin(), stats.end());
    }
    WriteRecord(std::cout, bench, record, measurement);
    std::cerr << "time-travel: " << scenario << " " << variant.name << " "
              << (measurement ? StrCat("p50 ", measurement->PercentileMicros(0.5), " us")
                              : measurement.error().ToString())
              << "\n";
    return measurement.has_value();
  };

  bool ok = true;
  // load_table_at_snapshot: the table as it was at a random historical snapshot.
  auto loads = Interleaved(
      2, kRounds, bench.ops, bench.warmup, bench.seconds,
      [&](int v, uint64_t first, uint64_t ops, uint64_t warmup, double seconds) {
        const Variant& variant = variants[v];
        const HistoryKey* key = nullptr;
        return TimeOps(
            first, ops, warmup, seconds,
            [&](uint64_t i) { key = &keys[PickIndex(variant.stream, i, key_count)]; },
            [&](uint64_t) -> Status {
              SKADE_ASSIGN_OR_RAISE(
                  auto loaded,
                  variant.catalog->LoadTableAt(history->tables[key->table], key->snapshot_id));
              if (loaded.metadata->SnapshotById(key->snapshot_id) == nullptr) {
                return MakeError(ErrorKind::kInternal, "LoadTableAt(", key->snapshot_id,
                                 ") returned metadata without that snapshot");
              }
              return OkStatus();
            });
      });
  for (int v = 0; v < 2; ++v) {
    ok &= write("load_table_at_snapshot", variants[v], loads[v], {},
                StrCat("LoadTableAt(table, snapshot id) of a random historical snapshot: "
                       "resolve the commit, read and parse its metadata file (read around "
                       "the metadata cache unless it holds the file, which it seldom does); ",
                       shape, "; ", how));
  }

  // resolve_snapshot: the resolution alone (snapshot -> metadata location), which the
  // metadata file read dominates in load_table_at_snapshot.
  auto resolves = Interleaved(
      2, kRounds, bench.ops, bench.warmup, bench.seconds,
      [&](int v, uint64_t first, uint64_t ops, uint64_t warmup, double seconds) {
        const Variant& variant = variants[v];
        const HistoryKey* key = nullptr;
        catalog::SnapshotKey request;
        return TimeOps(
            first, ops, warmup, seconds,
            [&](uint64_t i) {
              key = &keys[PickIndex(variant.stream, i, key_count)];
              request = {history->tables[key->table], key->snapshot_id};
            },
            [&](uint64_t) -> Status {
              if (variant.name == "index") {
                SKADE_ASSIGN_OR_RAISE(auto found, variant.catalog->ResolveMany({&request, 1}));
                if (!found[0])
                  return MakeError(ErrorKind::kNotFound, "snapshot ", key->snapshot_id);
              } else {
                SKADE_ASSIGN_OR_RAISE(auto found,
                                      variant.catalog->store().FindSnapshot(
                                          history->table_ids[key->table], key->snapshot_id));
                if (!found) return MakeError(ErrorKind::kNotFound, "snapshot ", key->snapshot_id);
              }
              return OkStatus();
            });
      });
  for (int v = 0; v < 2; ++v) {
    ok &= write("resolve_snapshot", variants[v], resolves[v], {},
                variants[v].name == "index"
                    ? StrCat("ResolveMany of 1 key (table identifier, snapshot id) on the indexed "
                             "catalog; ",
                             shape)
                    : StrCat("store().FindSnapshot(table id, snapshot id): one LMDB read "
                             "transaction, the table id known beforehand (the catalog path would "
                             "also resolve the identifier); ",
                             shape));
  }

  // batch_load_planning: ResolveMany of keys_per_call random keys vs the store's FindSnapshots
  // of the same pairs in one read transaction; ops = calls.
  const uint64_t batch_warmup = std::max<uint64_t>(1, bench.warmup / options.keys_per_call);
  auto batches = Interleaved(
      2, kRounds, options.batch_ops, batch_warmup, bench.seconds,
      [&](int v, uint64_t first, uint64_t ops, uint64_t warmup, double seconds) {
        const Variant& variant = variants[v];
        std::vector<catalog::SnapshotKey> requests(options.keys_per_call);
        std::vector<std::pair<uint64_t, int64_t>> pairs(options.keys_per_call);
        return TimeOps(
            first, ops, warmup, seconds,
            [&](uint64_t i) {
              for (int k = 0; k < options.keys_per_call; ++k) {
                const auto& key =
                    keys[PickIndex(variant.stream, i * options.keys_per_call + k, key_count)];
                requests[k] = {history->tables[key.table], key.snapshot_id};
                pairs[k] = {history->table_ids[key.table], key.snapshot_id};
              }
            },
            [&](uint64_t) -> Status {
              std::vector<std::optional<std::string>> found;
              if (variant.name == "index") {
                SKADE_ASSIGN_OR_RAISE(found, variant.catalog->ResolveMany(requests));
              } else {
                SKADE_ASSIGN_OR_RAISE(found, variant.catalog->store().FindSnapshots(pairs));
              }
              for (const auto& location : found) {
                if (!location) return MakeError(ErrorKind::kNotFound, "a key did not resolve");
              }
              return OkStatus();
            });
      });
  for (int v = 0; v < 2; ++v) {
    const Variant& variant = variants[v];
    const auto& measured = batches[v];
    std::vector<std::pair<std::string, double>> numbers = {
        {"keys_per_call", static_cast<double>(options.keys_per_call)}};
    if (measured && measured->ops > 0) {
      numbers.push_back(
          {"ns_per_key", measured->wall_seconds * 1e9 / (measured->ops * options.keys_per_call)});
    }
    ok &= write("batch_load_planning", variant, measured, std::move(numbers),
                StrCat(variant.name == "index"
                           ? "ResolveMany of "
                           : "store().FindSnapshots (one LMDB read transaction, table ids known "
                             "beforehand) of ",
                       options.keys_per_call,
                       " random (table, snapshot id) keys per call; ops = "
                       "calls; ",
                       shape));
  }

  // The two catalogs must have answered the same: the live one never built an index.
  const auto live_stats = (*live)->commit_log_index().stats();
  if (live_stats.keys != 0 || live_stats.index_hits != 0) {
    std::cerr << "time-travel: the live-store catalog built an index (" << live_stats.keys
              << " keys): its numbers are not live-store-only\n";
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace skade::bench

int main(int argc, char** argv) {
  skade::bench::BenchOptions bench;
  bench.ops = 100'000;
  bench.seconds = 10;
  bench.warmup = 1000;
  skade::bench::TimeTravelOptions options;
  CLI::App app("Time travel over a long commit log (bench/README.md \"Time travel\")");
  app.add_option("--run-id", bench.run_id, "Shared by every record of one run");
  app.add_option("--ops", bench.ops, "Timed ops per single-key scenario (upper bound)");
  app.add_option("--seconds", bench.seconds, "Time bound of one scenario's timed ops");
  app.add_option("--warmup", bench.warmup, "Untimed ops before each single-key scenario");
  app.add_option("--warehouse", options.warehouse, "Fresh warehouse directory")->required();
  app.add_option("--tables", options.tables, "Tables of the history")->check(CLI::PositiveNumber);
  app.add_option("--commits", options.commits, "Commits in the log (split evenly over tables)")
      ->check(CLI::PositiveNumber);
  app.add_option("--keep-snapshots", options.keep_snapshots,
                 "Snapshots each table's current metadata keeps")
      ->check(CLI::PositiveNumber);
  app.add_option("--populate-threads", options.populate_threads, "Threads committing")
      ->check(CLI::PositiveNumber);
  app.add_option("--tables-per-transaction", options.tables_per_transaction,
                 "Tables per CommitTransaction while populating")
      ->check(CLI::PositiveNumber);
  app.add_option("--keys-per-call", options.keys_per_call, "Keys per batch_load_planning call")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch-ops", options.batch_ops, "Timed batch_load_planning calls (upper bound)");
  CLI11_PARSE(app, argc, argv);
  return skade::bench::Run(options, bench);
}
