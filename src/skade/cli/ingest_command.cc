// `skade ingest`: Parquet, CSV and JSON-lines files into a table, through
// the ingest pipeline (ingest/ingest.h) reading them with
// ingest/input_files.h; or, with --coalesce and --stream, through the
// coalescing committer (coalesce_ingest.h, stream_ingest.h).
#include <arrow/type.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stop_token>
#include <thread>

#include "skade/cli/coalesce_ingest.h"
#include "skade/cli/commands.h"
#include "skade/cli/partition_expression.h"
#include "skade/cli/progress_bar.h"
#include "skade/cli/stream_ingest.h"
#include "skade/commit/coalescing_committer.h"
#include "skade/commit/upsert_keys_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/partition_path.h"
#include "skade/ingest/ingest.h"
#include "skade/ingest/input_files.h"
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
  // Through the coalescing committer.
  bool coalesce = false;
  bool stream = false;
  std::string upsert_key;  // col[,col]
  int64_t batch_rows = 10000;
  int64_t batch_ms = 100;
  bool skip_bad = false;
  bool ack = false;
  int writers = 8;
  int64_t max_delay_ms = 0;
};

// --upsert-key's columns, trimmed; empty without it.
std::vector<std::string> UpsertKeys(const IngestArgs& args) {
  std::vector<std::string> keys;
  if (args.upsert_key.empty()) return keys;
  for (const std::string& key : Split(args.upsert_key, ',')) {
    keys.emplace_back(StripWhitespace(key));
  }
  return keys;
}

// --partition-by for a table that exists: accepted when its default spec
// is that partitioning, so rerunning a --create that failed after creating
// the table (it stays, empty) works; refused otherwise.
Status CheckPartitionByOf(const spec::TableMetadata& metadata, const IngestArgs& args) {
  if (args.partition_by.empty()) return OkStatus();
  auto refuse = [&] {
    return InvalidArgument("table ", args.table,
                           " exists with another partitioning; --partition-by only applies "
                           "when --create creates it");
  };
  auto wanted = ParsePartitionBy(args.partition_by, *metadata.Schema());
  if (!wanted) return refuse();
  const std::vector<spec::PartitionField>& have = metadata.Spec()->fields;
  if (have.size() != wanted->fields.size()) return refuse();
  for (size_t i = 0; i < have.size(); ++i) {
    const spec::PartitionField& field = wanted->fields[i];
    if (have[i].AllSourceIds() != field.AllSourceIds() || have[i].transform != field.transform ||
        have[i].name != field.name) {
      return refuse();
    }
  }
  return OkStatus();
}

// --upsert-key on a table that cannot take it, told before any input is
// read; the committer checks the rest of the key rules on the first write.
Status CheckUpsertTarget(const spec::TableMetadata& metadata, const IngestArgs& args) {
  if (args.upsert_key.empty()) return OkStatus();
  if (metadata.format_version < 2) {
    return InvalidArgument("cannot upsert into ", args.table, ": it is a format version ",
                           metadata.format_version,
                           " table, and upserts write equality deletes, which need version 2 or "
                           "later");
  }
  for (const std::string& key : UpsertKeys(args)) {
    if (metadata.Schema()->FindFieldByName(key) == nullptr) {
      return InvalidArgument("cannot upsert into ", args.table, " by '", key,
                             "': the table has no such column");
    }
  }
  return OkStatus();
}

