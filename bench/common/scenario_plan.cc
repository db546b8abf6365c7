#include "common/scenario_plan.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "common/bench_record.h"
#include "common/measure.h"
#include "common/population.h"
#include "skade/util/strings.h"

namespace skade::bench {

namespace {

// The group-commit target's committer count (bench/README.md "Performance bar").
constexpr int kManyCommitters = 16;

using Sessions = std::vector<std::unique_ptr<CatalogSession>>;

Result<Sessions> OpenSessions(CatalogTarget& target, int count) {
  Sessions sessions;
  for (int i = 0; i < count; ++i) {
    SKADE_ASSIGN_OR_RAISE(auto session, target.NewSession());
    sessions.push_back(std::move(session));
  }
  return sessions;
}

// Per-thread append counts of one write scenario; warm-up ops count apart, so
// the record has the timed ops' only.
class AppendCounts {
 public:
  AppendCounts(int threads, uint64_t warmup)
      : timed_(threads), warmup_(threads), warmup_ops_(warmup) {}

  /// Where op `iteration` of `thread` counts; only that thread touches it.
  AppendStats* For(int thread, uint64_t iteration) {
    return iteration < warmup_ops_ ? &warmup_[thread] : &timed_[thread];
  }
  AppendStats Timed() const {
    AppendStats sum;
    for (const AppendStats& s : timed_) {
      sum.conflicts += s.conflicts;
      sum.retries += s.retries;
      sum.failures += s.failures;
    }
    return sum;
  }

 private:
  std::vector<AppendStats> timed_;
  std::vector<AppendStats> warmup_;
  uint64_t warmup_ops_;
};

// Runs one scenario on fresh sessions and writes its record.
class ScenarioRunner {
 public:
  ScenarioRunner(CatalogTarget& target, const BenchOptions& options, std::ostream& out)
      : target_(target), options_(options), out_(out) {}

  CatalogTarget& target() { return target_; }

  using SessionOp = std::function<Status(CatalogSession&, int thread, uint64_t iteration)>;

  /// `record` names the scenario; its target, durability and group-commit
  /// fields are filled in here. `appends` marks a write scenario (its
  /// counts, the target's rebase setting and append notes go into the record);
  /// `kinds` splits the latencies by the op kinds named in `record.kinds`.
  void Run(BenchRecord record, const MeasureLimits& limits, const SessionOp& op,
           const AppendCounts* appends = nullptr, const OpKinds& kinds = {}) {
    if (!options_.Runs(record.scenario, record.variant)) return;
    record.target = target_.name();
    record.durability = target_.durability();
    record.group_commit = target_.group_commit();
    if (appends != nullptr) {
      record.write = true;
      record.rebase = target_.rebase();
      record.notes = StrCat(record.notes, "; append: ", target_.append_notes());
      if (std::string extra = target_.write_notes(); !extra.empty()) {
        record.notes = StrCat(record.notes, "; ", extra);
      }
    }
    // A write case starts with the page cache clean, as the first one does after populating: the
    // previous case's files (a 16-writer case writes ~1 GB of metadata) would otherwise be written
    // back during this one, and its syncs would queue behind them.
    if (appends != nullptr) ::sync();
    MeasureLimits measured = limits;
    measured.server_pid = options_.server_pid;
    const std::optional<uint64_t> transactions_before = target_.store_transactions();
    Result<Measurement> measurement =
        OpenSessions(target_, limits.threads).and_then([&](Sessions sessions) {
          return Measure(
              measured,
              [&](int thread, uint64_t iteration) {
                return op(*sessions[thread], thread, iteration);
              },
              kinds);
        });
    if (appends != nullptr) {
      const AppendStats timed = appends->Timed();
      record.conflicts = timed.conflicts;
      record.retries = timed.retries;
      record.failures = timed.failures;
      std::optional<uint64_t> transactions_after = target_.store_transactions();
      // Every op of `commit` is one append (mixed scenarios read too).
      if (record.scenario == "commit" && measurement && transactions_before && transactions_after &&
          *transactions_after > *transactions_before) {
        // Warm-up commits included on both sides of the ratio.
        const uint64_t transactions = *transactions_after - *transactions_before;
        const uint64_t commits = measurement->ops + limits.warmup * limits.threads;
        record.numbers.emplace_back("store_transactions", static_cast<double>(transactions));
        record.numbers.emplace_back("commits_per_store_transaction",
                                    static_cast<double>(commits) / transactions);
      }
    }
    WriteRecord(out_, options_, record, measurement);
    std::cerr << record.target << (record.rebase.empty() ? "" : StrCat(" rebase=", record.rebase))
              << ": " << record.scenario
              << (record.variant.empty() ? "" : StrCat(" ", record.variant))
              << " threads=" << record.threads
              << (measurement ? StrCat(" ops=", measurement->ops)
                              : StrCat(" FAILED: ", measurement.error().ToString()))
              << (record.write
                      ? StrCat(" conflicts=", record.conflicts, " failures=", record.failures)
                      : "")
              << "\n";
  }

