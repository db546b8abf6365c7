// skade_scan_bench: the C++ side of the read-path benchmark (bench/scan/
// scan_bench.py drives it and the peers). Each command prints one JSON line.
//
//   make-planning-table --warehouse W --table NS.T --files N --commits C
//       a table of N data files (described with metrics, never read: the
//       planning benchmark reads manifests only) in C commits, partitioned
//       by month(day); ids ascend with the files, so an id range prunes by
//       metrics and a month by partition.
//   plan --warehouse W --table NS.T [--where EXPR] --reps R
//       planning only: R cold plans (a new manifest cache each) and R warm
//       ones (one cache, filled by a first plan); milliseconds of each.
//   scan --warehouse W --table NS.T [--where EXPR] [--threads N] --reps R
//       plan and read every batch (skade's RecordBatchReader), R times.
//   raw --files-from LIST [--threads N] --reps R
//       the limit: the same Parquet files read whole by Arrow on N threads,
//       one file per task, no Iceberg logic.
#include <arrow/io/file.h>
#include <arrow/table.h>
#include <parquet/arrow/reader.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "common/peak_rss.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/data/arrow_memory_pool.h"
#include "skade/expr/expression_parser.h"
#include "skade/read/scan_reader.h"
#include "skade/scan/table_scan.h"
#include "skade/spec/table_locations.h"
#include "skade/table/fast_append.h"
#include "skade/table/table.h"
#include "skade/util/strings.h"

namespace {

using namespace skade;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

[[noreturn]] void Fail(const std::string& what) {
  std::cerr << "skade_scan_bench: " << what << "\n";
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, const char* what) {
  if (!result) Fail(std::string(what) + ": " + result.error().ToString());
  return std::move(*result);
}

std::shared_ptr<catalog::EmbeddedCatalog> Open(const std::string& warehouse) {
  catalog::EmbeddedCatalogOptions options;
  options.warehouse = warehouse;
  return Check(catalog::EmbeddedCatalog::Open(options), "open the catalog");
}

std::string Json(const std::vector<double>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

int MakePlanningTable(const std::string& warehouse, const std::string& name, int files,
                      int commits) {
  auto catalog = Open(warehouse);
  auto id = Check(spec::ParseTableIdentifier(name), "table name");
  (void)catalog->CreateNamespace(id.ns, {});
  catalog::CreateTableRequest request;
  request.name = id.name;
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}},
                                        {2, "day", spec::Type::Date(), true, {}, {}, {}},
                                        {3, "quantity", spec::Type::Double(), false, {}, {}, {}},
                                        {4, "comment", spec::Type::String(), false, {}, {}, {}}});
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back({2, {}, 1000, "day_month", spec::Transform::Month()});
  request.partition_spec = spec;
  request.properties = {{"format-version", "2"}};
  auto created = Check(catalog->CreateTable(id.ns, request), "create the table");
  table::Table table(id, created, catalog, catalog->file_io_ptr());
  const int per_commit = std::max(1, files / std::max(1, commits));
  constexpr int64_t kRows = 100000;
  const int32_t first_day = 8035;  // 1992-01-01, as TPC-H's dates
  int made = 0;
  while (made < files) {
    table::FastAppend append(table);
    for (int i = 0; i < per_commit && made < files; ++i, ++made) {
      // Files in ascending day order: ~7 years over all files.
      int32_t day = first_day + static_cast<int32_t>(int64_t{made} * 2555 / files);
      spec::Literal month = *spec::Transform::Month().Apply(spec::Literal::Date(day));
      spec::DataFile file;
      file.file_path = spec::DataFileLocation(
          table.metadata(), StrCat("day_month=", std::get<int32_t>(month.value())),
          StrCat("f", made, ".parquet"));
      file.spec_id = table.metadata().default_spec_id;
      file.partition = {month};
      file.record_count = kRows;
      file.file_size_in_bytes = 8 << 20;
      for (int32_t column = 1; column <= 4; ++column) {
        file.column_sizes[column] = 2 << 20;
        file.value_counts[column] = kRows;
        file.null_value_counts[column] = 0;
      }
      file.nan_value_counts[3] = 0;
      file.lower_bounds[1] = spec::Literal::Long(int64_t{made} * kRows).ToBytes();
      file.upper_bounds[1] = spec::Literal::Long(int64_t{made + 1} * kRows - 1).ToBytes();
      file.lower_bounds[2] = spec::Literal::Date(day).ToBytes();
      file.upper_bounds[2] = spec::Literal::Date(day + 1).ToBytes();
      file.lower_bounds[3] = spec::Literal::Double(1).ToBytes();
      file.upper_bounds[3] = spec::Literal::Double(50).ToBytes();
      file.lower_bounds[4] = spec::Literal::String("a").ToBytes();
      file.upper_bounds[4] = spec::Literal::String("z").ToBytes();
      append.AppendFile(std::move(file));
    }
    table = Check(append.Commit(), "commit");
  }
  std::cout << "{\"files\": " << made << ", \"metadata_location\": \"" << table.metadata_location()
            << "\"}\n";
  return 0;
}

