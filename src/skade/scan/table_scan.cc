#include "skade/scan/table_scan.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <atomic>
#include <optional>

#include "skade/avro/manifest_reader.h"
#include "skade/catalog/metadata_files.h"
#include "skade/expr/bound_expression.h"
#include "skade/expr/manifest_evaluator.h"
#include "skade/expr/metrics_evaluator.h"
#include "skade/expr/partition_evaluator.h"
#include "skade/expr/residual_evaluator.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/scan/appends_between.h"
#include "skade/scan/delete_file_index.h"
#include "skade/util/clock.h"
#include "skade/util/parallel_for.h"
#include "skade/util/strings.h"

namespace skade::scan {
namespace {

// What the chosen snapshot and schema are, before any file is read.
struct ScanTarget {
  spec::SnapshotPtr snapshot;  // null: the table has no snapshot
  spec::SchemaPtr schema;
};

Status CheckOneTarget(const ScanOptions& options) {
  int targets = options.snapshot_id.has_value() + options.as_of_timestamp_ms.has_value() +
                options.ref.has_value();
  if (targets > 1) {
    return InvalidArgument("a scan takes at most one of a snapshot id, a timestamp and a ref");
  }
  return OkStatus();
}

// The snapshot current at `timestamp_ms` by the snapshot log, or 0.
int64_t SnapshotIdAsOf(const spec::TableMetadata& metadata, int64_t timestamp_ms) {
  int64_t id = 0;
  for (const spec::SnapshotLogEntry& entry : metadata.snapshot_log) {
    if (entry.timestamp_ms <= timestamp_ms) id = entry.snapshot_id;
  }
  return id;
}

spec::SchemaPtr SchemaOf(const spec::TableMetadata& metadata, const spec::Snapshot& snapshot) {
  if (snapshot.schema_id) {
    if (spec::SchemaPtr schema = metadata.SchemaById(*snapshot.schema_id)) return schema;
  }
  return metadata.Schema();
}

// The snapshot, and whether Iceberg Java would read it in its own schema
// when the caller does not say.
struct ChosenSnapshot {
  spec::SnapshotPtr snapshot;
  bool snapshot_schema = false;
};

Result<ChosenSnapshot> ChooseSnapshot(const spec::TableMetadata& metadata,
                                      const ScanOptions& options) {
  if (options.snapshot_id) {
    spec::SnapshotPtr snapshot = metadata.SnapshotById(*options.snapshot_id);
    if (!snapshot) {
      return MakeError(ErrorKind::kNotFound, "the table has no snapshot ", *options.snapshot_id);
    }
    return ChosenSnapshot{snapshot, true};
  }
  if (options.as_of_timestamp_ms) {
    int64_t id = SnapshotIdAsOf(metadata, *options.as_of_timestamp_ms);
    spec::SnapshotPtr snapshot = id ? metadata.SnapshotById(id) : nullptr;
    if (!snapshot) {
      return MakeError(ErrorKind::kNotFound, "the table has no snapshot at or before ",
                       *options.as_of_timestamp_ms, " ms");
    }
    return ChosenSnapshot{snapshot, true};
  }
  if (options.ref) {
    const spec::SnapshotRef* ref = metadata.Ref(*options.ref);
    spec::SnapshotPtr snapshot = ref ? metadata.SnapshotById(ref->snapshot_id) : nullptr;
    if (!snapshot)
      return MakeError(ErrorKind::kNotFound, "the table has no branch or tag '", *options.ref, "'");
    // A branch is read in the table's schema, a tag in its snapshot's (as
    // Iceberg Java's SnapshotUtil.schemaFor).
    return ChosenSnapshot{snapshot, !ref->is_branch()};
  }
  return ChosenSnapshot{metadata.CurrentSnapshot(), false};
}

// `table_schema` is the table's current schema, which for a snapshot read
// through the commit log is not `metadata`'s.
Result<ScanTarget> ChooseTarget(const spec::TableMetadata& metadata, const ScanOptions& options,
                                spec::SchemaPtr table_schema) {
  SKADE_RETURN_NOT_OK(CheckOneTarget(options));
  if (!table_schema) return Corruption("the table metadata has no current schema");
  SKADE_ASSIGN_OR_RAISE(ChosenSnapshot chosen, ChooseSnapshot(metadata, options));
  // Java's incremental scans read the table's schema whatever the end.
  bool snapshot_schema = options.use_snapshot_schema.value_or(
      chosen.snapshot_schema && !options.from_snapshot_id.has_value());
  if (chosen.snapshot && snapshot_schema) {
    return ScanTarget{chosen.snapshot, SchemaOf(metadata, *chosen.snapshot)};
  }
  return ScanTarget{chosen.snapshot, std::move(table_schema)};
}

Result<std::vector<int32_t>> ProjectedIds(const spec::Schema& schema, const ScanOptions& options) {
  std::vector<int32_t> ids;
  if (options.select.empty()) {
    for (const spec::NestedField& field : schema.fields()) ids.push_back(field.id);
    return ids;
  }
  for (const std::string& name : options.select) {
    const spec::NestedField* field = schema.FindFieldByName(name, options.case_sensitive);
    if (!field) return InvalidArgument("no column '", name, "' in the table's schema");
    if (std::find(ids.begin(), ids.end(), field->id) != ids.end()) {
      return InvalidArgument("column '", name, "' is selected twice");
    }
    ids.push_back(field->id);
  }
  return ids;
}

// Per spec: the evaluators of the filter projected onto it, built once.
struct SpecEvaluators {
  spec::PartitionSpecPtr spec;
  spec::TypePtr partition_type;
  std::optional<expr::ManifestEvaluator> manifests;
  std::optional<expr::PartitionEvaluator> partitions;
  std::optional<expr::ResidualEvaluator> residuals;
};

// One manifest's contribution, kept per manifest so the tasks come out in
// manifest-list order whatever thread read them.
struct ManifestPart {
  std::vector<FileScanTask> tasks;  // residual not yet set
  std::vector<std::pair<spec::DataFile, int64_t>> deletes;
  int64_t data_files = 0;
  int64_t pruned_by_partition = 0;
  int64_t pruned_by_metrics = 0;
  bool cache_hit = false;
};

using SnapshotIdSet = absl::flat_hash_map<int64_t, bool>;

// A manifest list or manifest that does not parse was written by the
// table's writer, not by the catalog: a client error, not a server failure.
Error UnreadableFile(Error error, std::string_view what, const std::string& location) {
  if (error.kind != ErrorKind::kCorruption) return error;
  return Error{ErrorKind::kInvalidArgument,
               StrCat("The table's ", what, " ", location, " cannot be read: ", error.message)};
}

// The files a plan may read (ScanOptions::file_policy): inside the
// catalog's allowed locations, never in the store's directory; anything
// when no policy is given. Not only the table's own locations: after a
// set-location its snapshots still name the manifests written before.
// Check sees a location as written, before the manifest cache; a read that
// reaches storage (a cache miss) also checks where the file leads, since
// a file inside the roots may be a link to one outside them, reads it
// from there (following no link made since) and reads no more than
// kMaxMetadataReadBytes.
class ReadScope {
 public:
  ReadScope(const catalog::LocationPolicy* policy, io::FileIO& files) : files_(files) {
    if (policy != nullptr) checked_.emplace(policy, files);
  }
  Status Check(const std::string& location) const {
    return checked_ ? checked_->policy().Check(location) : OkStatus();
  }
  // The FileIO the plan reads through.
  io::FileIO& io() { return checked_ ? *checked_ : files_; }