// Creates the table (and its namespace) for input of schema `input`; the
// upsert key columns become required, as equality delete keys must be, and
// are checked by the committer's rules first: it would refuse every write
// to the table made. A table another ingest created meanwhile is loaded and
// checked as one that existed.
Result<catalog::LoadTableResult> CreateTableFor(
    const std::shared_ptr<catalog::EmbeddedCatalog>& catalog,
    const spec::TableIdentifier& identifier, const arrow::Schema& input, const IngestArgs& args,
    const std::vector<std::string>& required) {
  std::shared_ptr<arrow::Schema> schema = ingest::TableSchemaFor(input);
  for (const std::string& name : required) {
    int index = schema->GetFieldIndex(name);
    if (index < 0) {
      return InvalidArgument("cannot create ", args.table, " keyed by '", name,
                             "': the input has no such column");
    }
    auto set = schema->SetField(index, schema->field(index)->WithNullable(false));
    if (!set.ok()) return InvalidArgument(set.status().message());
    schema = *set;
  }
  catalog::CreateTableRequest request;
  request.name = identifier.name;
  SKADE_ASSIGN_OR_RAISE(request.schema, data::FromArrowSchema(*schema));
  spec::PartitionSpec spec;
  if (!args.partition_by.empty()) {
    SKADE_ASSIGN_OR_RAISE(spec, ParsePartitionBy(args.partition_by, *request.schema));
    request.partition_spec = std::make_shared<spec::PartitionSpec>(spec);
  }
  if (!required.empty()) {
    auto keys =
        commit::ResolveKeyFields(*request.schema, spec, required, spec::kDefaultFormatVersion);
    if (!keys) return InvalidArgument("cannot create ", args.table, ": ", keys.error().message);
  }
  // Only now: an input the table cannot take leaves no namespace behind.
  SKADE_ASSIGN_OR_RAISE(bool ns_exists, catalog->NamespaceExists(identifier.ns));
  if (!ns_exists) {
    Status made = catalog->CreateNamespace(identifier.ns, {});
    if (!made && made.error().kind != ErrorKind::kAlreadyExists)
      return tl::unexpected(made.error());
  }
  auto created = catalog->CreateTable(identifier.ns, request);
  if (created || created.error().kind != ErrorKind::kAlreadyExists) return created;
  SKADE_ASSIGN_OR_RAISE(auto loaded, catalog->LoadTable(identifier));
  SKADE_RETURN_NOT_OK(CheckPartitionByOf(*loaded.metadata, args));
  SKADE_RETURN_NOT_OK(CheckUpsertTarget(*loaded.metadata, args));
  return loaded;
}

// Loads the target table, creating it (and its namespace) with --create
// from the first input's schema.
Result<table::Table> OpenTable(const std::shared_ptr<catalog::EmbeddedCatalog>& catalog,
                               const IngestArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  bool durable = catalog->durability() == store::Durability::kImmediate;
  SKADE_ASSIGN_OR_RAISE(bool exists, catalog->TableExists(identifier));
  if (!exists && args.create) {
    const std::string& first = args.files.front();
    SKADE_ASSIGN_OR_RAISE(ingest::InputFormat format, ingest::InputFormatOf(first, args.format));
    SKADE_ASSIGN_OR_RAISE(auto input_schema, ingest::ReadInputSchema(first, format));
    SKADE_ASSIGN_OR_RAISE(
        auto created, CreateTableFor(catalog, identifier, *input_schema, args, UpsertKeys(args)));
    return table::Table(identifier, std::move(created), catalog, catalog->file_io_ptr(), durable);
  }
  SKADE_ASSIGN_OR_RAISE(auto table,
                        table::Table::Load(catalog, catalog->file_io_ptr(), identifier, durable));
  SKADE_RETURN_NOT_OK(CheckPartitionByOf(table.metadata(), args));
  return table;
}

// One --overwrite-where NAME=VALUE term. The rendered partition value cannot
// tell the null partition from the string "null" (both show as "null", as
// in Iceberg Java's paths), so a null partition matches only the term
// NAME=null, and a term in single quotes, NAME='null', is the text between
// them (NAME=''x'' is the text 'x'); any other VALUE is its text.
struct OverwriteTerm {
  std::string name;
  std::optional<std::string> text;  // nullopt: the null partition
  std::string description;          // for error messages: as given, null said so

  // Null only for a null partition value; otherwise the value as its
  // partition path shows it ("2026-11-01" for ts_day, "3" for a bucket).
  bool Matches(const spec::PartitionField& field, const spec::Type& source,
               const spec::Literal& value) const {
    if (!text) return value.is_null();
    return !value.is_null() &&
           data::PartitionValueToHumanString(field.transform, source, value) == *text;
  }
};