scan::ScanOptions Options(const std::string& where, int threads) {
  scan::ScanOptions options;
  if (!where.empty()) options.filter = Check(expr::ParseExpression(where), "--where");
  options.threads = threads;
  return options;
}

int Plan(const std::string& warehouse, const std::string& name, const std::string& where,
         int reps) {
  auto catalog = Open(warehouse);
  auto id = Check(spec::ParseTableIdentifier(name), "table name");
  auto loaded = Check(catalog->LoadTable(id), "load the table");
  scan::ScanOptions options = Options(where, 0);
  std::vector<double> cold, warm;
  size_t tasks = 0;
  scan::PlanStats stats;
  for (int r = 0; r < reps; ++r) {
    cache::ManifestCache cache;
    auto start = std::chrono::steady_clock::now();
    auto plan = Check(scan::PlanScan(loaded.metadata, loaded.metadata_location, catalog->file_io(),
                                     options, &cache),
                      "plan");
    cold.push_back(Seconds(start) * 1e3);
    tasks = plan.tasks.size();
    stats = plan.stats;
  }
  cache::ManifestCache cache;
  (void)Check(scan::PlanScan(loaded.metadata, loaded.metadata_location, catalog->file_io(), options,
                             &cache),
              "plan");
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    (void)Check(scan::PlanScan(loaded.metadata, loaded.metadata_location, catalog->file_io(),
                               options, &cache),
                "plan");
    warm.push_back(Seconds(start) * 1e3);
  }
  std::cout << "{\"tasks\": " << tasks << ", \"data_files\": " << stats.data_files_total
            << ", \"manifests\": " << stats.manifests_total
            << ", \"pruned_by_summary\": " << stats.manifests_pruned_by_summary
            << ", \"pruned_by_partition\": " << stats.data_files_pruned_by_partition
            << ", \"pruned_by_metrics\": " << stats.data_files_pruned_by_metrics
            << ", \"cold_ms\": " << Json(cold) << ", \"warm_ms\": " << Json(warm)
            << ", \"peak_rss_mb\": " << bench::PeakRssKb() / 1024.0 << "}\n";
  return 0;
}

