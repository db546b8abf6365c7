// `skade ingest`: Parquet, CSV and JSON-lines files into a table, through
// the ingest pipeline (ingest/ingest.h).
#include <arrow/api.h>
#include <arrow/csv/api.h>
#include <arrow/io/file.h>
#include <arrow/json/api.h>
#include <arrow/util/byte_size.h>
#include <parquet/arrow/reader.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "skade/cli/commands.h"
#include "skade/cli/partition_expression.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/partition_path.h"
#include "skade/ingest/ingest.h"
#include "skade/table/delete_files.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"

namespace skade::cli {

namespace {

struct IngestArgs {
  std::string table;
  std::vector<std::string> files;
  std::vector<std::string> partition_by;
  std::vector<std::string> overwrite_where;
  std::string format;
  bool create = false;
  bool overlap = false;
  bool replace_partitions = false;
  bool overwrite = false;
  int64_t files_per_commit = 0;
  int channel_depth = 4;
  int64_t rows_per_file = 1 << 20;
};

// Input is ingested in chunks of about this much Arrow memory, so that
// inputs larger than memory stream through; each chunk commits on its own.
constexpr int64_t kChunkBytes = 1LL << 30;

template <typename T>
Result<T> FromArrow(arrow::Result<T> result, const std::string& what) {
  if (!result.ok()) return InvalidArgument(what, ": ", result.status().message());
  return std::move(result).ValueUnsafe();
}

Result<std::string> FormatOf(const std::string& path, const std::string& format) {
  std::string name = AsciiLower(format.empty() ? path : "." + format);
  for (const char* suffix : {".parquet", ".pq"}) {
    if (name.ends_with(suffix)) return std::string("parquet");
  }
  if (name.ends_with(".csv")) return std::string("csv");
  for (const char* suffix : {".json", ".jsonl", ".ndjson"}) {
    if (name.ends_with(suffix)) return std::string("json");
  }
  return InvalidArgument("cannot tell the format of ", path,
                         " (use --format parquet|csv|json, or a .parquet/.csv/.jsonl name)");
}

// The top-level columns of `schema` a CSV or JSON reader can convert to
// directly (primitive, not an extension type): telling the readers these
// types instead of letting them infer keeps every file of an ingest on the
// table's types (e.g. timestamp[us], not timestamp[ns]).
std::vector<std::shared_ptr<arrow::Field>> ReaderTypes(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& field : schema.fields()) {
    const auto& type = *field->type();
    if (type.num_fields() == 0 && type.id() != arrow::Type::EXTENSION) fields.push_back(field);
  }
  return fields;
}

// Reads one input file into memory with Arrow's readers. CSV and JSON
// column types are inferred, except for the columns of `target` (the
// table's Arrow schema, when known).
Result<std::shared_ptr<arrow::Table>> ReadInputFile(const std::string& path,
                                                    const std::string& format,
                                                    const arrow::Schema* target) {
  SKADE_ASSIGN_OR_RAISE(std::string kind, FormatOf(path, format));
  SKADE_ASSIGN_OR_RAISE(auto file, FromArrow(arrow::io::ReadableFile::Open(path), path));
  std::vector<std::shared_ptr<arrow::Field>> types;
  if (target != nullptr) types = ReaderTypes(*target);
  if (kind == "parquet") {
    SKADE_ASSIGN_OR_RAISE(
        auto reader, FromArrow(parquet::arrow::OpenFile(file, arrow::default_memory_pool()), path));
    return FromArrow(reader->ReadTable(), path);
  }
  if (kind == "csv") {
    auto convert = arrow::csv::ConvertOptions::Defaults();
    for (const auto& field : types) convert.column_types[field->name()] = field->type();
    SKADE_ASSIGN_OR_RAISE(auto reader, FromArrow(arrow::csv::TableReader::Make(
                                                     arrow::io::default_io_context(), file,
                                                     arrow::csv::ReadOptions::Defaults(),
                                                     arrow::csv::ParseOptions::Defaults(), convert),
                                                 path));
    return FromArrow(reader->Read(), path);
  }
  auto parse = arrow::json::ParseOptions::Defaults();
  if (!types.empty()) {
    parse.explicit_schema = arrow::schema(types);
    parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::InferType;
  }
  SKADE_ASSIGN_OR_RAISE(auto reader, FromArrow(arrow::json::TableReader::Make(
                                                   arrow::default_memory_pool(), file,
                                                   arrow::json::ReadOptions::Defaults(), parse),
                                               path));
  return FromArrow(reader->Read(), path);
}

// The schema to create a table with from an input's Arrow schema. Readers
// infer text timestamps as nanoseconds, which Iceberg v1/v2 cannot store:
// those become microseconds, the Iceberg timestamp.
std::shared_ptr<arrow::Schema> CreateSchema(const arrow::Schema& input) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& field : input.fields()) {
    auto type = field->type();
    if (type->id() == arrow::Type::TIMESTAMP) {
      const auto& timestamp = static_cast<const arrow::TimestampType&>(*type);
      if (timestamp.unit() == arrow::TimeUnit::NANO) {
        type = arrow::timestamp(arrow::TimeUnit::MICRO, timestamp.timezone());
      }
    }
    fields.push_back(field->WithType(type));
  }
  return arrow::schema(fields, input.metadata());
}

