// skade_ingest_bench: the ingest benchmark of issue 4 §7, on the generated
// data of bench_data.h, in one run:
//
//   ingest_raw_encode         target arrow-parquet: the groups encoded to
//                             Parquet in memory with parquet::arrow on every
//                             core, same writer properties — the physical
//                             limit of the encode.
//   ingest_pipelined          target skade-embedded: IngestPipelined into a
//                             fresh table of an EmbeddedCatalog.
//   ingest_pipelined_overlap  same, IngestPipelinedOverlap.
//   ingest_commit_bound       serial vs overlapped (variant "serial" /
//                             "overlap") on many small files through a
//                             LatencyFileIO simulating an object store
//                             with commit latency L = 0, 5, 20 ms: every
//                             data file write takes L more, and each
//                             commit's three metadata writes (manifest,
//                             manifest list, metadata file) L/3 each, so a
//                             commit costs L more.
//
// Each scenario runs --reps times on a fresh table, the scenarios' runs
// interleaved so that load from other processes hits them alike;
// rows_per_sec and mb_per_sec are the median repetition's; p50/p99/p999_us
// are percentiles of the repetitions' wall times; ops counts rows over all
// repetitions.
// peak_rss_mb is the process's peak resident set during the scenario's
// runs (the largest over its repetitions): VmHWM, reset before each run
// through /proc/self/clear_refs, so it includes the input batches every
// scenario shares (measured alone as "baseline_rss_mb") plus what the run
// itself held — for the ingests, the encoded files in memory. Freed memory
// is trimmed before each run, but allocators keep some, so a scenario run
// after a hungrier one can report that one's peak: compare targets with
// one scenario per process (--scenarios).
// Records are JSON lines (bench/README.md "Records" fields plus rows_per_sec,
// mb_per_sec, commit_latency_ms, files, commits, peak_rss_mb, …) appended
// to --out.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <malloc.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>

#include "common/peak_rss.h"
#include "ingest/bench_data.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/data/arrow_memory_pool.h"
#include "skade/ingest/ingest.h"
#include "skade/io/file_io_registry.h"
#include "skade/util/clock.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"
#include "skade/util/worker_pool.h"
#include "testing/latency_file_io.h"

