// skade_history_bench: what a commit and a `snapshots=refs` load cost as a
// table's history grows (issue 11 §3), over REST against `skade serve`.
//
// Builds one table per `--snapshots` count (each commit adds up to `--batch`
// snapshots and moves main once, so the history is long while the
// snapshot-log, one entry per commit, stays short),
// then measures in rounds, table after table so drift hits every table alike:
// a `set-properties` commit (`history_commit`), `loadTable?snapshots=refs`
// (`history_load_refs`) and the full `loadTable` (`history_load_all`, the
// cost of moving the whole metadata over the connection — a commit response
// carries it too). `history_write` and `history_write_fsync` are what a
// commit of that metadata must also do: a file of the table's metadata size
// written through the local FileIO, in `--scratch`, on the server's disk,
// kept like a commit's, unsynced or made durable. Which of them a commit
// pays depends on the size (EmbeddedCatalogOptions::journal_max_bytes: a
// smaller file is made durable through the store's journal, a larger one by
// its fsync); each record carries both numbers for the report's floor.
// One JSON line per (scenario, table), variant "snapshots_<count>".
#include <CLI/CLI.hpp>
#include <iostream>
#include <iterator>

#include "common/bench_options.h"
#include "common/bench_record.h"
#include "common/measure.h"
#include "rest/http_connection.h"
#include "rest/rest_target.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/io/file_io.h"
#include "skade/spec/json_serde.h"
#include "skade/util/clock.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/random.h"
#include "skade/util/strings.h"

namespace skade::bench {
namespace {

constexpr char kTarget[] = "skade-rest-history";
constexpr char kNamespace[] = "bench_history";
// The server's default (bench.sh starts `skade serve` without changing it).
const size_t kJournalMaxBytes = catalog::EmbeddedCatalogOptions{}.journal_max_bytes;

struct HistoryOptions {
  std::string uri;
  std::string durability = "immediate";
  std::vector<int> snapshots = {10, 10000};
  int batch = 1000;
  int rounds = 3;
  std::string scratch;
};

enum Scenario { kCommit, kLoadRefs, kLoadAll, kWrite, kWriteFsync };
constexpr Scenario kScenarios[] = {kCommit, kLoadRefs, kLoadAll, kWrite, kWriteFsync};
constexpr const char* kScenarioNames[] = {"history_commit", "history_load_refs", "history_load_all",
                                          "history_write", "history_write_fsync"};

struct HistoryTable {
  int snapshots = 0;
  std::string path;  // …/namespaces/bench_history/tables/s<count>
  size_t metadata_bytes = 0;
  std::vector<int64_t> latencies_ns[std::size(kScenarios)];
};

// Creates the table and grows it to `count` snapshots shaped like a fast
// append's (tests/testing/fast_append.h), `batch` per commit.
Status Populate(HttpConnection& http, const HistoryOptions& options, HistoryTable& table) {
  spec::TableIdentifier identifier{{kNamespace}, StrCat("s", table.snapshots)};
  SKADE_RETURN_NOT_OK(Expect(
      "create table",
      http.Send("POST", TablesPath("/v1/", identifier.ns), CreateTableRequestBody(identifier.name)),
      200));
  table.path = TablePath("/v1/", identifier);

  std::optional<int64_t> parent;
  int64_t sequence_number = 0;
  for (int added = 0; added < table.snapshots;) {
    catalog::CommitTableRequest request{identifier, {}, {}};
    for (int i = 0; i < options.batch && added < table.snapshots; ++i, ++added) {
      auto snapshot = std::make_shared<spec::Snapshot>();
      snapshot->snapshot_id = NewSnapshotId();
      snapshot->parent_snapshot_id = parent;
      snapshot->sequence_number = ++sequence_number;
      snapshot->timestamp_ms = NowMillis();
      snapshot->manifest_list = StrCat("file:///bench/history/metadata/snap-",
                                       snapshot->snapshot_id, "-1-manifest-list.avro");
      snapshot->summary = {
          {"operation", "append"}, {"added-data-files", "1"}, {"added-records", "1"}};
      snapshot->schema_id = 0;
      request.updates.push_back(spec::AddSnapshot{snapshot});
      parent = snapshot->snapshot_id;
    }
    request.updates.push_back(spec::SetSnapshotRef{"main", spec::SnapshotRef{*parent}});
    SKADE_RETURN_NOT_OK(
        Expect("populate commit", http.Send("POST", table.path, CommitRequestBody(request)), 200));
  }
  SKADE_ASSIGN_OR_RAISE(auto loaded, http.Send("GET", table.path));
  if (loaded.status != 200) return HttpError("load table", loaded);
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto document, json::Parse(parser, loaded.body));
  SKADE_ASSIGN_OR_RAISE(auto object, json::AsObject(document, "LoadTableResult"));
  SKADE_ASSIGN_OR_RAISE(auto metadata, json::GetRequired(object, "metadata"));
  table.metadata_bytes = json::Minify(metadata).size();
  return OkStatus();
}

std::string SetPropertiesBody(uint64_t counter) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("requirements");
  writer.StartArray();
  writer.EndArray();
  writer.Key("updates");
  writer.StartArray();
  writer.StartObject();
  writer.Field("action", "set-properties");
  writer.Key("updates");
  writer.StartObject();
  writer.Field("bench.counter", std::to_string(counter));
  writer.EndObject();
  writer.EndObject();
  writer.EndArray();
  writer.EndObject();
  return writer.Take();
}