// Groups of at most `rows_per_file` rows (zero-copy slices).
Result<std::vector<ingest::RecordBatchGroup>> Groups(const arrow::Table& table,
                                                     int64_t rows_per_file) {
  std::vector<ingest::RecordBatchGroup> groups;
  for (int64_t offset = 0; offset < table.num_rows(); offset += rows_per_file) {
    auto slice = table.Slice(offset, rows_per_file);
    SKADE_ASSIGN_OR_RAISE(auto batches,
                          FromArrow(arrow::TableBatchReader(*slice).ToRecordBatches(), "input"));
    groups.push_back(std::move(batches));
  }
  return groups;
}

// Loads the target table, creating it (and its namespace) with --create
// from the first input's schema.
Result<table::Table> OpenTable(const std::shared_ptr<catalog::EmbeddedCatalog>& catalog,
                               const IngestArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  bool durable = catalog->durability() == store::Durability::kImmediate;
  SKADE_ASSIGN_OR_RAISE(bool exists, catalog->TableExists(identifier));
  if (exists && !args.partition_by.empty()) {
    return InvalidArgument("table ", args.table,
                           " exists; --partition-by only applies when --create creates it");
  }
  if (!exists && args.create) {
    SKADE_ASSIGN_OR_RAISE(auto first, ReadInputFile(args.files.front(), args.format, nullptr));
    SKADE_ASSIGN_OR_RAISE(bool ns_exists, catalog->NamespaceExists(identifier.ns));
    if (!ns_exists) SKADE_RETURN_NOT_OK(catalog->CreateNamespace(identifier.ns, {}));
    catalog::CreateTableRequest request;
    request.name = identifier.name;
    SKADE_ASSIGN_OR_RAISE(request.schema, data::FromArrowSchema(*CreateSchema(*first->schema())));
    if (!args.partition_by.empty()) {
      SKADE_ASSIGN_OR_RAISE(auto spec, ParsePartitionBy(args.partition_by, *request.schema));
      request.partition_spec = std::make_shared<spec::PartitionSpec>(std::move(spec));
    }
    SKADE_ASSIGN_OR_RAISE(auto created, catalog->CreateTable(identifier.ns, request));
    return table::Table(identifier, std::move(created), catalog, catalog->file_io_ptr(), durable);
  }
  return table::Table::Load(catalog, catalog->file_io_ptr(), identifier, durable);
}

