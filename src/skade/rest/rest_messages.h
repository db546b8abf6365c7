// JSON bodies of the Iceberg REST catalog API (rest-catalog-open-api.yaml):
// request parsing and response writing. Parsers return kInvalidArgument
// (REST 400) for malformed or incomplete bodies. Stateless; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "skade/catalog/catalog.h"
#include "skade/rest/scan_tasks_json.h"
#include "skade/rest/storage_access.h"
#include "skade/scan/table_scan.h"
#include "skade/util/result.h"

namespace skade::rest {

struct CreateNamespaceBody {
  spec::Namespace ns;
  catalog::Properties properties;
};
struct UpdatePropertiesBody {
  std::vector<std::string> removals;
  catalog::Properties updates;
};
struct RenameBody {
  spec::TableIdentifier source;
  spec::TableIdentifier destination;
};
struct RegisterBody {
  std::string name;
  std::string metadata_location;
  bool overwrite = false;
};

/// planTableScan's PlanTableScanRequest. `options` holds every field the
/// planner takes: `snapshot-id`, or `start-snapshot-id` (options'
/// from_snapshot_id) with `end-snapshot-id` (options' snapshot_id);
/// `use-snapshot-schema` (spec default false: the table's current schema;
/// true: the scanned snapshot's, the end snapshot's for an incremental scan);
/// `select`, `filter`, `case-sensitive`.
struct PlanTableScanBody {
  scan::ScanOptions options;
  /// Absent: no column metrics in the answer.
  std::optional<std::vector<std::string>> stats_fields;
  /// Read and checked, then not used: skade answers every plan in full.
  std::optional<int64_t> min_rows_requested;
};

/// The most names a `select` or `stats-fields` list may hold, so that one
/// request cannot make the planner resolve millions of names.
inline constexpr size_t kMaxScanFieldNames = 10000;
/// A commit's updates apply one after another, and each schema, partition
/// spec or sort order it adds is compared with every one the table has:
/// bounds far past what clients send keep one request from holding the
/// table's lock for minutes (400 past them).
inline constexpr size_t kMaxUpdatesPerCommit = 10000;
inline constexpr size_t kMaxAddedSchemasSpecsAndOrdersPerCommit = 100;

Result<CreateNamespaceBody> ParseCreateNamespace(std::string_view body);
Result<UpdatePropertiesBody> ParseUpdateProperties(std::string_view body);
Result<catalog::CreateTableRequest> ParseCreateTable(std::string_view body);
/// `identifier` is the table of the URL; a body `identifier` must match it.
Result<catalog::CommitTableRequest> ParseCommitTable(std::string_view body,
                                                     const spec::TableIdentifier& identifier);
Result<std::vector<catalog::CommitTableRequest>> ParseCommitTransaction(std::string_view body);
Result<RenameBody> ParseRename(std::string_view body);
Result<RegisterBody> ParseRegister(std::string_view body);
/// Checks a metrics report is a JSON object with a `report-type`.
Status ValidateMetricsReport(std::string_view body);
/// skade's resolve request, shaped as the Iceberg resolve proposal's typed
/// item arrays: `{"snapshots": [{"identifier": {"namespace": […], "name":
/// …}, "snapshot-id": N}, …]}`. Every item is checked (a snapshot id is a
/// non-negative long), including those beyond what one request resolves.
Result<std::vector<catalog::SnapshotKey>> ParseResolveSnapshots(std::string_view body);
/// An empty body is the request with every default. Snapshot ids must be
/// non-negative; start-snapshot-id needs end-snapshot-id and excludes
/// snapshot-id; the filter must parse (expr::ExpressionFromJson); names lists
/// hold at most kMaxScanFieldNames.
Result<PlanTableScanBody> ParsePlanTableScan(std::string_view body);
/// fetchScanTasks' FetchScanTasksRequest: its `plan-task`.
Result<std::string> ParseFetchScanTasks(std::string_view body);

std::string WriteNamespace(const spec::Namespace& ns, const catalog::Properties& properties);
std::string WriteNamespaceList(const catalog::Page<spec::Namespace>& page);
std::string WriteTableList(const catalog::Page<spec::TableIdentifier>& page);
std::string WriteUpdateProperties(const catalog::UpdateNamespacePropertiesResult& result);
/// The `config` and `storage-credentials` of a LoadTableResult.
struct TableConfig {
  StorageProperties config;
  std::vector<StorageCredential> storage_credentials;  // omitted when empty
};

/// LoadTableResult (with `config`) / CommitTableResponse (`config` null):
/// the metadata JSON is embedded as given (`metadata_json`), never
/// re-serialized. An empty location (staged table) is omitted.
std::string WriteLoadTable(const std::string& metadata_location, std::string_view metadata_json,
                           const TableConfig* config);

/// LoadCredentialsResponse.
std::string WriteLoadCredentials(const std::vector<StorageCredential>& credentials);
/// The resolve answer: `snapshots`, one item per `resolved` key in order, the
/// key with `"status": "found"` and its `locations` entry as
/// `metadata-location`, or `"status": "not-found"`; and `unprocessed`, the
/// keys not resolved, in the request's item form.
std::string WriteResolveSnapshots(std::span<const catalog::SnapshotKey> resolved,
                                  const std::vector<std::optional<std::string>>& locations,
                                  std::span<const catalog::SnapshotKey> unprocessed);
/// A page of a table's commit log: `{"commits": [{"commit-seq",
/// "committed-at-ms", "metadata-location", "added-snapshot-ids"}, …]}` and a
/// `next-page-token` unless it is the last page.
/// planTableScan's answer for a plan answered in full: a
/// CompletedPlanningWithIDResult with `plan_id` (the REST spec requires one;
/// the server holds nothing for it), the ScanTasks of every task of `plan`
/// and the `credentials` (omitted when empty).
std::string WriteCompletedPlan(std::string_view plan_id, const scan::ScanPlan& plan,
                               const StatsFields& stats_fields,
                               const std::vector<StorageCredential>& credentials);
/// A "completed" answer that hands out `plan_tasks` (planTableScan for a held
/// plan, with its `plan_id`; fetchPlanningResult, with the tasks not fetched
/// yet and no id).
std::string WritePlanTasks(std::string_view plan_id, const std::vector<std::string>& plan_tasks,
                           const std::vector<StorageCredential>& credentials);
/// One plan task's FetchScanTasksResult: the ScanTasks of `tasks`.
std::string WriteScanTasksPage(const scan::ScanPlan& plan,
                               std::span<const scan::FileScanTask> tasks,
                               const StatsFields& stats_fields);
std::string WriteTableHistory(const catalog::Page<catalog::TableCommit>& page);

/// A commit's kind as the events proposal names it: "create-table",
/// "update-table", "register-table".
std::string_view ChangeOperationType(store::CommitKind kind);
/// One commit as a change-feed event, in the field names of the Iceberg
/// events proposal (event-id, request-id, timestamp-ms, actor, operation
/// with operation-type and identifier) plus skade's (sequence-number,
/// position, metadata-location, snapshots). Also `skade changes --json`'s
/// lines.
std::string WriteChangeEvent(uint64_t commit_seq, const store::CommitLogRecord& commit);
/// GET …/skade/changes: `events`, `next-since` (the number that pages on),
/// `next-position` (the same, checked: catalog::ChangePosition),
/// `last-sequence-number`, `pruned-through`, `highest-processed-timestamp-ms`
/// and, when the page is full, `next-page-token` (= next-position).
std::string WriteChangePage(const catalog::ChangePage& page, const catalog::ChangePosition& since,
                            bool full);

}  // namespace skade::rest