Result<std::vector<OverwriteTerm>> ParseOverwriteTerms(const std::vector<std::string>& terms) {
  std::vector<OverwriteTerm> out;
  for (const std::string& term : terms) {
    const size_t eq = term.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument(
          "--overwrite-where expects NAME=VALUE (NAME=null for the null "
          "partition, NAME='null' for the string \"null\"), got '",
          term, "'");
    }
    OverwriteTerm parsed{term.substr(0, eq), term.substr(eq + 1), term};
    const std::string& value = *parsed.text;
    if (value == "null") {
      parsed.text.reset();
      parsed.description += " (the null partition)";
    } else if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
      parsed.text = value.substr(1, value.size() - 2);
    }
    // Terms must all match: two values of one field would match nothing.
    for (const OverwriteTerm& seen : out) {
      if (seen.name == parsed.name) {
        return InvalidArgument("--overwrite-where names '", parsed.name,
                               "' twice; a partition has one value per field");
      }
    }
    out.push_back(std::move(parsed));
  }
  return out;
}

// --overwrite-where NAME=VALUE…: files whose partition field NAME holds
// VALUE (see OverwriteTerm), every term matching. kInvalidArgument for a
// NAME that is not a field of any of the table's specs: it would match
// nothing, and the overwrite would silently append.
Result<table::PartitionFilter> OverwriteWhere(const std::vector<std::string>& terms,
                                              const spec::TableMetadata& metadata,
                                              const std::string& table_name) {
  SKADE_ASSIGN_OR_RAISE(std::vector<OverwriteTerm> parsed, ParseOverwriteTerms(terms));
  // Any of the table's specs: an older spec's partitions may be replaced
  // too (added files outside the filter are refused at commit anyway).
  std::vector<std::string> names;
  for (const spec::PartitionSpecPtr& spec : metadata.partition_specs) {
    for (const spec::PartitionField& field : spec->fields) {
      if (std::find(names.begin(), names.end(), field.name) == names.end()) {
        names.push_back(field.name);
      }
    }
  }
  for (size_t i = 0; i < parsed.size(); ++i) {
    const std::string& name = parsed[i].name;
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    if (names.empty()) {
      return InvalidArgument("--overwrite-where ", terms[i], ": ", table_name,
                             " is not partitioned (--overwrite replaces all of its data)");
    }
    return InvalidArgument("--overwrite-where ", terms[i], ": '", name,
                           "' is not a partition field of ", table_name,
                           "; its partition fields are: ", Join(names, ", "));
  }
  std::vector<std::string> descriptions;
  for (const OverwriteTerm& term : parsed) descriptions.push_back(term.description);
  spec::SchemaPtr schema = metadata.Schema();
  return table::PartitionFilter(
      [parsed, schema](const spec::PartitionSpec& spec,
                       const std::vector<spec::Literal>& partition) {
        for (const OverwriteTerm& term : parsed) {
          auto field =
              std::find_if(spec.fields.begin(), spec.fields.end(),
                           [&](const spec::PartitionField& f) { return f.name == term.name; });
          if (field == spec.fields.end()) return false;
          const spec::NestedField* source = schema->FindFieldById(field->source_id);
          size_t index = static_cast<size_t>(field - spec.fields.begin());
          if (source == nullptr || index >= partition.size() ||
              !term.Matches(*field, *source->type, partition[index])) {
            return false;
          }
        }
        return true;
      },
      Join(descriptions, " and "));
}

// SIGINT and SIGTERM during a plain ingest or --coalesce: the first stops
// it (IngestOptions::stop, CoalesceIngestOptions::stop: nothing new starts,
// a commit under way lands or rolls back whole, the data files not
// committed are deleted), the second exits at once (130), leaving them
// behind. A signal already pending when Start() runs stops the ingest
// before it begins. Make it before any thread starts (see StopSignals); one
// thread calls its methods.
class IngestStop {
 public:
  IngestStop() = default;
  ~IngestStop() {
    if (!watcher_.joinable()) return;
    const char byte = 0;
    (void)!::write(done_[1], &byte, 1);
    watcher_.join();
    ::close(done_[0]);
    ::close(done_[1]);
  }
  IngestStop(const IngestStop&) = delete;
  IngestStop& operator=(const IngestStop&) = delete;

