// `skade scan`: plan a scan of a table and read it, or print the plan.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>

#include "skade/cli/commands.h"
#include "skade/cli/progress_bar.h"
#include "skade/cli/scan_output.h"
#include "skade/expr/expression_parser.h"
#include "skade/read/scan_reader.h"
#include "skade/scan/table_scan.h"
#include "skade/util/strings.h"
#include "skade/util/timestamp.h"

namespace skade::cli {
namespace {

struct ScanArgs {
  std::string table;
  std::vector<std::string> select;
  std::string where;
  int64_t snapshot_id = 0;
  int64_t from_snapshot_id = 0;
  std::string as_of;
  std::string ref;
  std::optional<int64_t> limit;
  std::string format = "table";
  std::string output;
  bool force = false;
  int threads = 0;
  bool plan = false;
  bool stats = false;
  bool case_insensitive = false;
};

// Comma-separated lists and repeated flags both work: --select a,b --select c.
// An empty entry ("id,,s", a trailing comma) is a mistake, not "no column".
Result<std::vector<std::string>> SplitColumns(const std::vector<std::string>& values) {
  std::vector<std::string> columns;
  for (const std::string& value : values) {
    std::vector<std::string> parts = Split(value, ',');
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string column(StripWhitespace(parts[i]));
      if (column.empty()) {
        return InvalidArgument("--select '", value, "': column ", i + 1, " of ", parts.size(),
                               " is empty (name a column between each pair of commas)");
      }
      columns.push_back(std::move(column));
    }
  }
  return columns;
}

// Where the scan's file may not go, whatever --force says: the catalog's
// store, the roots its tables may be in (all but "*", which is everywhere),
// and the scanned table's own location, which "*" may put anywhere.
std::vector<std::string> ProtectedDirectories(const CliContext& context,
                                              const catalog::EmbeddedCatalog& catalog,
                                              const scan::ScanPlan& plan) {
  // The warehouse holds the default store (`<warehouse>/.skade/catalog`).
  std::vector<std::string> directories = {catalog.warehouse_location()};
  if (!context.store.empty()) directories.push_back(context.store);
  for (const std::string& root : context.allowed_locations) {
    if (root != "*") directories.push_back(root);
  }
  if (plan.metadata) directories.push_back(plan.metadata->location);
  return directories;
}

std::string FileName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

void PrintPlan(const scan::ScanPlan& plan) {
  const scan::PlanStats& s = plan.stats;
  std::cout << "metadata   " << plan.metadata_location << "\n";
  if (!plan.snapshot) {
    std::cout << "snapshot   none (the table is empty)\n";
  } else {
    std::cout << "snapshot   " << plan.snapshot->snapshot_id << " ("
              << FormatTimestampMillis(plan.snapshot->timestamp_ms) << ")\n";
  }
  if (plan.from_snapshot_id) {
    std::cout << "appends    after " << *plan.from_snapshot_id << ":";
    if (plan.append_snapshot_ids.empty()) std::cout << " none";
    for (int64_t id : plan.append_snapshot_ids) std::cout << " " << id;
    std::cout << " (their added files only, no deletes)\n";
  }
  std::cout << "schema     " << plan.schema->schema_id() << "\n"
            << "filter     " << plan.filter->ToString(plan.schema.get()) << "\n"
            << "manifests  " << s.manifests_total << " listed, " << s.manifests_pruned_by_summary
            << " pruned by partition summaries, " << s.manifests_read << " read ("
            << s.manifest_cache_hits << " from cache)\n"
            << "data files " << s.data_files_total << " live, " << s.data_files_pruned_by_partition
            << " pruned by partition, " << s.data_files_pruned_by_metrics
            << " pruned by column metrics, " << plan.tasks.size() << " to read\n"
            << "deletes    " << s.delete_files_total << " delete files, " << s.delete_files_applied
            << " apply\n"
            << "planned in " << s.planning_micros / 1000.0 << " ms\n";
  int64_t rows = 0, bytes = 0;
  for (const scan::FileScanTask& task : plan.tasks) {
    rows += task.data_file.record_count;
    bytes += task.data_file.file_size_in_bytes;
  }
  std::cout << "tasks      " << plan.tasks.size() << " (" << Human(static_cast<double>(rows))
            << " rows before deletes and residuals, " << Human(static_cast<double>(bytes))
            << "B)\n";
  for (const scan::FileScanTask& task : plan.tasks) {
    std::cout << "  " << task.data_file.file_path << "  rows=" << task.data_file.record_count
              << "  bytes=" << task.data_file.file_size_in_bytes
              << "  seq=" << task.data_sequence_number;
    if (!task.deletes.empty()) {
      std::cout << "  deletes=";
      for (size_t i = 0; i < task.deletes.size(); ++i) {
        std::cout << (i ? "," : "") << FileName(task.deletes[i].file.file_path);
      }
    }
    if (!task.residual->IsTrue())
      std::cout << "  residual: " << task.residual->ToString(plan.schema.get());
    std::cout << "\n";
  }
}

Status Scan(const CliContext& context, const ScanArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  scan::ScanOptions options;
  if (!args.where.empty()) {
    SKADE_ASSIGN_OR_RAISE(options.filter, expr::ParseExpression(args.where));
  }
  SKADE_ASSIGN_OR_RAISE(options.select, SplitColumns(args.select));
  options.case_sensitive = !args.case_insensitive;
  options.threads = args.threads;
  if (args.snapshot_id != 0) options.snapshot_id = args.snapshot_id;
  if (!args.as_of.empty()) {
    SKADE_ASSIGN_OR_RAISE(options.as_of_timestamp_ms, ParseTimestampMillis(args.as_of));
  }
  if (!args.ref.empty()) options.ref = args.ref;
  if (args.from_snapshot_id != 0) options.from_snapshot_id = args.from_snapshot_id;

  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  // Manifest paths come from whoever committed to the table (a REST client).
  options.file_policy = &catalog->location_policy();
  cache::ManifestCache cache;
  SKADE_ASSIGN_OR_RAISE(
      scan::ScanPlan plan,
      scan::PlanTableScan(*catalog, identifier, catalog->file_io(), options, &cache));
  if (args.plan) {
    PrintPlan(plan);
    return OkStatus();
  }

  SKADE_ASSIGN_OR_RAISE(auto schema, read::ScanSchema(plan));
  ScanDestination destination{args.output, args.force,
                              ProtectedDirectories(context, *catalog, plan)};
  SKADE_ASSIGN_OR_RAISE(auto output, MakeScanOutput(args.format, destination, schema));
  // A bar only where it cannot mix with the rows: stderr is a terminal and
  // the rows go to a file or a pipe.
  bool show_progress =
      ::isatty(STDERR_FILENO) && (!args.output.empty() || !::isatty(STDOUT_FILENO));
  ProgressBar bar(show_progress);
  read::ScanReadOptions read_options;
  read_options.threads = args.threads;
  read_options.limit = args.limit;
  read::ScanProgress last;
  read_options.on_progress = [&](const read::ScanProgress& p) {
    last = p;
    double fraction = p.bytes_total > 0
                          ? static_cast<double>(p.bytes_done) / p.bytes_total
                          : static_cast<double>(p.tasks_done) / std::max<int64_t>(p.tasks_total, 1);
    double seconds = bar.Seconds();
    char detail[160];
    std::snprintf(detail, sizeof(detail), "%s rows  %lld/%lld files  %.1f MB/s",
                  Human(static_cast<double>(p.rows_out)).c_str(),
                  static_cast<long long>(p.tasks_done), static_cast<long long>(p.tasks_total),
                  seconds > 0 ? static_cast<double>(p.bytes_done) / 1e6 / seconds : 0.0);
    bar.Update(fraction, detail);
  };
  SKADE_ASSIGN_OR_RAISE(auto reader,
                        read::ReadScan(std::move(plan), catalog->file_io(), read_options));
  int64_t rows_out = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status status = reader->ReadNext(&batch);
    if (!status.ok()) {
      bar.Finish();
      return IoError("scan of ", args.table, " failed: ", status.ToString());
    }
    if (!batch) break;
    rows_out += batch->num_rows();
    SKADE_RETURN_NOT_OK(output->Write(*batch));
  }
  bar.Finish();
  SKADE_RETURN_NOT_OK(output->Close());
  if (args.stats) {
    // On stderr, apart from the rows.
    std::cerr << "read       " << last.tasks_done << " of " << last.tasks_total << " files, "
              << rows_out << " rows out\n"
              << "page index " << last.pages_skipped << " data pages and " << last.rows_skipped
              << " rows not decoded\n";
  }
  return OkStatus();
}

}  // namespace