 private:
  class CheckedReads : public io::ForwardingFileIO {
   public:
    // Does not own `files` (the aliasing shared_ptr owns nothing).
    CheckedReads(const catalog::LocationPolicy* policy, io::FileIO& files)
        : ForwardingFileIO(std::shared_ptr<io::FileIO>(std::shared_ptr<void>(), &files)),
          policy_(policy) {}
    const catalog::LocationPolicy& policy() const { return *policy_; }

    Result<std::string> ReadFile(std::string_view location) override {
      return ReadFileUpTo(location, catalog::kMaxMetadataReadBytes);
    }
    Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
      SKADE_ASSIGN_OR_RAISE(io::Location resolved, policy_->CheckRead(std::string(location)));
      return inner().ReadCheckedFileUpTo(location, resolved,
                                         std::min(max_bytes, catalog::kMaxMetadataReadBytes));
    }
    // The whole file, through the checked ReadFile (FileIO's own way).
    Result<std::unique_ptr<io::InputFile>> NewInputFile(std::string_view location) override {
      return io::FileIO::NewInputFile(location);
    }

   private:
    const catalog::LocationPolicy* policy_;
  };

  io::FileIO& files_;
  std::optional<CheckedReads> checked_;
};

// The manifests a scan reads before pruning: the snapshot's, or for an
// incremental scan the data manifests each append of the range wrote (as
// BaseIncrementalAppendScan: a manifest written by a snapshot in `range`).
// `lists` keeps the manifest lists the pointers point into.
Status ListManifests(const ScanPlan& plan, const std::vector<spec::SnapshotPtr>& appends,
                     const SnapshotIdSet& range, const ReadScope& scope, io::FileIO& io,
                     cache::ManifestCache& cache,
                     std::vector<std::shared_ptr<const avro::ManifestList>>& lists,
                     std::vector<const spec::ManifestFile*>& manifests) {
  std::vector<spec::SnapshotPtr> snapshots =
      plan.from_snapshot_id ? appends : std::vector<spec::SnapshotPtr>{plan.snapshot};
  absl::flat_hash_map<std::string_view, bool> seen;
  for (const spec::SnapshotPtr& snapshot : snapshots) {
    if (snapshot->manifest_list.empty()) {
      return Unsupported("snapshot ", snapshot->snapshot_id,
                         " lists its manifests inline (format v1 without a manifest list); "
                         "rewrite the table's manifests to scan it");
    }
    SKADE_RETURN_NOT_OK(scope.Check(snapshot->manifest_list));
    auto list = cache.ManifestList(io, snapshot->manifest_list);
    if (!list) {
      return tl::unexpected(UnreadableFile(list.error(), "manifest list", snapshot->manifest_list));
    }
    for (const spec::ManifestFile& manifest : (*list)->manifests) {
      if (plan.from_snapshot_id) {
        if (manifest.content != spec::ManifestContent::kData) continue;
        if (!range.contains(manifest.added_snapshot_id)) continue;
      }
      // Once each: a list that names a manifest twice would repeat its files.
      if (!seen.try_emplace(manifest.manifest_path, true).second) continue;
      manifests.push_back(&manifest);
    }
    lists.push_back(std::move(*list));
  }
  return OkStatus();
}

// About the memory `file` takes as a task: its path, tuple and metrics
// (a map node each), and a fixed share for the task and the rest.
uint64_t TaskBytes(const spec::DataFile& file) {
  uint64_t bytes = 512 + file.file_path.size() + 48 * file.partition.size() +
                   64 * (file.column_sizes.size() + file.value_counts.size() +
                         file.null_value_counts.size() + file.nan_value_counts.size()) +
                   8 * (file.split_offsets.size() + file.equality_ids.size());
  for (const auto* bounds : {&file.lower_bounds, &file.upper_bounds}) {
    for (const auto& [id, value] : *bounds) bytes += 64 + value.size();
  }
  return bytes;
}

// What one residual tree takes in memory, roughly.
uint64_t ResidualBytes(const expr::BoundExpression& residual) {
  uint64_t bytes = 128 + 64 * residual.literals().size();
  if (residual.left()) bytes += ResidualBytes(*residual.left());
  if (residual.right()) bytes += ResidualBytes(*residual.right());
  return bytes;
}

Result<ScanPlan> PlanScanIn(spec::TableMetadataPtr metadata, std::string metadata_location,
                            io::FileIO& unchecked_io, const ScanOptions& options,
                            cache::ManifestCache* cache, spec::SchemaPtr table_schema) {
  int64_t started = MonotonicMicros();
  if (!metadata) return InvalidArgument("no table metadata to scan");
  if (!table_schema) table_schema = metadata->Schema();
  SKADE_ASSIGN_OR_RAISE(ScanTarget target, ChooseTarget(*metadata, options, table_schema));
  ScanPlan plan;
  plan.metadata = metadata;
  plan.metadata_location = std::move(metadata_location);
  plan.snapshot = target.snapshot;
  plan.schema = target.schema;
  plan.case_sensitive = options.case_sensitive;
  std::vector<spec::SnapshotPtr> appends;
  SnapshotIdSet range;
  if (options.from_snapshot_id) {
    if (!plan.snapshot) {
      return InvalidArgument("an incremental scan needs an end snapshot; the table has none");
    }
    SKADE_ASSIGN_OR_RAISE(appends,
                          AppendsBetween(*metadata, *options.from_snapshot_id, plan.snapshot));
    plan.from_snapshot_id = options.from_snapshot_id;
    for (const spec::SnapshotPtr& append : appends) {
      plan.append_snapshot_ids.push_back(append->snapshot_id);
      range.try_emplace(append->snapshot_id, true);
    }
  }
  SKADE_ASSIGN_OR_RAISE(plan.projected_field_ids, ProjectedIds(*plan.schema, options));
  const expr::Expression& filter = options.filter ? *options.filter : *expr::Expression::True();
  SKADE_ASSIGN_OR_RAISE(plan.filter, expr::Bind(filter, *plan.schema, options.case_sensitive));
  if (!plan.snapshot || plan.filter->IsFalse() || (plan.from_snapshot_id && appends.empty())) {
    plan.stats.planning_micros = MonotonicMicros() - started;
    return plan;
  }

  cache::ManifestCache uncached(cache::ManifestCacheOptions{.capacity_bytes = 0});
  cache::ManifestCache& manifests = cache ? *cache : uncached;
  std::vector<std::shared_ptr<const avro::ManifestList>> lists;
  std::vector<const spec::ManifestFile*> listed;
  ReadScope scope(options.file_policy, unchecked_io);
  io::FileIO& io = scope.io();
  SKADE_RETURN_NOT_OK(ListManifests(plan, appends, range, scope, io, manifests, lists, listed));
  // Java's filterManifestEntries for an incremental scan: added by the range.
  auto read_entry = [&](const spec::ManifestEntry& entry) {
    if (entry.status == spec::ManifestEntryStatus::kDeleted) return false;
    if (!plan.from_snapshot_id) return true;
    return entry.status == spec::ManifestEntryStatus::kAdded && entry.snapshot_id &&
           range.contains(*entry.snapshot_id);
  };

  // Evaluators per spec, then manifests pruned by their partition summaries.
  absl::flat_hash_map<int32_t, SpecEvaluators> evaluators;
  std::vector<const spec::ManifestFile*> to_read;
  plan.stats.manifests_total = static_cast<int64_t>(listed.size());
  for (const spec::ManifestFile* listed_manifest : listed) {
    const spec::ManifestFile& manifest = *listed_manifest;
    auto [it, added] = evaluators.try_emplace(manifest.partition_spec_id);
    SpecEvaluators& e = it->second;
    if (added) {
      e.spec = metadata->SpecById(manifest.partition_spec_id);
      if (!e.spec) {
        return InvalidArgument("The table's manifest ", manifest.manifest_path,
                               " names partition spec ", manifest.partition_spec_id,
                               ", which the table does not have");
      }
      SKADE_ASSIGN_OR_RAISE(e.partition_type,
                            e.spec->PartitionType(*plan.schema, metadata->schemas));
      SKADE_ASSIGN_OR_RAISE(auto m,
                            expr::ManifestEvaluator::Make(*plan.filter, *e.spec, *plan.schema));
      SKADE_ASSIGN_OR_RAISE(auto p,
                            expr::PartitionEvaluator::Make(*plan.filter, *e.spec, *plan.schema));
      SKADE_ASSIGN_OR_RAISE(auto r,
                            expr::ResidualEvaluator::Make(plan.filter, *e.spec, *plan.schema));
      e.manifests.emplace(std::move(m));
      e.partitions.emplace(std::move(p));
      e.residuals.emplace(std::move(r));
    }
    if (!e.manifests->MayMatch(manifest)) {
      ++plan.stats.manifests_pruned_by_summary;
      continue;
    }
    SKADE_RETURN_NOT_OK(scope.Check(manifest.manifest_path));
    to_read.push_back(&manifest);
  }

  // What the files held so far would take as tasks (ScanOptions::max_task_bytes).
  std::atomic<uint64_t> task_bytes{0};
  auto hold_bytes = [&](uint64_t bytes) -> Status {
    if (options.max_task_bytes == 0 ||
        task_bytes.fetch_add(bytes, std::memory_order_relaxed) <= options.max_task_bytes) {
      return OkStatus();
    }
    return InvalidArgument("The scan's files come to more than the ", options.max_task_bytes,
                           " bytes one plan may hold: narrow the scan with a filter, or plan it "
                           "on the client");
  };
  auto hold = [&](const spec::DataFile& file) { return hold_bytes(TaskBytes(file)); };
  // Read the rest in parallel: each manifest's live files, pruned by
  // partition tuple and (data files) by column metrics.
  expr::MetricsEvaluator metrics(plan.filter, *plan.schema);
  std::vector<ManifestPart> parts(to_read.size());
  SKADE_RETURN_NOT_OK(ParallelFor(to_read.size(), options.threads, [&](size_t i) -> Status {
    const spec::ManifestFile& manifest = *to_read[i];
    const SpecEvaluators& e = evaluators.at(manifest.partition_spec_id);
    avro::ManifestReaderOptions read_options;
    read_options.partition_type = e.partition_type;
    read_options.skip_column_sizes = true;
    auto read = manifests.Manifest(io, manifest, read_options, &parts[i].cache_hit);
    if (!read)
      return tl::unexpected(UnreadableFile(read.error(), "manifest", manifest.manifest_path));
    const auto& parsed = *read;
    ManifestPart& part = parts[i];
    for (const spec::ManifestEntry& entry : parsed->entries) {
      if (!read_entry(entry)) continue;
      const spec::DataFile& file = entry.data_file;
      bool is_data = file.content == spec::DataFileContent::kData;
      if (is_data) ++part.data_files;
      if (!e.partitions->MayMatch(file.partition)) {
        if (is_data) ++part.pruned_by_partition;
        continue;
      }
      int64_t sequence = entry.sequence_number.value_or(0);
      if (!is_data) {
        SKADE_RETURN_NOT_OK(hold(file));
        part.deletes.emplace_back(file, sequence);
        continue;
      }
      if (!metrics.MayMatch(file)) {
        ++part.pruned_by_metrics;
        continue;
      }
      SKADE_RETURN_NOT_OK(hold(file));
      FileScanTask task;
      task.data_file = file;
      task.data_sequence_number = sequence;
      task.file_sequence_number = entry.file_sequence_number.value_or(sequence);
      task.spec = e.spec;
      part.tasks.push_back(std::move(task));
    }
    return OkStatus();
  }));

  DeleteFileIndex deletes;
  for (ManifestPart& part : parts) {
    plan.stats.data_files_total += part.data_files;
    plan.stats.data_files_pruned_by_partition += part.pruned_by_partition;
    plan.stats.data_files_pruned_by_metrics += part.pruned_by_metrics;
    plan.stats.manifest_cache_hits += part.cache_hit;
    for (auto& [file, sequence] : part.deletes) {
      int32_t spec_id = file.spec_id;
      deletes.Add(std::move(file), sequence, *evaluators.at(spec_id).spec);
    }
  }
  plan.stats.manifests_read = static_cast<int64_t>(to_read.size());
  plan.stats.delete_files_total = static_cast<int64_t>(deletes.size());
  deletes.Finish();

  absl::flat_hash_map<std::pair<std::string, int64_t>, bool> applied;
  // A residual can differ by partition: each tree made is held too (a large
  // filter over many partitions would otherwise grow without bound).
  absl::flat_hash_map<const expr::BoundExpression*, bool> residuals_held;
  for (ManifestPart& part : parts) {
    for (FileScanTask& task : part.tasks) {
      task.residual =
          evaluators.at(task.spec->spec_id).residuals->ResidualFor(task.data_file.partition);
      if (task.residual->IsFalse()) continue;
      if (residuals_held.try_emplace(task.residual.get(), true).second) {
        SKADE_RETURN_NOT_OK(hold_bytes(ResidualBytes(*task.residual)));
      }
      task.deletes = deletes.ForDataFile(task.data_file, task.data_sequence_number);
      for (const ScanDelete& d : task.deletes) {
        // Each task holds its own copy of every delete that applies: many
        // deletes over many files take their product.
        SKADE_RETURN_NOT_OK(hold(d.file));
        auto [path, offset] = KeyOf(d.file);
        applied.try_emplace(std::pair<std::string, int64_t>(path, offset), true);
      }
      plan.tasks.push_back(std::move(task));
    }
  }
  plan.stats.delete_files_applied = static_cast<int64_t>(applied.size());
  plan.stats.planning_micros = MonotonicMicros() - started;
  return plan;
}

}  // namespace

