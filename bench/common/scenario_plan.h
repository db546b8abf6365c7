// The scenarios every target runs, in one order, with one meaning
// (bench/README.md lists them): populate the benchmark catalog, then
// load_table_cold, load_table_warm, resolve_metadata (where the target has
// it), table_exists, list_tables, list_namespaces, create_table, commit
// (1/2/N/16 threads; same table and different tables) and mixed_90_10.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/bench_options.h"
#include "common/catalog_target.h"

namespace skade::bench {

/// Creates the namespaces and tables of the benchmark catalog (see
/// BenchOptions) with `options.threads` sessions in parallel.
Status Populate(CatalogTarget& target, const BenchOptions& options);

/// Runs the scenarios in order on `target` and writes one record each to
/// `out`; a failing scenario is recorded with its error and the plan goes on.
/// The target must come with cold caches (a fresh process or a reopened
/// catalog): load_table_cold is the first touch of each table. The commit
/// scenarios also run on each of `commit_peers` (e.g. the same catalog with
/// group commit off), case by case in turn, so that a burst of load from
/// elsewhere on the machine hits all of them alike.
void RunScenarios(CatalogTarget& target, const std::vector<CatalogTarget*>& commit_peers,
                  const BenchOptions& options, std::ostream& out);

}  // namespace skade::bench