int Scan(const std::string& warehouse, const std::string& name, const std::string& where,
         int threads, int reps) {
  auto catalog = Open(warehouse);
  auto id = Check(spec::ParseTableIdentifier(name), "table name");
  std::vector<double> seconds;
  int64_t rows = 0, bytes = 0, tasks = 0;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    cache::ManifestCache cache;
    auto plan = Check(
        scan::PlanTableScan(*catalog, id, catalog->file_io(), Options(where, threads), &cache),
        "plan");
    tasks = static_cast<int64_t>(plan.tasks.size());
    bytes = 0;
    for (const auto& task : plan.tasks) bytes += task.data_file.file_size_in_bytes;
    read::ScanReadOptions read_options;
    read_options.threads = threads;
    auto reader = Check(read::ReadScan(std::move(plan), catalog->file_io(), read_options), "read");
    rows = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      arrow::Status status = reader->ReadNext(&batch);
      if (!status.ok()) Fail("read: " + status.ToString());
      if (!batch) break;
      rows += batch->num_rows();
    }
    seconds.push_back(Seconds(start));
  }
  std::cout << "{\"rows\": " << rows << ", \"tasks\": " << tasks << ", \"bytes\": " << bytes
            << ", \"seconds\": " << Json(seconds)
            << ", \"peak_rss_mb\": " << bench::PeakRssKb() / 1024.0 << "}\n";
  return 0;
}

int Raw(const std::string& files_from, int threads, int reps) {
  std::vector<std::string> files;
  std::ifstream list(files_from);
  for (std::string line; std::getline(list, line);) {
    if (!line.empty()) files.push_back(line.starts_with("file://") ? line.substr(7) : line);
  }
  if (files.empty()) Fail("no files in " + files_from);
  int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  std::vector<double> seconds;
  std::atomic<int64_t> rows{0};
  for (int r = 0; r < reps; ++r) {
    rows = 0;
    std::atomic<size_t> next{0};
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < files.size();) {
          auto file = arrow::io::ReadableFile::Open(files[i]);
          if (!file.ok()) Fail(file.status().ToString());
          parquet::ArrowReaderProperties properties;
          properties.set_pre_buffer(true);
          parquet::arrow::FileReaderBuilder builder;
          if (auto s = builder.Open(*file); !s.ok()) Fail(s.ToString());
          builder.properties(properties);
          std::unique_ptr<parquet::arrow::FileReader> reader;
          if (auto s = builder.Build(&reader); !s.ok()) Fail(s.ToString());
          auto table = reader->ReadTable();
          if (!table.ok()) Fail(table.status().ToString());
          rows += (*table)->num_rows();
        }
      });
    }
    for (auto& thread : pool) thread.join();
    seconds.push_back(Seconds(start));
  }
  std::cout << "{\"rows\": " << rows.load() << ", \"files\": " << files.size()
            << ", \"seconds\": " << Json(seconds)
            << ", \"peak_rss_mb\": " << bench::PeakRssKb() / 1024.0 << "}\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  skade::data::PreferJemallocArrowPool();  // as the skade CLI does
  CLI::App app{"skade's read-path benchmark tool (bench/scan/scan_bench.py runs it)"};
  app.require_subcommand(1);
  std::string warehouse, table, where, files_from;
  int files = 10000, commits = 100, reps = 5, threads = 0;
  auto* make = app.add_subcommand("make-planning-table", "A table of many described data files");
  auto* plan = app.add_subcommand("plan", "Planning only, cold and warm manifest cache");
  auto* scan = app.add_subcommand("scan", "Plan and read every batch");
  auto* raw = app.add_subcommand("raw", "Arrow's all-core Parquet read of the same files");
  for (auto* command : {make, plan, scan}) {
    command->add_option("--warehouse", warehouse)->required();
    command->add_option("--table", table)->required();
  }
  make->add_option("--files", files);
  make->add_option("--commits", commits);
  for (auto* command : {plan, scan}) command->add_option("--where", where);
  for (auto* command : {plan, scan, raw}) command->add_option("--reps", reps);
  for (auto* command : {scan, raw}) command->add_option("--threads", threads);
  raw->add_option("--files-from", files_from)->required();
  CLI11_PARSE(app, argc, argv);
  if (*make) return MakePlanningTable(warehouse, table, files, commits);
  if (*plan) return Plan(warehouse, table, where, reps);
  if (*scan) return Scan(warehouse, table, where, threads, reps);
  return Raw(files_from, threads, reps);
}
