// skade_coalesce_bench: the `coalesce` scenario of bench/README.md — many
// concurrent small appends into one table or a few, each write a logical
// commit acknowledged only when durable.
//
// `--writers` threads meet at a barrier, then each makes
// `--writes-per-writer` appends of `--rows` rows, one after the other, into
// tables c00, c01, … (`--tables` of them; writer w's k-th write goes to
// table (w + k) mod tables). Two ways to commit, the same threads and rows:
//
//   --committer on   commit::CoalescingCommitter::Append: concurrent writes
//                    coalesce into one physical commit per flush.
//   --committer off  each write its own commit: ingest::Append (one Parquet
//                    data file, one fast-append snapshot, the table's own
//                    commit retries); when those give up on a conflict
//                    (kCommitFailed), the writer reloads and writes again,
//                    counted in `conflicts`.
//
// One JSON line on stdout (bench/README.md "Records" plus physical_commits,
// data_files, rows_per_write, tables, conflicts, errors, peak_rss_mb): ops
// is the number of acknowledged writes, ops_per_sec those ÷ the time from
// the barrier to the last write's return, p50/p99/p999 the exact
// percentiles of each write's latency from call to return. The run stops
// starting writes after `--seconds`. Before the barrier, one untimed write
// into a table of its own (`warmup`) pays the process's one-time costs (the
// first Parquet encode, first loads); physical_commits and data_files do not
// count it.
//
// At the end the driver checks that every table holds exactly the rows of
// its acknowledged writes (the live data files' record counts, and the
// current snapshot's total-records); otherwise the record carries an error
// and the process exits 1.
#include <arrow/api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/bench_schema.h"
#include "common/peak_rss.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/commit/coalescing_committer.h"
#include "skade/data/arrow_memory_pool.h"
#include "skade/ingest/ingest.h"
#include "skade/table/snapshot_scan.h"
#include "skade/table/table.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::bench {
namespace {

struct Args {
  std::string run_id = "adhoc";
  std::string warehouse;
  std::string durability = "immediate";
  std::string committer = "on";
  int writers = 16;
  int writes_per_writer = 1;
  int64_t rows = 1;
  int tables = 1;
  double seconds = 60;
};

const spec::Namespace kNamespace{"bench_coalesce"};

spec::TableIdentifier TableName(int index) {
  char name[16];
  std::snprintf(name, sizeof(name), "c%02d", index);
  return {kNamespace, name};
}

// `rows` rows of the bench schema, ids from `first`.
std::shared_ptr<arrow::RecordBatch> MakeBatch(int64_t first, int64_t rows) {
  arrow::Int64Builder ids;
  arrow::StringBuilder data;
  for (int64_t i = 0; i < rows; ++i) {
    (void)ids.Append(first + i);
    (void)data.Append(StrCat("row-", first + i));
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("data", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, rows,
                                  {ids.Finish().ValueOrDie(), data.Finish().ValueOrDie()});
}

struct Totals {
  std::mutex mutex;
  std::vector<int64_t> latencies_ns;
  std::vector<int64_t> rows_per_table;
  int64_t physical_commits = 0;  // committer off: one per acknowledged write
  int64_t data_files = 0;
  int64_t conflicts = 0;
  int64_t errors = 0;
  std::string first_error;
};

// Checks that each table holds the rows its acknowledged writes added.
Status Verify(const std::shared_ptr<catalog::EmbeddedCatalog>& catalog,
              const std::vector<int64_t>& expected) {
  for (size_t t = 0; t < expected.size(); ++t) {
    SKADE_ASSIGN_OR_RAISE(auto table,
                          table::Table::Load(catalog, catalog->file_io_ptr(), TableName(t)));
    auto snapshot = table.metadata().CurrentSnapshot();
    int64_t live_rows = 0;
    int64_t summary_rows = 0;
    if (snapshot) {
      SKADE_ASSIGN_OR_RAISE(auto files, table::CurrentDataFiles(table));
      for (const auto& file : files) live_rows += file.record_count;
      auto total = snapshot->summary.find("total-records");
      if (total != snapshot->summary.end()) summary_rows = std::stoll(total->second);
    }
    if (live_rows != expected[t] || summary_rows != expected[t]) {
      return MakeError(ErrorKind::kInternal, "verification failed: table ", TableName(t).ToString(),
                       " holds ", live_rows, " rows in its live data files and total-records ",
                       summary_rows, ", but ", expected[t], " rows were acknowledged");
    }
  }
  return OkStatus();
}

double Percentile(const std::vector<int64_t>& sorted_ns, double p) {
  if (sorted_ns.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted_ns.size())));
  rank = std::clamp<size_t>(rank, 1, sorted_ns.size());
  return static_cast<double>(sorted_ns[rank - 1]) / 1000.0;
}