// --overwrite-where NAME=VALUE…: files whose partition field NAME shows
// VALUE in its partition path ("ts_day=2026-11-01"), every term matching.
Result<table::PartitionFilter> OverwriteWhere(const std::vector<std::string>& terms,
                                              spec::SchemaPtr schema) {
  SKADE_ASSIGN_OR_RAISE(auto values, ParseKeyValues(terms));
  return table::PartitionFilter(
      [values, schema](const spec::PartitionSpec& spec,
                       const std::vector<spec::Literal>& partition) {
        for (const auto& [name, value] : values) {
          auto field = std::find_if(spec.fields.begin(), spec.fields.end(),
                                    [&](const spec::PartitionField& f) { return f.name == name; });
          if (field == spec.fields.end()) return false;
          const spec::NestedField* source = schema->FindFieldById(field->source_id);
          size_t index = static_cast<size_t>(field - spec.fields.begin());
          if (source == nullptr || index >= partition.size() ||
              data::PartitionValueToHumanString(field->transform, *source->type,
                                                partition[index]) != value) {
            return false;
          }
        }
        return true;
      },
      Join(terms, " and "));
}

std::string Human(double value) {
  char buf[32];
  if (value >= 1e9) {
    std::snprintf(buf, sizeof(buf), "%.2fG", value / 1e9);
  } else if (value >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%.2fM", value / 1e6);
  } else if (value >= 1e3) {
    std::snprintf(buf, sizeof(buf), "%.1fk", value / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
  }
  return buf;
}

// Draws the progress bar on a terminal (stderr), at most ten times a second.
class ProgressBar {
 public:
  ProgressBar(bool enabled, int64_t total_input_bytes)
      : enabled_(enabled), total_(std::max<int64_t>(total_input_bytes, 1)) {}

  // Input bytes fully ingested, and those of the chunk under way.
  void StartChunk(int64_t done_bytes, int64_t chunk_bytes) {
    done_bytes_ = done_bytes;
    chunk_bytes_ = chunk_bytes;
  }

  void Update(const ingest::IngestStats& before, const ingest::IngestProgress& chunk,
              bool force = false) {
    if (!enabled_) return;
    int64_t now = MonotonicMicros();
    if (!force && now - last_draw_ < 100000) return;
    last_draw_ = now;
    double chunk_fraction =
        chunk.files_total > 0 ? static_cast<double>(chunk.files_written) / chunk.files_total : 0;
    double fraction =
        std::min(1.0, (static_cast<double>(done_bytes_) + chunk_fraction * chunk_bytes_) / total_);
    double seconds = static_cast<double>(now - start_) / 1e6;
    double bytes = static_cast<double>(before.bytes + chunk.bytes_written);
    int filled = static_cast<int>(fraction * 30);
    std::string eta = "--:--";
    if (fraction > 0.01) {
      auto left = static_cast<int64_t>(seconds * (1 - fraction) / fraction);
      char buf[48];
      std::snprintf(buf, sizeof(buf), "%02lld:%02lld", static_cast<long long>(left / 60),
                    static_cast<long long>(left % 60));
      eta = buf;
    }
    char line[256];
    std::snprintf(line, sizeof(line),
                  "\r[%s%s] %3d%%  %s rows  %.1f MB/s  %lld files  %lld commits  ETA %s ",
                  std::string(filled, '#').c_str(), std::string(30 - filled, '.').c_str(),
                  static_cast<int>(fraction * 100), Human(before.rows + chunk.rows_written).c_str(),
                  seconds > 0 ? bytes / 1e6 / seconds : 0.0,
                  static_cast<long long>(before.files + chunk.files_written),
                  static_cast<long long>(before.commits + chunk.commits), eta.c_str());
    std::cerr << line << std::flush;
  }

  void Finish() {
    if (enabled_) std::cerr << "\n";
  }

 private:
  bool enabled_;
  int64_t total_;
  int64_t done_bytes_ = 0;
  int64_t chunk_bytes_ = 0;
  int64_t start_ = MonotonicMicros();
  int64_t last_draw_ = 0;
};

void Accumulate(ingest::IngestStats& total, const ingest::IngestStats& chunk) {
  total.rows += chunk.rows;
  total.files += chunk.files;
  total.bytes += chunk.bytes;
  total.commits += chunk.commits;
}

// --overwrite-where without input files: one delete snapshot.
Status DeleteWhere(const CliContext& context, const IngestArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  bool durable = catalog->durability() == store::Durability::kImmediate;
  SKADE_ASSIGN_OR_RAISE(auto table,
                        table::Table::Load(catalog, catalog->file_io_ptr(), identifier, durable));
  SKADE_ASSIGN_OR_RAISE(auto filter,
                        OverwriteWhere(args.overwrite_where, table.metadata().Schema()));
  table::DeleteFiles remove(table, std::move(filter));
  remove.SetSummaryProperty("engine-name", "skade");
  SKADE_ASSIGN_OR_RAISE(auto committed, remove.Commit());
  const auto& summary = committed.metadata().CurrentSnapshot()->summary;
  auto count = [&](const char* key) {
    auto it = summary.find(key);
    return it == summary.end() ? std::string("0") : it->second;
  };
  std::printf("deleted %s rows in %s files from %s\n", count("deleted-records").c_str(),
              count("deleted-data-files").c_str(), args.table.c_str());
  return OkStatus();
}

Status Ingest(const CliContext& context, const IngestArgs& args) {
  if (args.files.empty() && !args.overwrite_where.empty()) return DeleteWhere(context, args);
  if (args.files.empty()) return InvalidArgument("no input files");
  if (args.rows_per_file < 1) return InvalidArgument("--rows-per-file must be at least 1");
  if (args.channel_depth < 1) return InvalidArgument("--channel-depth must be at least 1");
  if (args.files_per_commit < 0) return InvalidArgument("--files-per-commit must be >= 0");
  int64_t total_input_bytes = 0;
  for (const auto& path : args.files) {
    SKADE_RETURN_NOT_OK(FormatOf(path, args.format));
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return MakeError(ErrorKind::kNotFound, "cannot read ", path, ": ", ec.message());
    total_input_bytes += static_cast<int64_t>(size);
  }
  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  const int64_t start = MonotonicMicros();
  ProgressBar bar(::isatty(STDERR_FILENO) != 0, total_input_bytes);
  ingest::IngestStats total;
  SKADE_ASSIGN_OR_RAISE(std::optional<table::Table> table, OpenTable(catalog, args));
  SKADE_ASSIGN_OR_RAISE(auto table_schema, data::ToArrowSchema(*table->metadata().Schema()));
  // Replacing must see every input at once: it goes in a single chunk.
  const bool replacing = args.overwrite || args.replace_partitions || !args.overwrite_where.empty();

  size_t next = 0;
  int64_t done_bytes = 0;
  while (next < args.files.size()) {
    std::vector<std::shared_ptr<arrow::Table>> inputs;
    int64_t chunk_memory = 0;
    int64_t chunk_input_bytes = 0;
    while (next < args.files.size() &&
           (replacing || inputs.empty() || chunk_memory < kChunkBytes)) {
      const std::string& path = args.files[next++];
      SKADE_ASSIGN_OR_RAISE(auto input, ReadInputFile(path, args.format, table_schema.get()));
      chunk_memory += arrow::util::TotalBufferSize(*input);
      std::error_code ec;  // only for the progress bar: a size it cannot read counts as 0
      auto size = std::filesystem::file_size(path, ec);
      chunk_input_bytes += ec ? 0 : static_cast<int64_t>(size);
      inputs.push_back(std::move(input));
    }

    std::vector<ingest::RecordBatchGroup> groups;
    for (const auto& input : inputs) {
      SKADE_ASSIGN_OR_RAISE(auto input_groups, Groups(*input, args.rows_per_file));
      for (auto& group : input_groups) groups.push_back(std::move(group));
    }
    ingest::IngestOptions options;
    options.files_per_commit = args.files_per_commit;
    options.channel_depth = args.channel_depth;
    options.summary = {{"engine-name", "skade"}};
    options.replace_partitions = args.replace_partitions;
    if (args.overwrite) {
      options.overwrite = table::PartitionFilter::All();
    } else if (!args.overwrite_where.empty()) {
      SKADE_ASSIGN_OR_RAISE(options.overwrite,
                            OverwriteWhere(args.overwrite_where, table->metadata().Schema()));
    }
    bar.StartChunk(done_bytes, chunk_input_bytes);
    options.progress = [&](const ingest::IngestProgress& progress) { bar.Update(total, progress); };
    auto result = args.overlap ? ingest::IngestPipelinedOverlap(*table, groups, options)
                               : ingest::IngestPipelined(*table, groups, options);
    if (!result) {
      bar.Finish();
      return tl::unexpected(result.error());
    }
    Accumulate(total, result->stats);
    table = std::move(result->table);
    done_bytes += chunk_input_bytes;
  }
  bar.Update(total, {}, true);
  bar.Finish();

  double seconds = static_cast<double>(MonotonicMicros() - start) / 1e6;
  auto count = [](int64_t n, const char* noun) {
    return StrCat(n, " ", noun, n == 1 ? "" : "s");
  };
  std::printf(
      "ingested %s into %s: %s (%.1f MB), %s in %.2f s (%s rows/s, %.1f MB/s)\n",
      count(total.rows, "row").c_str(), args.table.c_str(), count(total.files, "file").c_str(),
      static_cast<double>(total.bytes) / 1e6, count(total.commits, "commit").c_str(), seconds,
      Human(seconds > 0 ? static_cast<double>(total.rows) / seconds : 0).c_str(),
      seconds > 0 ? static_cast<double>(total.bytes) / 1e6 / seconds : 0.0);
  return OkStatus();
}

}  // namespace