// One round of `ops` timed ops of `scenario` on `table` (after `warmup`).
Status RunRound(HttpConnection& http, io::FileIO& io, const HistoryOptions& options,
                const BenchOptions& bench, Scenario scenario, HistoryTable& table,
                uint64_t* counter) {
  const std::string refs = StrCat(table.path, "?snapshots=refs");
  const std::string payload(table.metadata_bytes, ' ');
  // Probe files are removed after the round, not after each write: a commit
  // keeps its file, and writing into newly allocated pages costs more than
  // reusing a deleted file's.
  std::vector<std::string> probes;
  MeasureLimits limits{1, bench.commit_ops, bench.warmup, bench.seconds};
  if (scenario == kLoadRefs || scenario == kLoadAll) limits.ops = bench.ops;
  auto measured = Measure(limits, [&](int, uint64_t) -> Status {
    switch (scenario) {
      case kCommit:
        return Expect("commit", http.Send("POST", table.path, SetPropertiesBody(++*counter)), 200);
      case kLoadRefs:
        return Expect("load refs", http.Send("GET", refs), 200);
      case kLoadAll:
        return Expect("load all", http.Send("GET", table.path), 200);
      case kWrite:
      case kWriteFsync: {
        const std::string location = StrCat(options.scratch, "/probe-", ++*counter, ".json");
        probes.push_back(location);
        return io.WriteFile(location, payload, /*durable=*/scenario == kWriteFsync);
      }
    }
    return OkStatus();
  });
  for (const auto& probe : probes) SKADE_RETURN_NOT_OK(io.DeleteFile(probe));
  if (!measured) return tl::unexpected(measured.error());
  auto& all = table.latencies_ns[scenario];
  all.insert(all.end(), measured->latencies_ns.begin(), measured->latencies_ns.end());
  return OkStatus();
}