  /// Watches for the signals on a thread of its own.
  Status Start() {
    if (signals_.fd() < 0) return OkStatus();  // they keep their default action
    pollfd pending{signals_.fd(), POLLIN, 0};
    if (::poll(&pending, 1, 0) > 0) Handle(signals_.Read());
    if (::pipe2(done_, O_CLOEXEC) != 0) {
      return IoError("cannot watch for signals: ", std::strerror(errno));
    }
    watcher_ =
        std::thread([this] { signals_.Watch(done_[0], [this](int signal) { Handle(signal); }); });
    return OkStatus();
  }

  std::stop_token token() const { return stop_.get_token(); }
  /// The first signal's name, or null when none came.
  const char* signal_name() const {
    const int signal = signal_.load();
    return signal == 0 ? nullptr : StopSignals::Name(signal);
  }

 private:
  void Handle(int signal) {
    if (signal == 0) return;
    int none = 0;
    if (signal_.compare_exchange_strong(none, signal)) {
      std::fprintf(stderr,
                   "skade: %s: stopping the ingest; data files not committed are deleted "
                   "(again to exit at once)\n",
                   signal_name());
      stop_.request_stop();
      return;
    }
    std::fprintf(stderr,
                 "skade: %s again: exiting at once; data files not committed may be left "
                 "behind\n",
                 StopSignals::Name(signal));
    std::fflush(stdout);
    ::_exit(130);
  }

  StopSignals signals_;  // first in, last out: the watcher reads its fd
  std::stop_source stop_;
  std::atomic<int> signal_{0};
  int done_[2] = {-1, -1};  // the destructor tells the watcher to end
  std::thread watcher_;
};

// The ingest's progress: files written of the fewest it will make (one per
// input group; files are known as they are encoded).
void DrawProgress(ProgressBar& bar, const ingest::IngestProgress& progress, int64_t groups,
                  bool force = false) {
  int64_t files = std::max({progress.files_total, groups, int64_t{1}});
  double seconds = bar.Seconds();
  char detail[160];
  std::snprintf(detail, sizeof(detail), "%s rows  %.1f MB/s  %lld files  %lld commits",
                Human(static_cast<double>(progress.rows_written)).c_str(),
                seconds > 0 ? static_cast<double>(progress.bytes_written) / 1e6 / seconds : 0.0,
                static_cast<long long>(progress.files_written),
                static_cast<long long>(progress.commits));
  bar.Update(static_cast<double>(progress.files_written) / static_cast<double>(files), detail,
             force);
}