 private:
  CatalogTarget& target_;
  const BenchOptions& options_;
  std::ostream& out_;
};

// 1, 2 (the scaling target compares 2 threads with 1) and N.
std::vector<int> ReadThreadCounts(const BenchOptions& options) {
  std::set<int> counts = {1, std::min(2, options.threads), options.threads};
  return {counts.begin(), counts.end()};
}

Status CheckExists(Result<bool> exists, const spec::TableIdentifier& identifier) {
  if (!exists) return tl::unexpected(exists.error());
  if (!*exists) return MakeError(ErrorKind::kNoSuchTable, identifier.ToString(), " is missing");
  return OkStatus();
}

void RunReadScenarios(CatalogTarget& target, const BenchOptions& options,
                      const Population& population, ScenarioRunner& runner) {
  const int tables = options.tables;
  const uint64_t cold_ops = std::min<uint64_t>(options.ops, tables);
  runner.Run({.scenario = "load_table_cold",
              .notes = "first load of each table after the catalog was (re)opened"},
             {1, cold_ops, 0, options.seconds}, [&](CatalogSession& s, int, uint64_t i) {
               return s.LoadTable(population.table(static_cast<int>(i)));
             });

  // Untimed: make every table resident, whatever the cold scenario's time bound left out.
  if (auto session = target.NewSession(); session) {
    for (int i = 0; i < tables; ++i) (void)(*session)->LoadTable(population.table(i));
  }
  for (int threads : ReadThreadCounts(options)) {
    runner.Run({.scenario = "load_table_warm", .threads = threads},
               {threads, options.ops, options.warmup, options.seconds},
               [&](CatalogSession& s, int t, uint64_t i) {
                 return s.LoadTable(population.table(PickIndex(t, i, tables)));
               });
  }
  if (auto session = target.NewSession();
      session && (*session)->ResolveMetadata(population.table(0))) {
    for (int threads : ReadThreadCounts(options)) {
      runner.Run({.scenario = "resolve_metadata",
                  .threads = threads,
                  .notes = "the catalog's floor under load_table: pointer + cached metadata"},
                 {threads, options.ops, options.warmup, options.seconds},
                 [&](CatalogSession& s, int t, uint64_t i) {
                   return s.ResolveMetadata(population.table(PickIndex(t, i, tables)));
                 });
    }
  }
  for (int threads : ReadThreadCounts(options)) {
    runner.Run({.scenario = "table_exists", .threads = threads},
               {threads, options.ops, options.warmup, options.seconds},
               [&](CatalogSession& s, int t, uint64_t i) {
                 const auto& identifier = population.table(PickIndex(t, i, tables));
                 return CheckExists(s.TableExists(identifier), identifier);
               });
  }
  runner.Run({.scenario = "list_tables",
              .notes = StrCat(options.tables_per_namespace, " tables per namespace")},
             {1, options.ops, options.warmup, options.seconds},
             [&](CatalogSession& s, int t, uint64_t i) {
               return s.ListTables(population.ns(PickIndex(t, i, tables)));
             });
  runner.Run(
      {.scenario = "list_namespaces", .notes = StrCat(options.namespaces() + 2, " namespaces")},
      {1, options.ops, options.warmup, options.seconds},
      [&](CatalogSession& s, int, uint64_t) { return s.ListNamespaces(); });
}

void RunCreateScenario(const BenchOptions& options, ScenarioRunner& runner) {
  runner.Run({.scenario = "create_table"}, {1, options.commit_ops, 2, options.seconds},
             [&](CatalogSession& s, int t, uint64_t i) {
               return s.CreateTable({{kCreateNamespace}, StrCat("c", t, "_", i)});
             });
}

// Creates the fresh tables of one commit case: one, or one per thread.
Result<std::vector<spec::TableIdentifier>> CreateCommitTables(CatalogTarget& target,
                                                              const std::string& prefix,
                                                              int count) {
  SKADE_ASSIGN_OR_RAISE(auto session, target.NewSession());
  std::vector<spec::TableIdentifier> tables;
  for (int t = 0; t < count; ++t) {
    tables.push_back({{kCommitNamespace}, StrCat(prefix, t)});
    SKADE_RETURN_NOT_OK(session->CreateTable(tables.back()));
  }
  return tables;
}

void RunCommitScenarios(const std::vector<ScenarioRunner*>& runners, const BenchOptions& options) {
  constexpr uint64_t kWarmup = 1;
  std::vector<std::pair<int, std::string>> cases = {{1, "same_table"}};
  // 2 and 16 on one table are the concurrent-writer targets' cases (bench/README.md).
  for (int threads : std::set<int>{2, options.threads, kManyCommitters}) {
    if (threads == 1) continue;
    cases.emplace_back(threads, "same_table");
    cases.emplace_back(threads, "different_tables");
  }
  for (size_t c = 0; c < cases.size(); ++c) {
    const auto& [threads, variant] = cases[c];
    for (size_t r = 0; r < runners.size(); ++r) {
      auto tables = CreateCommitTables(runners[r]->target(), StrCat("k", c, "_", r, "_"),
                                       variant == "same_table" ? 1 : threads);
      AppendCounts appends(threads, kWarmup);
      runners[r]->Run(
          {.scenario = "commit",
           .variant = variant,
           .threads = threads,
           .notes = "one append per op; conflicts, retries and failures of timed ops"},
          {threads, options.commit_ops, kWarmup, options.seconds},
          [&](CatalogSession& s, int t, uint64_t i) -> Status {
            if (!tables) return tl::unexpected(tables.error());
            return s.Append((*tables)[t % tables->size()], appends.For(t, i));
          },
          &appends);
    }
  }
}

void RunMixedScenario(const BenchOptions& options, const Population& population,
                      ScenarioRunner& runner) {
  enum Kind { kRead = 0, kCommit = 1 };
  auto kind_of = [](int t, uint64_t i) {
    return PickIndex(t, i ^ 0x5EED, 10) == 0 ? kCommit : kRead;
  };
  AppendCounts appends(options.threads, options.warmup);
  runner.Run({.scenario = "mixed_90_10",
              .threads = options.threads,
              .kinds = {"read", "commit"},
              .notes = "90% load_table (read_*), 10% append (commit_*), random tables"},
             {options.threads, options.ops, options.warmup, options.seconds},
             [&](CatalogSession& s, int t, uint64_t i) {
               const auto& identifier = population.table(PickIndex(t, i, options.tables));
               if (kind_of(t, i) == kCommit) return s.Append(identifier, appends.For(t, i));
               return s.LoadTable(identifier);
             },
             &appends, {2, kind_of});
  // The same mix with each append's client-side work and no commit: the read
  // latency the load generator's own writers cause on a machine it shares
  // with the catalog (bench/README.md "mixed_90_10").
  if (!options.Runs("mixed_90_10", "writer_only")) return;
  if (auto session = runner.target().NewSession(); session) {
    Status staged = (*session)->StageAppend(population.table(0));
    if (!staged && staged.error().kind == ErrorKind::kUnsupported) return;
  }
  runner.Run({.scenario = "mixed_90_10",
              .variant = "writer_only",
              .threads = options.threads,
              .kinds = {"read", "commit"},
              .notes = "as mixed_90_10, but each append stops before its commit is sent (load, "
                       "manifest, manifest list, request built; the files stay, unreferenced): "
                       "the writers' own share"},
             {options.threads, options.ops, options.warmup, options.seconds},
             [&](CatalogSession& s, int t, uint64_t i) {
               const auto& identifier = population.table(PickIndex(t, i, options.tables));
               if (kind_of(t, i) == kCommit) return s.StageAppend(identifier);
               return s.LoadTable(identifier);
             },
             nullptr, {2, kind_of});
}

}  // namespace

Status Populate(CatalogTarget& target, const BenchOptions& options) {
  SKADE_ASSIGN_OR_RAISE(auto sessions, OpenSessions(target, options.threads));
  for (int n = 0; n < options.namespaces(); ++n) {
    SKADE_RETURN_NOT_OK(sessions[0]->CreateNamespace(
        options.PopulationNamespace(n * options.tables_per_namespace)));
  }
  SKADE_RETURN_NOT_OK(sessions[0]->CreateNamespace({kCreateNamespace}));
  SKADE_RETURN_NOT_OK(sessions[0]->CreateNamespace({kCommitNamespace}));
  std::vector<Status> results(sessions.size(), OkStatus());
  std::vector<std::thread> workers;
  for (size_t t = 0; t < sessions.size(); ++t) {
    workers.emplace_back([&, t] {
      for (int i = static_cast<int>(t); i < options.tables && results[t];
           i += static_cast<int>(sessions.size())) {
        results[t] = sessions[t]->CreateTable(options.PopulationTable(i));
      }
    });
  }
  for (auto& worker : workers) worker.join();
  for (auto& result : results) SKADE_RETURN_NOT_OK(result);
  return OkStatus();
}

void RunScenarios(CatalogTarget& target, const std::vector<CatalogTarget*>& commit_peers,
                  const BenchOptions& options, std::ostream& out) {
  const Population population(options);
  ScenarioRunner runner(target, options, out);
  RunReadScenarios(target, options, population, runner);
  RunCreateScenario(options, runner);
  std::vector<std::unique_ptr<ScenarioRunner>> peer_runners;
  std::vector<ScenarioRunner*> commit_runners = {&runner};
  for (CatalogTarget* peer : commit_peers) {
    peer_runners.push_back(std::make_unique<ScenarioRunner>(*peer, options, out));
    commit_runners.push_back(peer_runners.back().get());
  }
  RunCommitScenarios(commit_runners, options);
  RunMixedScenario(options, population, runner);
}

}  // namespace skade::bench