namespace skade::bench {
namespace {

struct Args {
  std::string run_id = "adhoc";
  std::string out = "-";
  std::string warehouse;
  int files = 40;
  int64_t rows_per_file = 100000;
  int files_per_commit = 4;
  int channel_depth = 4;
  int reps = 3;
  int commit_bound_files = 40;
  int64_t commit_bound_rows = 2000;
  std::vector<int> latencies_ms = {0, 5, 20};
  std::vector<std::string> scenarios = {"raw", "pipelined", "overlap", "commit_bound"};
  std::string durability = "immediate";
  std::string dump_data;
  std::string dump_commit_bound_data;
  int64_t baseline_rss_kb = 0;  // measured, not an option: RSS with the input loaded
};

struct Record {
  std::string target;
  std::string scenario;
  std::string variant;
  int64_t rows = 0;              // per repetition
  int64_t arrow_bytes = 0;       // per repetition
  std::vector<int64_t> wall_us;  // one per repetition
  // Per repetition, for ingests: IngestStats encode_us, write_us, commit_us.
  std::vector<int64_t> encode_us;
  std::vector<int64_t> write_us;
  std::vector<int64_t> commit_us;
  int64_t files = 0;
  int64_t commits = 0;
  int files_per_commit = 0;
  int channel_depth = 0;
  int commit_latency_ms = 0;
  int64_t peak_rss_kb = 0;         // the largest over repetitions
  int64_t peak_encoded_files = 0;  // IngestStats, the largest over repetitions
  std::string error;
};

// Resets VmHWM to the current resident set, so that the next PeakRssKb()
// measures what happened since. Memory earlier runs freed is first handed
// back (glibc malloc, Arrow's pool), or a run that needs less than an
// earlier one would report the earlier peak. False where the kernel does
// not allow the reset (then peaks are the process's so far).
bool ResetPeakRss() {
  arrow::default_memory_pool()->ReleaseUnused();
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return clear.good();
}

int64_t Percentile(std::vector<int64_t> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

std::string ToJson(const Record& record, const Args& args) {
  int64_t median_us = Percentile(record.wall_us, 0.5);
  double seconds = static_cast<double>(std::max<int64_t>(median_us, 1)) / 1e6;
  double rows_per_sec = static_cast<double>(record.rows) / seconds;
  JsonWriter json;
  json.StartObject();
  json.Field("target", record.target);
  json.Field("scenario", record.scenario);
  if (!record.variant.empty()) json.Field("variant", record.variant);
  json.Field("threads", static_cast<int64_t>(std::thread::hardware_concurrency()));
  json.Field("ops", record.rows * static_cast<int64_t>(record.wall_us.size()));
  json.Key("ops_per_sec");
  json.Double(rows_per_sec);
  json.Field("p50_us", median_us);
  json.Field("p99_us", Percentile(record.wall_us, 0.99));
  json.Field("p999_us", Percentile(record.wall_us, 0.999));
  json.Field("run_id", args.run_id);
  json.Key("rows_per_sec");
  json.Double(rows_per_sec);
  json.Key("mb_per_sec");
  json.Double(static_cast<double>(record.arrow_bytes) / 1e6 / seconds);
  json.Field("commit_latency_ms", static_cast<int64_t>(record.commit_latency_ms));
  json.Field("rows", record.rows);
  json.Field("files", record.files);
  json.Field("commits", record.commits);
  json.Field("files_per_commit", static_cast<int64_t>(record.files_per_commit));
  json.Field("channel_depth", static_cast<int64_t>(record.channel_depth));
  json.Field("reps", static_cast<int64_t>(record.wall_us.size()));
  json.Field("durability", args.durability);
  json.Key("peak_rss_mb");
  json.Double(static_cast<double>(record.peak_rss_kb) / 1024.0);
  json.Key("baseline_rss_mb");
  json.Double(static_cast<double>(args.baseline_rss_kb) / 1024.0);
  if (!record.encode_us.empty()) {
    json.Field("peak_encoded_files", record.peak_encoded_files);
    json.Field("encode_ms_p50", Percentile(record.encode_us, 0.5) / 1000);
    json.Field("write_ms_p50", Percentile(record.write_us, 0.5) / 1000);
    json.Field("commit_ms_p50", Percentile(record.commit_us, 0.5) / 1000);
  }
  if (!record.error.empty()) json.Field("error", record.error);
  json.EndObject();
  return json.Take();
}

// The raw encode: parquet::arrow with the properties ParquetDataWriter uses
// (zstd, 1 MiB pages, 20000-row page limit, 2 MiB dictionaries, one row
// group), every group on the default pool (one worker per core).
Result<int64_t> RawEncode(const std::vector<ingest::RecordBatchGroup>& groups) {
  auto properties = parquet::WriterProperties::Builder()
                        .compression(arrow::Compression::ZSTD)
                        ->data_pagesize(1 << 20)
                        ->max_rows_per_page(20000)
                        ->dictionary_pagesize_limit(2 << 20)
                        ->max_row_group_length(std::numeric_limits<int64_t>::max())
                        ->build();
  auto arrow_properties = parquet::ArrowWriterProperties::Builder().store_schema()->build();
  std::vector<arrow::Status> results(groups.size());
  std::vector<int64_t> sizes(groups.size());
  int64_t start = MonotonicMicros();
  WorkerPool::Default().ParallelFor(groups.size(), [&](size_t i) {
    auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
    auto writer = parquet::arrow::FileWriter::Open(
        *groups[i][0]->schema(), arrow::default_memory_pool(), sink, properties, arrow_properties);
    if (!writer.ok()) {
      results[i] = writer.status();
      return;
    }
    for (const auto& batch : groups[i]) {
      results[i] = (*writer)->WriteRecordBatch(*batch);
      if (!results[i].ok()) return;
    }
    results[i] = (*writer)->Close();
    sizes[i] = sink->Finish().ValueOrDie()->size();
  });
  int64_t elapsed = MonotonicMicros() - start;
  for (const auto& status : results) {
    if (!status.ok()) return InternalError("Raw encode failed: ", status.ToString());
  }
  return elapsed;
}

// With `latency_ms`, the warehouse's FileIO (from the registry, as the
// catalog would choose it) slowed down as an object store would be.
Result<std::shared_ptr<catalog::EmbeddedCatalog>> OpenCatalog(const Args& args,
                                                              const std::string& name,
                                                              int latency_ms) {
  catalog::EmbeddedCatalogOptions options;
  options.warehouse = args.warehouse + "/" + name;
  SKADE_ASSIGN_OR_RAISE(options.durability, store::ParseDurability(args.durability));
  if (latency_ms > 0) {
    SKADE_ASSIGN_OR_RAISE(auto io, io::FileIORegistry::Default().Create(options.warehouse));
    auto data_write = std::chrono::microseconds(latency_ms * 1000);
    options.file_io =
        std::make_shared<skade::testing::LatencyFileIO>(io, data_write, data_write / 3);
  }
  SKADE_ASSIGN_OR_RAISE(auto catalog, catalog::EmbeddedCatalog::Open(options));
  SKADE_RETURN_NOT_OK(catalog->CreateNamespace({"bench"}, {}));
  return catalog;
}

// One ingest of `groups` into a new table `name` of `catalog`.
Result<ingest::IngestStats> IngestOnce(const std::shared_ptr<catalog::EmbeddedCatalog>& catalog,
                                       const std::shared_ptr<io::FileIO>& io,
                                       const std::string& name,
                                       const std::vector<ingest::RecordBatchGroup>& groups,
                                       bool overlap, int files_per_commit, int channel_depth) {
  catalog::CreateTableRequest request;
  request.name = name;
  request.schema = IngestBenchSchema();
  SKADE_ASSIGN_OR_RAISE(auto created, catalog->CreateTable({"bench"}, request));
  table::Table table({{"bench"}, name}, std::move(created), catalog, io,
                     catalog->durability() == store::Durability::kImmediate);
  ingest::IngestOptions options;
  options.files_per_commit = files_per_commit;
  options.channel_depth = channel_depth;
  SKADE_ASSIGN_OR_RAISE(auto result, overlap
                                         ? ingest::IngestPipelinedOverlap(table, groups, options)
                                         : ingest::IngestPipelined(table, groups, options));
  return result.stats;
}

// A scenario: its record and one timed run (which fills the record's
// counts and returns the wall time).
struct Case {
  Record record;
  std::function<Result<int64_t>(int rep, Record*)> run;
};

Case IngestCase(const Args& args, const std::string& scenario, const std::string& variant,
                const std::vector<ingest::RecordBatchGroup>* groups, bool overlap, int latency_ms) {
  Record record{"skade-embedded", scenario, variant};
  record.arrow_bytes = ArrowBytes(*groups);
  record.files_per_commit = args.files_per_commit;
  record.channel_depth = args.channel_depth;
  record.commit_latency_ms = latency_ms;
  std::string name = StrCat(scenario, variant.empty() ? "" : "_", variant, "_", latency_ms);
  auto catalog = std::make_shared<Result<std::shared_ptr<catalog::EmbeddedCatalog>>>(
      OpenCatalog(args, name, latency_ms));
  auto run = [&args, catalog, groups, overlap](int rep, Record* record) -> Result<int64_t> {
    if (!*catalog) return tl::unexpected(catalog->error());
    // The catalog's FileIO: below immediate it is what makes the data files
    // durable before the pointers that name them (as the product does).
    SKADE_ASSIGN_OR_RAISE(
        auto stats, IngestOnce(**catalog, (**catalog)->file_io_ptr(), StrCat("t", rep), *groups,
                               overlap, args.files_per_commit, args.channel_depth));
    record->rows = stats.rows;
    record->files = stats.files;
    record->commits = stats.commits;
    record->encode_us.push_back(stats.encode_us);
    record->write_us.push_back(stats.write_us);
    record->commit_us.push_back(stats.commit_us);
    record->peak_encoded_files = std::max(record->peak_encoded_files, stats.peak_encoded_files);
    return stats.total_us;
  };
  return Case{std::move(record), run};
}

Case RawCase(const std::vector<ingest::RecordBatchGroup>* groups) {
  Record record{"arrow-parquet", "ingest_raw_encode", ""};
  record.arrow_bytes = ArrowBytes(*groups);
  for (const auto& group : *groups) {
    for (const auto& batch : group) record.rows += batch->num_rows();
  }
  record.files = static_cast<int64_t>(groups->size());
  return Case{std::move(record), [groups](int, Record*) { return RawEncode(*groups); }};
}

// The groups as one Parquet file, uncompressed, one row group per group.
Status DumpData(const std::vector<ingest::RecordBatchGroup>& groups, const std::string& path) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (const auto& group : groups) batches.insert(batches.end(), group.begin(), group.end());
  auto table = arrow::Table::FromRecordBatches(batches);
  auto sink = arrow::io::FileOutputStream::Open(path);
  if (!table.ok() || !sink.ok()) return IoError("Cannot dump data to ", path);
  auto properties =
      parquet::WriterProperties::Builder().compression(arrow::Compression::UNCOMPRESSED)->build();
  auto written =
      parquet::arrow::WriteTable(**table, arrow::default_memory_pool(), *sink,
                                 groups.empty() ? 1 : groups[0][0]->num_rows(), properties);
  if (!written.ok()) return IoError("Cannot dump data to ", path, ": ", written.ToString());
  return OkStatus();
}

bool Wants(const Args& args, const std::string& scenario) {
  return std::find(args.scenarios.begin(), args.scenarios.end(), scenario) != args.scenarios.end();
}

int Main(int argc, char** argv) {
  Args args;
  CLI::App app{"skade ingest benchmark (issue 4 §7)"};
  app.add_option("--run-id", args.run_id, "Shared by every record of one run");
  app.add_option("--out", args.out, "JSON lines file to append to (- for stdout)");
  app.add_option("--warehouse", args.warehouse, "Scratch directory (emptied first)")->required();
  app.add_option("--files", args.files, "Data files (groups) per ingest");
  app.add_option("--rows-per-file", args.rows_per_file, "Rows per data file");
  app.add_option("--files-per-commit", args.files_per_commit, "Files per snapshot");
  app.add_option("--channel-depth", args.channel_depth, "Writes in flight / queue capacity");
  app.add_option("--reps", args.reps, "Repetitions per scenario");
  app.add_option("--commit-bound-files", args.commit_bound_files, "Files of the commit-bound run");
  app.add_option("--commit-bound-rows", args.commit_bound_rows, "Rows per commit-bound file");
  app.add_option("--latencies-ms", args.latencies_ms, "Simulated write latencies")->delimiter(',');
  app.add_option("--scenarios", args.scenarios, "raw, pipelined, overlap, commit_bound")
      ->delimiter(',');
  app.add_option("--durability", args.durability, "immediate | eventual | none");
  app.add_option("--dump-data", args.dump_data,
                 "Also write the --files groups to this Parquet file (for the PyIceberg peer)");
  app.add_option("--dump-commit-bound-data", args.dump_commit_bound_data,
                 "Also write the commit-bound groups to this Parquet file");
  CLI11_PARSE(app, argc, argv);

  std::error_code ec;
  std::filesystem::remove_all(args.warehouse, ec);
  std::ofstream file;
  if (args.out != "-") file.open(args.out, std::ios::app);
  std::ostream& out = args.out == "-" ? std::cout : file;
  auto emit = [&](const Record& record) {
    out << ToJson(record, args) << std::endl;
    int64_t median = Percentile(record.wall_us, 0.5);
    std::cerr << record.target << " " << record.scenario
              << (record.variant.empty() ? "" : " " + record.variant) << " latency "
              << record.commit_latency_ms << " ms: "
              << (record.error.empty()
                      ? StrCat(static_cast<int64_t>(static_cast<double>(record.rows) /
                                                    (static_cast<double>(median) / 1e6)),
                               " rows/s (median ", median / 1000, " ms)")
                      : record.error)
              << ", peak RSS " << record.peak_rss_kb / 1024 << " MiB\n";
  };

  auto groups = IngestBenchData(args.files, args.rows_per_file);
  auto small = IngestBenchData(args.commit_bound_files, args.commit_bound_rows);
  for (const auto& [dump, data] :
       {std::pair{args.dump_data, &groups}, std::pair{args.dump_commit_bound_data, &small}}) {
    if (dump.empty()) continue;
    if (Status dumped = DumpData(*data, dump); !dumped) {
      std::cerr << "skade_ingest_bench: " << dumped.error().ToString() << "\n";
      return 1;
    }
  }
  if (ResetPeakRss()) {
    args.baseline_rss_kb = PeakRssKb();
  } else {
    std::cerr << "skade_ingest_bench: cannot reset the peak RSS (/proc/self/clear_refs); "
                 "peak_rss_mb is the process's peak so far\n";
  }
  std::vector<Case> cases;
  if (Wants(args, "raw")) cases.push_back(RawCase(&groups));
  if (Wants(args, "pipelined")) {
    cases.push_back(IngestCase(args, "ingest_pipelined", "", &groups, false, 0));
  }
  if (Wants(args, "overlap")) {
    cases.push_back(IngestCase(args, "ingest_pipelined_overlap", "", &groups, true, 0));
  }
  if (Wants(args, "commit_bound")) {
    for (int latency : args.latencies_ms) {
      cases.push_back(IngestCase(args, "ingest_commit_bound", "serial", &small, false, latency));
      cases.push_back(IngestCase(args, "ingest_commit_bound", "overlap", &small, true, latency));
    }
  }
  for (int rep = 0; rep < args.reps; ++rep) {
    for (Case& c : cases) {
      if (!c.record.error.empty()) continue;
      ResetPeakRss();
      auto elapsed = c.run(rep, &c.record);
      c.record.peak_rss_kb = std::max(c.record.peak_rss_kb, PeakRssKb());
      if (elapsed) {
        c.record.wall_us.push_back(*elapsed);
      } else {
        c.record.error = elapsed.error().ToString();
      }
    }
  }
  for (const Case& c : cases) emit(c.record);
  std::filesystem::remove_all(args.warehouse, ec);
  return 0;
}

}  // namespace
}  // namespace skade::bench

int main(int argc, char** argv) {
  skade::data::PreferJemallocArrowPool();  // as the skade CLI does
  return skade::bench::Main(argc, argv);
}