int Run(const HistoryOptions& options, const BenchOptions& bench) {
  auto fail = [&](const std::string& what, const Error& error) {
    BenchRecord record{.target = kTarget, .scenario = what, .durability = options.durability};
    WriteRecord(std::cout, bench, record, tl::unexpected(error));
    std::cerr << "skade_history_bench: " << what << ": " << error.ToString() << "\n";
    return 1;
  };
  std::string_view rest = options.uri;
  if (!ConsumePrefix(&rest, "http://") || rest.rfind(':') == std::string_view::npos) {
    return fail("harness_error",
                MakeError(ErrorKind::kInvalidArgument, "bad --uri ", options.uri).value());
  }
  const size_t colon = rest.rfind(':');
  auto port = ParseInt64(rest.substr(colon + 1));
  if (!port) {
    return fail("harness_error",
                MakeError(ErrorKind::kInvalidArgument, "bad --uri ", options.uri).value());
  }
  auto http =
      HttpConnection::Connect(std::string(rest.substr(0, colon)), static_cast<uint16_t>(*port));
  if (!http) return fail("unavailable", http.error());
  auto io = io::NewLocalFileIO();

  if (auto status = Expect(
          "create namespace",
          (*http)->Send("POST", "/v1/namespaces", CreateNamespaceRequestBody({kNamespace})), 200);
      !status) {
    return fail("unavailable", status.error());
  }
  std::vector<HistoryTable> tables;
  for (int count : options.snapshots) {
    tables.push_back(HistoryTable{count});
    if (auto status = Populate(**http, options, tables.back()); !status) {
      return fail("unavailable", status.error());
    }
    std::cerr << "history: table with " << count << " snapshots, " << tables.back().metadata_bytes
              << " bytes of metadata\n";
  }
  uint64_t counter = 0;
  for (int round = 0; round < options.rounds; ++round) {
    for (Scenario scenario : kScenarios) {
      if ((scenario == kWrite || scenario == kWriteFsync) && options.scratch.empty()) continue;
      for (auto& table : tables) {
        if (auto status = RunRound(**http, *io, options, bench, scenario, table, &counter);
            !status) {
          return fail("harness_error", status.error());
        }
      }
    }
  }
  for (Scenario scenario : kScenarios) {
    for (auto& table : tables) {
      Measurement measurement;
      measurement.latencies_ns = std::move(table.latencies_ns[scenario]);
      if (measurement.latencies_ns.empty()) continue;
      std::sort(measurement.latencies_ns.begin(), measurement.latencies_ns.end());
      measurement.ops = measurement.latencies_ns.size();
      for (int64_t ns : measurement.latencies_ns) measurement.wall_seconds += ns / 1e9;
      BenchRecord record{
          .target = kTarget,
          .scenario = kScenarioNames[scenario],
          .variant = StrCat("snapshots_", table.snapshots),
          .durability = scenario == kLoadRefs || scenario == kLoadAll ? "" : options.durability,
          .numbers = {{"metadata_bytes", static_cast<double>(table.metadata_bytes)},
                      {"journal_max_bytes", static_cast<double>(kJournalMaxBytes)}},
          .notes = StrCat(table.metadata_bytes, " bytes of metadata; main moved per commit of ",
                          options.batch, " snapshots")};
      WriteRecord(std::cout, bench, record, measurement);
    }
  }
  return 0;
}

}  // namespace
}  // namespace skade::bench

int main(int argc, char** argv) {
  skade::bench::BenchOptions bench;
  bench.commit_ops = 100;
  bench.ops = 1000;
  bench.warmup = 5;
  bench.seconds = 10;
  skade::bench::HistoryOptions options;
  CLI::App app("Commit and snapshots=refs cost against history length (bench/README.md)");
  app.add_option("--run-id", bench.run_id, "Shared by every record of one run");
  app.add_option("--commit-ops", bench.commit_ops, "Timed commits per table and round");
  app.add_option("--ops", bench.ops, "Timed loads per table and round");
  app.add_option("--warmup", bench.warmup, "Untimed ops before each round");
  app.add_option("--seconds", bench.seconds, "Time bound of one round");
  app.add_option("--uri", options.uri, "http://127.0.0.1:PORT of `skade serve`")->required();
  app.add_option("--durability", options.durability, "As the server was started");
  app.add_option("--snapshots", options.snapshots, "History lengths, one table each")
      ->delimiter(',');
  app.add_option("--batch", options.batch, "Snapshots added per populate commit")
      ->check(CLI::PositiveNumber);
  app.add_option("--rounds", options.rounds, "Rounds over all tables")->check(CLI::PositiveNumber);
  app.add_option("--scratch", options.scratch,
                 "Directory on the server's disk for the write+fsync floor (none: skipped)");
  CLI11_PARSE(app, argc, argv);
  bench.tables = static_cast<int>(options.snapshots.size());
  return skade::bench::Run(options, bench);
}