int Run(const Args& args) {
  catalog::EmbeddedCatalogOptions options;
  options.warehouse = args.warehouse;
  auto durability = store::ParseDurability(args.durability);
  if (!durability) {
    std::cerr << durability.error().ToString() << "\n";
    return 2;
  }
  options.durability = *durability;
  auto opened = catalog::EmbeddedCatalog::Open(options);
  if (!opened) {
    std::cerr << "open: " << opened.error().ToString() << "\n";
    return 1;
  }
  std::shared_ptr<catalog::EmbeddedCatalog> catalog = *opened;
  if (auto made = catalog->CreateNamespace(kNamespace, {}); !made) {
    std::cerr << "namespace: " << made.error().ToString() << "\n";
    return 1;
  }
  const spec::TableIdentifier warmup{kNamespace, "warmup"};
  for (int t = -1; t < args.tables; ++t) {
    catalog::CreateTableRequest request;
    request.name = t < 0 ? warmup.name : TableName(t).name;
    request.schema = BenchSchema();
    if (auto created = catalog->CreateTable(kNamespace, request); !created) {
      std::cerr << "create table: " << created.error().ToString() << "\n";
      return 1;
    }
  }
  bool durable_files = catalog->durability() == store::Durability::kImmediate;

  std::unique_ptr<commit::CoalescingCommitter> committer;
  if (args.committer == "on") {
    auto made = commit::CoalescingCommitter::Make(catalog);
    if (!made) {
      std::cerr << "committer: " << made.error().ToString() << "\n";
      return 1;
    }
    committer = std::move(*made);
  }

  // Built before the barrier: writer w's k-th batch holds ids
  // (w * writes_per_writer + k) * rows onwards. Large batches are shared
  // between writers (their ids then repeat) so memory stays bounded.
  const int distinct = args.rows >= 1000 ? std::min(args.writers, 64) : args.writers;
  std::vector<std::vector<std::shared_ptr<arrow::RecordBatch>>> batches(distinct);
  for (int w = 0; w < distinct; ++w) {
    for (int k = 0; k < args.writes_per_writer; ++k) {
      batches[w].push_back(
          MakeBatch((static_cast<int64_t>(w) * args.writes_per_writer + k) * args.rows, args.rows));
    }
  }

  Totals totals;
  totals.rows_per_table.assign(args.tables, 0);
  std::barrier start(args.writers + 1);
  std::atomic<int64_t> last_end_ns{0};
  auto deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point began;

  auto write_once = [&](const spec::TableIdentifier& name,
                        const std::shared_ptr<arrow::RecordBatch>& batch, int64_t* files,
                        int64_t* conflicts) -> Status {
    if (committer) {
      SKADE_ASSIGN_OR_RAISE(auto receipt, committer->Append(name, batch));
      (void)receipt;
      return OkStatus();
    }
    while (true) {
      SKADE_ASSIGN_OR_RAISE(
          auto table, table::Table::Load(catalog, catalog->file_io_ptr(), name, durable_files));
      auto result = ingest::Append(table, {batch});
      if (result) {
        *files += result->stats.files;
        return OkStatus();
      }
      if (result.error().kind != ErrorKind::kCommitFailed) return tl::unexpected(result.error());
      ++*conflicts;
    }
  };

  {
    int64_t files = 0, conflicts = 0;
    if (Status warmed = write_once(warmup, MakeBatch(0, args.rows), &files, &conflicts); !warmed) {
      std::cerr << "warm-up write: " << warmed.error().ToString() << "\n";
      return 1;
    }
  }
  const commit::CoalescingCommitterStats before =
      committer ? committer->stats() : commit::CoalescingCommitterStats{};

  std::vector<std::thread> threads;
  threads.reserve(args.writers);
  for (int w = 0; w < args.writers; ++w) {
    threads.emplace_back([&, w] {
      std::vector<int64_t> latencies;
      std::vector<int64_t> rows(args.tables, 0);
      int64_t files = 0, conflicts = 0, commits = 0, errors = 0;
      std::string error;
      start.arrive_and_wait();
      for (int k = 0; k < args.writes_per_writer; ++k) {
        auto now = std::chrono::steady_clock::now();
        if (now >= deadline) break;
        int t = (w + k) % args.tables;
        Status status = write_once(TableName(t), batches[w % distinct][k], &files, &conflicts);
        auto end = std::chrono::steady_clock::now();
        if (!status) {
          ++errors;
          if (error.empty()) error = status.error().ToString();
          continue;
        }
        latencies.push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(end - now).count());
        rows[t] += args.rows;
        ++commits;
        int64_t end_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - began).count();
        int64_t seen = last_end_ns.load();
        while (seen < end_ns && !last_end_ns.compare_exchange_weak(seen, end_ns)) {
        }
      }
      std::lock_guard<std::mutex> lock(totals.mutex);
      totals.latencies_ns.insert(totals.latencies_ns.end(), latencies.begin(), latencies.end());
      for (int t = 0; t < args.tables; ++t) totals.rows_per_table[t] += rows[t];
      totals.data_files += files;
      totals.conflicts += conflicts;
      totals.physical_commits += commits;
      totals.errors += errors;
      if (totals.first_error.empty()) totals.first_error = error;
    });
  }
  began = std::chrono::steady_clock::now();
  deadline = began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(args.seconds));
  start.arrive_and_wait();
  for (auto& thread : threads) thread.join();
  double wall = static_cast<double>(last_end_ns.load()) / 1e9;

  int64_t physical_commits = totals.physical_commits;
  int64_t data_files = totals.data_files;
  if (committer) {
    auto stats = committer->stats();
    physical_commits = stats.physical_commits - before.physical_commits;
    data_files = stats.data_files - before.data_files;
  }
  std::string error = totals.first_error;
  if (totals.errors > 0) {
    error = StrCat(totals.errors, " writes failed; the first: ", error);
  } else if (Status verified = Verify(catalog, totals.rows_per_table); !verified) {
    error = verified.error().ToString();
  }

  std::sort(totals.latencies_ns.begin(), totals.latencies_ns.end());
  int64_t ops = static_cast<int64_t>(totals.latencies_ns.size());
  JsonWriter json;
  json.StartObject();
  json.Field("run_id", args.run_id);
  json.Field("target", "skade-embedded");
  json.Field("scenario", "coalesce");
  json.Field("variant", StrCat(args.rows, "_row", args.rows == 1 ? "" : "s", "/", args.tables,
                               "_table", args.tables == 1 ? "" : "s"));
  json.Field("threads", static_cast<int64_t>(args.writers));
  json.Field("committer", args.committer);
  json.Field("durability", args.durability);
  json.Field("rows_per_write", args.rows);
  json.Field("tables", static_cast<int64_t>(args.tables));
  json.Field("writes_per_writer", static_cast<int64_t>(args.writes_per_writer));
  if (error.empty()) {
    json.Field("ops", ops);
    json.Key("ops_per_sec");
    json.Double(wall > 0 ? static_cast<double>(ops) / wall : 0);
    json.Key("p50_us");
    json.Double(Percentile(totals.latencies_ns, 0.50));
    json.Key("p99_us");
    json.Double(Percentile(totals.latencies_ns, 0.99));
    json.Key("p999_us");
    json.Double(Percentile(totals.latencies_ns, 0.999));
  } else {
    json.Field("ops", int64_t{0});
    json.Field("error", error);
  }
  json.Field("acknowledged_writes", ops);
  json.Field("physical_commits", physical_commits);
  json.Key("physical_commits_per_sec");
  json.Double(wall > 0 ? static_cast<double>(physical_commits) / wall : 0);
  json.Field("data_files", data_files);
  json.Field("conflicts", totals.conflicts);
  json.Field("errors", totals.errors);
  json.Key("wall_seconds");
  json.Double(wall);
  json.Key("peak_rss_mb");
  json.Double(static_cast<double>(PeakRssKb()) / 1024.0);
  json.Field("notes", committer ? std::string("CoalescingCommitter::Append, default options")
                                : std::string("ingest::Append per write (one data file, one "
                                              "snapshot); conflicts = writes redone after the "
                                              "table's own retries gave up"));
  json.EndObject();
  std::cout << json.Take() << std::endl;
  if (!error.empty()) {
    std::cerr << "coalesce: " << error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace skade::bench

int main(int argc, char** argv) {
  skade::data::PreferJemallocArrowPool();  // as the skade CLI does
  skade::bench::Args args;
  CLI::App app{"skade_coalesce_bench: the coalesce scenario (bench/README.md)"};
  app.add_option("--run-id", args.run_id);
  app.add_option("--warehouse", args.warehouse)->required();
  app.add_option("--durability", args.durability, "immediate | eventual | none");
  app.add_option("--committer", args.committer, "on: CoalescingCommitter; off: a commit per write")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--writers", args.writers)->check(CLI::PositiveNumber);
  app.add_option("--writes-per-writer", args.writes_per_writer)->check(CLI::PositiveNumber);
  app.add_option("--rows", args.rows, "rows per write")->check(CLI::PositiveNumber);
  app.add_option("--tables", args.tables)->check(CLI::Range(1, 99));
  app.add_option("--seconds", args.seconds, "stop starting writes after this long");
  CLI11_PARSE(app, argc, argv);
  return skade::bench::Run(args);
}