void AddScanCommand(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<ScanArgs>();
  auto* scan =
      app.add_subcommand("scan", "Read a table's rows (or, with --plan, the files a scan reads)");
  scan->add_option("table", args->table, "The table, NS.TABLE")->required();
  scan->add_option("--select", args->select, "Columns to return, comma-separated (default: all)");
  scan->add_option(
      "--where", args->where,
      "Row filter, e.g. \"id > 5 and day(ts) = '2026-11-01'\" (see README: expressions)");
  auto* snapshot = scan->add_option("--snapshot", args->snapshot_id, "Read this snapshot id");
  scan->add_option("--from-snapshot", args->from_snapshot_id,
                   "Read only the rows appended after this snapshot id, up to --snapshot, "
                   "--as-of or --ref (default: the current snapshot)");
  auto* as_of = scan->add_option("--as-of", args->as_of,
                                 "Read the table as of a time (ISO-8601 or Unix milliseconds)");
  auto* ref = scan->add_option("--ref", args->ref, "Read a branch or tag");
  snapshot->excludes(as_of)->excludes(ref);
  as_of->excludes(ref);
  scan->add_option("--limit", args->limit, "Stop after this many rows (0 or more)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            int64_t count = 0;
            auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
            if (error == std::errc() && end == text.data() + text.size() && count >= 0) return "";
            return "expected a number of rows, 0 or more, not '" + text + "'";
          },
          "COUNT"));
  auto* format = scan->add_option("--format", args->format, "table, csv, jsonl or parquet")
                     ->check(CLI::IsMember({"table", "csv", "jsonl", "parquet"}));
  auto* output = scan->add_option(
      "--output", args->output,
      "Write to this file (default: stdout), which appears only when the scan succeeds; not in "
      "the warehouse, the catalog store or an --allow-location root");
  scan->add_flag("--force", args->force, "Replace the --output file if it exists")->needs(output);
  scan->add_option("--threads", args->threads, "Threads reading files (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  // The plan is text for people, on stdout: not rows to format or save.
  scan->add_flag("--plan", args->plan,
                 "Print the plan: tasks and what each pruning step removed (not with --format or "
                 "--output)")
      ->excludes(format)
      ->excludes(output);
  scan->add_flag("--stats", args->stats,
                 "After the rows, print to stderr what was read and what the page index skipped");
  scan->add_flag("--case-insensitive", args->case_insensitive, "Match column names ignoring case");
  scan->callback(
      [args, &context] { throw CLI::RuntimeError(Run([&] { return Scan(context, *args); })); });
}

}  // namespace skade::cli
