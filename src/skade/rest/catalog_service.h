// The Iceberg REST catalog API over a Catalog: matches each request against
// the route table (routes.h), authenticates it, and runs the route's handler,
// which answers in the shapes of the Iceberg REST OpenAPI document
// (rest-catalog-open-api.yaml). Handlers return Errors; Handle turns them into
// ErrorModel responses (error_response.h). Calls of mutating routes with an
// Idempotency-Key run through IdempotentRequests (idempotency.h). Used as the
// HttpServer's handler. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <semaphore>
#include <span>

#include "skade/cache/manifest_cache.h"
#include "skade/catalog/catalog.h"
#include "skade/catalog/location_policy.h"
#include "skade/rest/authenticator.h"
#include "skade/rest/http/http_message.h"
#include "skade/rest/idempotency.h"
#include "skade/rest/operations_endpoints.h"
#include "skade/rest/routes.h"
#include "skade/rest/scan_plan_store.h"
#include "skade/rest/storage_access.h"

namespace skade::rest {

/// Server-side scan planning (planTableScan and the routes after it).
struct ScanPlanningOptions {
  /// Reads manifest lists and manifests: the catalog's FileIO. Null: the
  /// planning routes answer 501.
  std::shared_ptr<io::FileIO> io;
  /// The catalog's allowed locations: a plan reads only the manifest lists
  /// and manifests it allows (scan::ScanOptions::file_policy). Null, as
  /// `io`: the routes answer 501.
  std::shared_ptr<const catalog::LocationPolicy> file_policy;
  /// Shared with everything else in the process that plans; null: none.
  std::shared_ptr<cache::ManifestCache> manifest_cache;
  /// A plan of at most this many tasks is answered in full; a larger one is
  /// held (ScanPlanStore) and handed out as plan tasks of this many each.
  size_t tasks_per_response = 1000;
  /// Plans made at once, at most (0: one per core, at least 2); another
  /// waits up to `plan_slot_wait` for one to finish, then gets 503 with
  /// Retry-After. With ScanOptions::max_task_bytes (the store's max_bytes
  /// per plan) it bounds the memory planning takes.
  size_t max_concurrent_plans = 0;
  std::chrono::milliseconds plan_slot_wait{5000};
  ScanPlanStoreOptions store;
};

class CatalogService {
 public:
  /// POST /v1/skade/resolve answers at most this many snapshots per request
  /// and returns the rest in `unprocessed`, in request order, for the client
  /// to send again: it bounds the work one request does on an I/O thread and
  /// the size of its answer, whatever the body holds.
  static constexpr size_t kMaxResolveSnapshots = 1000;
  /// The largest page of GET …/skade/…/history, and its size when the
  /// request names none (a larger pageSize is served this many).
  static constexpr size_t kMaxHistoryPageSize = 1000;
  /// GET …/skade/changes: the largest page (pageSize), and the page when
  /// the request names none.
  static constexpr size_t kMaxChangesPageSize = 1000;
  static constexpr size_t kDefaultChangesPageSize = 100;

  CatalogService(std::shared_ptr<catalog::Catalog> catalog, std::shared_ptr<Authenticator> auth,
                 IdempotencyOptions idempotency = {}, StorageAccess storage = {},
                 ScanPlanningOptions scan_planning = {},
                 std::shared_ptr<const OperationsEndpoints> operations = nullptr);

  /// Answers `request`. The answer's `route` is the matched route's pattern
  /// and, for an error, its `error` the error's message (HttpResponse).
  HttpResponse Handle(const HttpRequest& request);

  /// Whether Handle may block on `request` — the HttpServer's `may_block`
  /// (RunsOnPool over the route table): true for the requests that write,
  /// which wait on file writes, syncs and the store's group commit, for
  /// planTableScan and resolve, for the time-travel reads of past versions,
  /// for loadCredentials and a loadTable that asks for vended credentials
  /// (STS calls), and for loadTable and the held plans' routes when the
  /// catalog's metadata cache does not hold the table's current metadata
  /// (the file is read, perhaps from a stalled object store). False for
  /// other reads — loadTable of a cached table, the hot path, among them —
  /// and for a target that does not parse (a 400). Thread-safe.
  bool MayBlock(const HttpRequest& request) const;

  /// The HttpServer's `refuse_before_body`: the 401 of a request with a
  /// body that has no valid credentials where they are needed, answered
  /// before its body is read (up to the body limit, 16 MiB per connection,
  /// for anyone who can connect otherwise). None when authentication is off,
  /// for public routes and for valid credentials. Thread-safe.
  std::optional<HttpResponse> RefuseBeforeBody(const HttpRequest& request);

  IdempotentRequests& idempotency() { return idempotency_; }