void AddIngestCommand(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<IngestArgs>();
  auto* command = app.add_subcommand(
      "ingest", "Ingest Parquet, CSV or JSON-lines files into a table (Arrow readers)");
  command->add_option("--table,-t", args->table, "NS.TABLE")->required();
  command->add_option("files", args->files, "Input files (.parquet, .csv, .json/.jsonl)");
  command->add_flag("--create", args->create,
                    "Create the table (and namespace) from the first file's schema if missing");
  command
      ->add_option("--partition-by", args->partition_by,
                   "With --create: partition expression, e.g. day(ts) or bucket(16, id)")
      ->allow_extra_args(false);
  command->add_option("--files-per-commit", args->files_per_commit,
                      "Data files per snapshot (default 0: one snapshot per ingest)");
  command->add_option("--channel-depth", args->channel_depth,
                      "File writes in flight and committer queue capacity (default 4)");
  command->add_flag("--overlap", args->overlap, "Commit beside the writes (overlapped pipeline)");
  command->add_option("--rows-per-file", args->rows_per_file,
                      "Rows per data file and partition (default 1048576)");
  command->add_option("--format", args->format, "Input format: parquet, csv or json");
  command->add_flag("--replace-partitions", args->replace_partitions,
                    "Replace the partitions the input writes to (dynamic overwrite); with "
                    "--files-per-commit, each snapshot replaces the partitions it is the first "
                    "to write to");
  command->add_flag("--overwrite", args->overwrite,
                    "Replace all of the table's data, in one snapshot at the end (ignores "
                    "--files-per-commit)");
  command
      ->add_option("--overwrite-where", args->overwrite_where,
                   "Replace the partitions whose field shows this value, e.g. ts_day=2026-11-01 "
                   "(repeatable, all must match); without input files, delete them")
      ->allow_extra_args(false);
  command->callback(
      [&context, args] { throw CLI::RuntimeError(Run([&] { return Ingest(context, *args); })); });
}

}  // namespace skade::cli