// --overwrite-where without input files: one delete snapshot.
Status DeleteWhere(const CliContext& context, const IngestArgs& args) {
  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  bool durable = catalog->durability() == store::Durability::kImmediate;
  SKADE_ASSIGN_OR_RAISE(auto table,
                        table::Table::Load(catalog, catalog->file_io_ptr(), identifier, durable));
  SKADE_ASSIGN_OR_RAISE(auto filter,
                        OverwriteWhere(args.overwrite_where, table.metadata(), args.table));
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

// Every input file has a known format and can be read, before anything is.
Status CheckInputFiles(const IngestArgs& args) {
  for (const auto& path : args.files) {
    SKADE_RETURN_NOT_OK(ingest::InputFormatOf(path, args.format));
    std::error_code ec;
    (void)std::filesystem::file_size(path, ec);  // a readable regular file
    if (ec) return MakeError(ErrorKind::kNotFound, "cannot read ", path, ": ", ec.message());
  }
  return OkStatus();
}

// The options of the plain pipeline that a committed write cannot take.
Status CheckCommitterFlags(const IngestArgs& args) {
  const char* mode = args.stream ? "--stream" : "--coalesce";
  if (args.stream && args.coalesce)
    return InvalidArgument("--stream and --coalesce exclude each other");
  if (args.stream && !args.files.empty()) {
    return InvalidArgument("--stream reads standard input; got input files (", args.files.front(),
                           ")");
  }
  if (args.overwrite || args.replace_partitions || !args.overwrite_where.empty()) {
    return InvalidArgument(mode, " appends or upserts; it cannot overwrite or replace partitions");
  }
  if (args.overlap || args.files_per_commit != 0) {
    return InvalidArgument(mode,
                           " commits through the coalescing committer; --overlap and "
                           "--files-per-commit do not apply");
  }
  if (args.writers < 1) return InvalidArgument("--writers must be at least 1");
  if (args.max_delay_ms < 0 || args.max_delay_ms > 1000) {
    return InvalidArgument("--max-delay-ms must be 0 to 1000");
  }
  if (!args.upsert_key.empty()) {
    for (const std::string& key : UpsertKeys(args)) {
      if (key.empty()) return InvalidArgument("--upsert-key has an empty column name");
    }
  }
  return OkStatus();
}

// --stream and --coalesce: through a CoalescingCommitter.
Status IngestThroughCommitter(const CliContext& context, const IngestArgs& args) {
  SKADE_RETURN_NOT_OK(CheckCommitterFlags(args));
  if (args.coalesce && args.files.empty()) return InvalidArgument("no input files");
  SKADE_RETURN_NOT_OK(CheckInputFiles(args));
  std::string format = args.format;
  if (args.stream && format.empty()) format = "jsonl";
  ingest::InputFormat stream_format = ingest::InputFormat::kJson;
  if (args.stream) {
    SKADE_ASSIGN_OR_RAISE(stream_format, ingest::InputFormatOf("standard input", format));
  }
  // Before the catalog starts its threads, so they all inherit the mask:
  // --stream watches the signals itself, --coalesce stops as a plain ingest.
  std::optional<StopSignals> signals;
  std::optional<IngestStop> stop;
  if (args.stream) {
    signals.emplace();
  } else {
    SKADE_RETURN_NOT_OK(stop.emplace().Start());
  }

  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  SKADE_ASSIGN_OR_RAISE(auto identifier, spec::ParseTableIdentifier(args.table));
  SKADE_ASSIGN_OR_RAISE(bool exists, catalog->TableExists(identifier));
  spec::SchemaPtr schema;
  if (exists || !args.create) {
    SKADE_ASSIGN_OR_RAISE(auto loaded, catalog->LoadTable(identifier));
    SKADE_RETURN_NOT_OK(CheckPartitionByOf(*loaded.metadata, args));
    SKADE_RETURN_NOT_OK(CheckUpsertTarget(*loaded.metadata, args));
    schema = loaded.metadata->Schema();
  } else if (args.coalesce) {
    const std::string& first = args.files.front();
    SKADE_ASSIGN_OR_RAISE(ingest::InputFormat kind, ingest::InputFormatOf(first, format));
    SKADE_ASSIGN_OR_RAISE(auto input_schema, ingest::ReadInputSchema(first, kind));
    SKADE_ASSIGN_OR_RAISE(
        auto created, CreateTableFor(catalog, identifier, *input_schema, args, UpsertKeys(args)));
    schema = created.metadata->Schema();
  }

  commit::CoalescingCommitterOptions committer_options;
  committer_options.max_delay = std::chrono::milliseconds(args.max_delay_ms);
  SKADE_ASSIGN_OR_RAISE(auto committer,
                        commit::CoalescingCommitter::Make(catalog, committer_options));
  CommitSubmitterOptions submit;
  submit.writers = args.writers;
  submit.queue_depth = static_cast<size_t>(args.writers) * 2;
  submit.upsert_keys = UpsertKeys(args);

  if (args.coalesce) {
    CoalesceIngestOptions options;
    options.format = format;
    options.rows_per_group = args.rows_per_file;
    options.submit = std::move(submit);
    options.stop = stop->token();
    Status ingested = CoalesceIngest(args.files, *committer, identifier, *schema, options);
    if (const char* signal = stop->signal_name(); !ingested && signal != nullptr) {
      ingested.error().message = StrCat(signal, ": ", ingested.error().message);
    }
    return ingested;
  }
  StreamIngestOptions options;
  options.format = stream_format;
  options.batch_rows = args.batch_rows;
  options.batch_ms = args.batch_ms;
  options.skip_bad = args.skip_bad;
  options.ack = args.ack;
  options.submit = std::move(submit);
  StreamTarget target{identifier, schema, nullptr};
  if (!schema) {
    target.create = [&](const arrow::Schema& input) -> Result<spec::SchemaPtr> {
      SKADE_ASSIGN_OR_RAISE(auto created,
                            CreateTableFor(catalog, identifier, input, args, UpsertKeys(args)));
      return created.metadata->Schema();
    };
  }
  return StreamIngest(STDIN_FILENO, *signals, *committer, std::move(target), options);
}

Status Ingest(const CliContext& context, IngestArgs args) {
  if (args.table.empty()) {
    // `skade ingest [options] NS.TABLE [FILES…]`: the first positional names the table.
    if (args.files.empty()) return InvalidArgument("no table (NS.TABLE or --table)");
    args.table = args.files.front();
    args.files.erase(args.files.begin());
  }
  if (args.rows_per_file < 1) return InvalidArgument("--rows-per-file must be at least 1");
  if (args.stream || args.coalesce) return IngestThroughCommitter(context, args);
  if (!args.upsert_key.empty()) return InvalidArgument("--upsert-key needs --stream or --coalesce");
  if (args.files.empty() && !args.overwrite_where.empty()) return DeleteWhere(context, args);
  if (args.files.empty()) return InvalidArgument("no input files");
  if (args.channel_depth < 1) return InvalidArgument("--channel-depth must be at least 1");
  if (args.files_per_commit < 0) return InvalidArgument("--files-per-commit must be >= 0");
  SKADE_RETURN_NOT_OK(CheckInputFiles(args));
  IngestStop stop;  // before the catalog starts its threads, so they all inherit the mask
  SKADE_RETURN_NOT_OK(stop.Start());
  SKADE_ASSIGN_OR_RAISE(auto catalog, context.OpenCatalog());
  const int64_t start = MonotonicMicros();
  SKADE_ASSIGN_OR_RAISE(table::Table table, OpenTable(catalog, args));
  SKADE_ASSIGN_OR_RAISE(auto table_schema, data::ToArrowSchema(*table.metadata().Schema()));
  SKADE_ASSIGN_OR_RAISE(
      ingest::GroupSource groups,
      ingest::InputGroups(args.files, args.format, args.rows_per_file, *table_schema));

  ingest::IngestOptions options;
  options.files_per_commit = args.files_per_commit;
  options.channel_depth = args.channel_depth;
  options.summary = {{"engine-name", "skade"}};
  options.replace_partitions = args.replace_partitions;
  options.stop = stop.token();
  if (args.overwrite) {
    options.overwrite = table::PartitionFilter::All();
  } else if (!args.overwrite_where.empty()) {
    SKADE_ASSIGN_OR_RAISE(options.overwrite,
                          OverwriteWhere(args.overwrite_where, table.metadata(), args.table));
  }
  ProgressBar bar(::isatty(STDERR_FILENO) != 0);
  const auto group_count = static_cast<int64_t>(groups.count);
  options.progress = [&](const ingest::IngestProgress& progress) {
    DrawProgress(bar, progress, group_count);
  };
  auto result = args.overlap ? ingest::IngestPipelinedOverlap(table, groups, options)
                             : ingest::IngestPipelined(table, groups, options);
  if (!result) {
    bar.Finish();
    Error error = std::move(result).error();
    if (const char* signal = stop.signal_name(); signal != nullptr) {
      error.message = StrCat(signal, ": ", error.message);
    }
    return tl::unexpected(std::move(error));
  }
  const ingest::IngestStats& total = result->stats;
  DrawProgress(bar, {total.files, total.files, total.rows, total.bytes, total.commits}, group_count,
               true);
  bar.Finish();

  double seconds = static_cast<double>(MonotonicMicros() - start) / 1e6;
  auto count = [](int64_t n, const char* noun) { return StrCat(n, " ", noun, n == 1 ? "" : "s"); };
  // Snapshots only when commits chained several (the overlapped path).
  std::string commits = count(total.commits, "commit");
  if (total.snapshots != total.commits)
    commits = StrCat(count(total.snapshots, "snapshot"), ", ", commits);
  std::printf("ingested %s into %s: %s (%.1f MB), %s in %.2f s (%s rows/s, %.1f MB/s)\n",
              count(total.rows, "row").c_str(), args.table.c_str(),
              count(total.files, "file").c_str(), static_cast<double>(total.bytes) / 1e6,
              commits.c_str(), seconds,
              Human(seconds > 0 ? static_cast<double>(total.rows) / seconds : 0).c_str(),
              seconds > 0 ? static_cast<double>(total.bytes) / 1e6 / seconds : 0.0);
  return OkStatus();
}

}  // namespace