 private:
  // kNotAuthorized's answer, with the challenge.
  static HttpResponse NotAuthorized(const Error& error);
  // The route table names the handlers.
  friend std::span<const Route> Routes();

  // Sets `*route` to the pattern of the route the request matched, if any
  // (HttpResponse::route), before it answers, errors included.
  Result<HttpResponse> Dispatch(const HttpRequest& request, std::string_view* route);

  // Handlers, one per route.
  Result<HttpResponse> IssueToken(RouteCall& call);
  Result<HttpResponse> Config(RouteCall& call);
  Result<HttpResponse> ListNamespaces(RouteCall& call);
  Result<HttpResponse> CreateNamespace(RouteCall& call);
  Result<HttpResponse> LoadNamespace(RouteCall& call);
  Result<HttpResponse> NamespaceExists(RouteCall& call);
  Result<HttpResponse> DropNamespace(RouteCall& call);
  Result<HttpResponse> UpdateProperties(RouteCall& call);
  Result<HttpResponse> ListTables(RouteCall& call);
  Result<HttpResponse> CreateTable(RouteCall& call);
  Result<HttpResponse> RegisterTable(RouteCall& call);
  Result<HttpResponse> LoadTable(RouteCall& call);
  Result<HttpResponse> TableExists(RouteCall& call);
  Result<HttpResponse> CommitTable(RouteCall& call);
  Result<HttpResponse> DropTable(RouteCall& call);
  Result<HttpResponse> ReportMetrics(RouteCall& call);
  Result<HttpResponse> RenameTable(RouteCall& call);
  Result<HttpResponse> CommitTransaction(RouteCall& call);
  Result<HttpResponse> LoadCredentials(RouteCall& call);
  Result<HttpResponse> PlanTableScan(RouteCall& call);
  Result<HttpResponse> FetchPlanningResult(RouteCall& call);
  Result<HttpResponse> CancelPlanning(RouteCall& call);
  Result<HttpResponse> FetchScanTasks(RouteCall& call);
  // Whose plans the route's table holds: its name and current UUID.
  Result<PlanOwner> CurrentPlanOwner(const RouteCall& call);
  // skade's time-travel extension.
  Result<HttpResponse> LoadTableAtSnapshot(RouteCall& call);
  Result<HttpResponse> LoadTableAsOf(RouteCall& call);
  Result<HttpResponse> TableHistory(RouteCall& call);
  Result<HttpResponse> ResolveSnapshots(RouteCall& call);
  // skade's change feed.
  Result<HttpResponse> ReadChanges(RouteCall& call);
  // For operators (operations_endpoints.h); 404 without `operations_`.
  Result<HttpResponse> HealthLive(RouteCall& call);
  Result<HttpResponse> HealthReady(RouteCall& call);
  Result<HttpResponse> ScrapeMetrics(RouteCall& call);

  // Whether `route` is answered before authentication.
  bool IsPublic(const Route& route) const;

  // A LoadTableResult for `call`: its metadata (`metadata_json` if given,
  // else the table's), the storage's client properties and, when the client
  // asks, vended credentials.
  Result<HttpResponse> TableResponse(const RouteCall& call, const catalog::LoadTableResult& table,
                                     std::string_view metadata_json = {});
  // OK if credentials can be vended for `metadata`'s roots to `call`'s
  // client, or the client asks for none. Create and register check before
  // they commit, so a location the vendor refuses (kForbidden: a wildcard,
  // a policy too long for STS) leaves no table behind for a retry to find
  // (409). It vends and drops the result: the vendor alone knows its rules,
  // and STS credentials are cached per set of roots, so the answer after the
  // commit gets the same ones.
  Status CheckVendable(const RouteCall& call, const spec::TableMetadata& metadata);
  // The storage-credentials for a table and `call`'s client (none when
  // nothing is vended to it): one set for all the table's roots (location,
  // data and metadata paths), as an entry per root not inside another.
  Result<std::vector<StorageCredential>> VendCredentials(const RouteCall& call,
                                                         const spec::TableMetadata& metadata);

  std::shared_ptr<catalog::Catalog> catalog_;
  // Whether the catalog's cache holds a table's current metadata; "no" for
  // a catalog that cannot tell (then every load runs on the pool).
  MetadataCachedQuery metadata_cached_;
  std::shared_ptr<Authenticator> auth_;
  IdempotentRequests idempotency_;
  StorageAccess storage_;
  ScanPlanningOptions scan_planning_;
  ScanPlanStore plans_;
  size_t max_concurrent_plans_ = 0;
  std::unique_ptr<std::counting_semaphore<>> plan_slots_;  // max_concurrent_plans_ of them
  std::shared_ptr<const OperationsEndpoints> operations_;
};

}  // namespace skade::rest
