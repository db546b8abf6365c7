// The knobs every benchmark driver shares (bench/README.md) and the layout of
// the benchmark catalog they imply: `tables` tables t00000… spread over
// namespaces bench_ns000… of `tables_per_namespace` tables each, plus the
// namespaces bench_create and bench_commit for the write scenarios.
//
// A plain value; thread-safe to read.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "skade/spec/table_identifier.h"

namespace skade::bench {

struct BenchOptions {
  /// Shared by every record of one `make bench` run.
  std::string run_id = "adhoc";
  int tables = 200;
  int tables_per_namespace = 100;
  /// N of the multi-threaded scenarios; reads also run with 1 and 2 threads,
  /// commits with 1, 2 and 16.
  int threads = 2;
  /// Upper bound of timed ops in one read scenario, over all threads.
  uint64_t ops = 20'000;
  /// Upper bound of timed ops in one write scenario, over all threads.
  uint64_t commit_ops = 200;
  /// Upper bound of one scenario's timed phase.
  double seconds = 2;
  /// Untimed ops each thread runs before a read scenario's barrier.
  uint64_t warmup = 100;
  /// Scenarios to run: record names such as `mixed_90_10`, or a name and
  /// variant such as `commit/different_tables`; empty runs every one. For
  /// measuring one path by hand.
  std::vector<std::string> scenarios;
  /// The catalog server's process on this machine, if any: records then give
  /// its CPU per op beside the load generator's.
  int server_pid = 0;

  /// Registers --run-id, --tables, --tables-per-namespace, --threads, --ops,
  /// --commit-ops, --seconds, --warmup, --scenarios and --server-pid on `app`.
  void AddTo(CLI::App& app);
  /// Whether `scenario` (of `variant`, may be empty) is one to run.
  bool Runs(const std::string& scenario, const std::string& variant) const;

  int namespaces() const { return (tables + tables_per_namespace - 1) / tables_per_namespace; }
  /// The namespace holding population table `index` (any int; taken modulo tables).
  spec::Namespace PopulationNamespace(int index) const;
  spec::TableIdentifier PopulationTable(int index) const;
};

inline constexpr char kCreateNamespace[] = "bench_create";
inline constexpr char kCommitNamespace[] = "bench_commit";

}  // namespace skade::bench
