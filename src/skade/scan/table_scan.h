// Scan planning: which data files a scan of a table reads, with the delete
// files and residual filter of each (spec: "Scan Planning").
//
// Steps, each counted in PlanStats: choose the snapshot (current, by id, by
// timestamp, by branch or tag); read its manifest list; prune manifests by
// partition summaries (the filter projected onto each manifest's spec);
// read the remaining manifests in parallel through the ManifestCache; drop
// files whose partition tuple rules them out, then files whose column
// metrics do; match delete files to data files (delete_file_index.h); keep
// the residual per task. No Arrow; stateless functions, thread-safe.
//
// An incremental append scan (ScanOptions::from_snapshot_id; Iceberg Java's
// IncrementalAppendScan) reads, instead of the snapshot's live files, the
// data files ADDED by the `append` snapshots of the range (appends_between.h
// states the range rule): the data manifests those snapshots wrote, entries
// of status ADDED by one of them. Its tasks carry no delete files, as in
// Java, whose incremental append scan reads no delete manifests: an append
// adds no deletes, and the snapshots that do are outside what it reads.
// Filter, projection, metrics pruning and residuals are those of any scan.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "skade/cache/manifest_cache.h"
#include "skade/catalog/catalog.h"
#include "skade/catalog/location_policy.h"
#include "skade/expr/expression.h"
#include "skade/io/file_io.h"
#include "skade/scan/scan_plan.h"
#include "skade/util/result.h"

namespace skade::scan {

struct ScanOptions {
  /// Rows to keep (true: all).
  expr::ExpressionPtr filter = expr::Expression::True();
  /// Columns by name, in output order; empty: every top-level column.
  std::vector<std::string> select;
  bool case_sensitive = true;
  /// At most one of these; none scans the current snapshot of `main`.
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> as_of_timestamp_ms;  // the snapshot current at that time
  std::optional<std::string> ref;             // a branch or tag
  /// An incremental append scan of the snapshots after this one (exclusive)
  /// up to the one chosen above (inclusive; the current one by default).
  std::optional<int64_t> from_snapshot_id;
  /// Which schema binds `filter` and `select` and reads the rows: true, the
  /// scanned snapshot's (the end snapshot's for an incremental scan); false,
  /// the table's current schema. Unset, as Iceberg Java's scans: the
  /// snapshot's for a snapshot id, timestamp or tag; the table's for the
  /// current state, a branch or an incremental scan.
  std::optional<bool> use_snapshot_schema;
  /// Threads reading manifests (0: one per core).
  int threads = 0;
  /// When set, the plan reads only the manifest lists and manifests this
  /// policy allows (the catalog's allowed locations, never the store's
  /// directory), since every path in a table's metadata was written by a
  /// client; any other is refused (kForbidden, or kInvalidArgument for a
  /// location that is not one) before it is opened or looked up in the
  /// cache. Not the table's own file scope: after a set-location a snapshot
  /// still names manifests under the old location. Null reads whatever the
  /// metadata names (a caller scanning its own tables). Must outlive the
  /// call.
  const catalog::LocationPolicy* file_policy = nullptr;
  /// When nonzero, planning stops (kInvalidArgument) as soon as the files it
  /// holds (data and delete files, with their paths, partitions and metrics,
  /// and each task's copy of the deletes that apply to it) take about this
  /// many bytes of memory: a bound on what one plan takes, whatever the
  /// table's manifests list.
  uint64_t max_task_bytes = 0;
};

/// Plans a scan of `metadata` (at `metadata_location`), reading manifests
/// through `io` and `cache` (null: no cache). A snapshot id or timestamp must
/// be in `metadata`'s snapshots and log; use PlanTableScan to reach expired
/// ones. Errors: kNotFound (unknown snapshot, ref, or a timestamp before the
/// first snapshot), kInvalidArgument (bad filter or column, more than one
/// of snapshot_id/as_of/ref, a from_snapshot_id that is not an ancestor of
/// the end snapshot, an incremental scan of a table without snapshots, or a
/// manifest list or manifest that cannot be parsed: the table's writer wrote
/// it), kForbidden (a manifest outside ScanOptions::file_policy), FileIO
/// errors.
Result<ScanPlan> PlanScan(spec::TableMetadataPtr metadata, std::string metadata_location,
                          io::FileIO& io, const ScanOptions& options, cache::ManifestCache* cache);

/// Loads `table` from `catalog` and plans a scan of it; a snapshot id no
/// longer in the current metadata is resolved through the catalog's commit
/// log (Catalog::LoadTableAt), a timestamp through LoadTableAsOf; the
/// table's current schema is then still the one in the current metadata.
Result<ScanPlan> PlanTableScan(catalog::Catalog& catalog, const catalog::TableIdentifier& table,
                               io::FileIO& io, const ScanOptions& options,
                               cache::ManifestCache* cache);

}  // namespace skade::scan