Result<ScanPlan> PlanScan(spec::TableMetadataPtr metadata, std::string metadata_location,
                          io::FileIO& io, const ScanOptions& options, cache::ManifestCache* cache) {
  return PlanScanIn(std::move(metadata), std::move(metadata_location), io, options, cache, nullptr);
}

Result<ScanPlan> PlanTableScan(catalog::Catalog& catalog, const catalog::TableIdentifier& table,
                               io::FileIO& io, const ScanOptions& options,
                               cache::ManifestCache* cache) {
  SKADE_RETURN_NOT_OK(CheckOneTarget(options));
  SKADE_ASSIGN_OR_RAISE(catalog::LoadTableResult loaded, catalog.LoadTable(table));
  const spec::TableMetadata& current = *loaded.metadata;
  const spec::SchemaPtr table_schema = current.Schema();
  // A snapshot expired from the current metadata is still in the commit log.
  std::optional<int64_t> historic_id;
  if (options.snapshot_id && !current.SnapshotById(*options.snapshot_id)) {
    historic_id = options.snapshot_id;
  }
  if (options.as_of_timestamp_ms) {
    int64_t id = SnapshotIdAsOf(current, *options.as_of_timestamp_ms);
    if (id && !current.SnapshotById(id)) historic_id = id;
    if (!id) {
      // Before the snapshot log's first entry (or the log was trimmed): the
      // commit log's answer, the table as it was then.
      SKADE_ASSIGN_OR_RAISE(loaded, catalog.LoadTableAsOf(table, *options.as_of_timestamp_ms));
      ScanOptions at_then = options;
      at_then.as_of_timestamp_ms.reset();
      if (!loaded.metadata->current_snapshot_id) {
        return MakeError(ErrorKind::kNotFound, "table ", table.ToString(),
                         " had no snapshot at or before ", *options.as_of_timestamp_ms, " ms");
      }
      at_then.snapshot_id = loaded.metadata->current_snapshot_id;
      return PlanScanIn(loaded.metadata, loaded.metadata_location, io, at_then, cache,
                        table_schema);
    }
  }
  if (historic_id) {
    SKADE_ASSIGN_OR_RAISE(loaded, catalog.LoadTableAt(table, *historic_id));
    ScanOptions at = options;
    at.as_of_timestamp_ms.reset();
    at.snapshot_id = historic_id;
    return PlanScanIn(loaded.metadata, loaded.metadata_location, io, at, cache, table_schema);
  }
  return PlanScan(loaded.metadata, loaded.metadata_location, io, options, cache);
}

}  // namespace skade::scan
