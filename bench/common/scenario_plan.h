// The scenarios every target runs, in one order, with one meaning
// (bench/README.md lists them): populate the benchmark catalog, then
// load_table_cold, load_table_warm, table_exists, list_tables,
// list_namespaces, create_table, commit (1/N/16 threads; same table and
// different tables) and mixed_90_10.
#pragma once

#include <ostream>
#include <string>

#include "common/bench_options.h"
#include "common/catalog_target.h"

namespace skade::bench {

/// Creates the namespaces and tables of the benchmark catalog (see
/// BenchOptions) with `options.threads` sessions in parallel.
Status Populate(CatalogTarget& target, const BenchOptions& options);

enum class ScenarioSet {
  kAll,
  /// Only the commit scenarios, e.g. to repeat them with group commit off.
  kCommits,
};

/// Runs the scenarios of `set` in order and writes one record each to `out`; a
/// failing scenario is recorded with its error and the plan goes on. The
/// target must come with cold caches (a fresh process or a reopened catalog):
/// load_table_cold is the first touch of each table. Write scenarios create
/// fresh tables whose names start with `pass`, so several passes over one
/// catalog do not collide.
void RunScenarios(CatalogTarget& target, const BenchOptions& options, ScenarioSet set,
                  const std::string& pass, std::ostream& out);

}  // namespace skade::bench