void AddIngestCommand(CLI::App& app, const CliContext& context) {
  auto args = std::make_shared<IngestArgs>();
  auto* command = app.add_subcommand(
      "ingest",
      "Ingest Parquet, CSV or JSON-lines files into a table (Arrow readers); with --stream, JSON "
      "lines or CSV from standard input, committed as they come");
  command->footer(
      "Examples:\n"
      "  skade ingest --create db.events a.parquet b.csv\n"
      "  skade ingest --coalesce db.events small/*.jsonl\n"
      "  producer | skade ingest --stream --upsert-key id db.events");
  command->add_option("--table,-t", args->table,
                      "NS.TABLE (or give it as the first positional argument)");
  command->add_option("files", args->files,
                      "[NS.TABLE] then input files (.parquet, .csv, .json/.jsonl)");
  command->add_flag("--create", args->create,
                    "Create the table (and namespace) if missing, from the first file's schema "
                    "(--stream: the first batch's)");
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
  command->add_option("--format", args->format,
                      "Input format: parquet, csv or json (jsonl); --stream: jsonl (default) or "
                      "csv (a header line first)");
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
                   "(repeatable, all must match; NAME must be a partition field, and input rows "
                   "outside these partitions are refused); without input files, delete them. "
                   "NAME=null is the null partition; a value in single quotes is the text "
                   "between them, so NAME='null' is the string \"null\"")
      ->allow_extra_args(false);
  command->add_flag("--coalesce", args->coalesce,
                    "Commit each file (each --rows-per-file group of it) as its own write "
                    "through the coalescing committer, from --writers threads: many small files, "
                    "few commits. Not one snapshot: on an error, the files before it stay "
                    "committed and the error names those that are not");
  command->add_flag("--stream", args->stream,
                    "Read JSON lines or CSV from standard input and commit as it goes, through "
                    "the coalescing committer; nothing is acknowledged before it is committed. "
                    "At end of input: commit the rest, exit 0. A bad line stops it (exit 1): "
                    "the lines before it are committed, none from it on, and the error names "
                    "its line number. SIGINT/SIGTERM: stop reading, commit what was read, exit "
                    "0; a second signal exits at once naming the lines not acknowledged");
  command->add_option("--upsert-key", args->upsert_key,
                      "With --stream or --coalesce: upsert by these columns (col[,col]) instead "
                      "of appending: the new rows replace every row with the same key (an "
                      "equality delete file; format v2+ tables, required key columns). Upserts "
                      "are submitted in input order, so the last row of a key wins");
  command->add_option("--batch-rows", args->batch_rows,
                      "--stream: most lines per batch (default 10000)");
  command->add_option("--batch-ms", args->batch_ms,
                      "--stream: send a batch at most this long after its first line arrived "
                      "(default 100)");
  command->add_flag("--skip-bad", args->skip_bad,
                    "--stream: report a bad line on stderr and leave it out instead of stopping");
  command->add_flag("--ack", args->ack,
                    "--stream: print one JSON line per committed batch on stdout "
                    "({first_line, last_line, rows, snapshot_id, sequence_number}); the summary "
                    "goes to stderr");
  command->add_option("--writers", args->writers,
                      "--stream/--coalesce: threads submitting appends to the committer "
                      "(default 8; upserts use one, in order)");
  command->add_option("--max-delay-ms", args->max_delay_ms,
                      "--stream/--coalesce: how long a commit waits for more writes to join it "
                      "(the committer's max_delay; default 0, at most 1000)");
  command->callback(
      [&context, args] { throw CLI::RuntimeError(Run([&] { return Ingest(context, *args); })); });
}

}  // namespace skade::cli
