#include "skade/rest/catalog_service.h"

#include <xxhash.h>

#include <algorithm>
#include <span>
#include <thread>

#include "skade/catalog/embedded_catalog.h"
#include "skade/catalog/table_file_scope.h"
#include "skade/rest/error_response.h"
#include "skade/rest/request_target.h"
#include "skade/rest/rest_messages.h"
#include "skade/scan/table_scan.h"
#include "skade/spec/catalog_errors.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

HttpResponse JsonResponse(std::string body) {
  HttpResponse response;
  response.status = 200;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = std::move(body);
  return response;
}

// `response`, told not to be kept by any cache when it carries credentials.
HttpResponse NoStoreIfCarrying(const std::vector<StorageCredential>& credentials,
                               HttpResponse response) {
  if (!credentials.empty()) response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

// A commit's CommitTableResponse: no `config`.
HttpResponse CommitResponse(const catalog::LoadTableResult& table) {
  return JsonResponse(WriteLoadTable(table.metadata_location, *table.metadata_json, nullptr));
}

HttpResponse NoContent() {
  HttpResponse response;
  response.status = 204;
  return response;
}

// The roots of `metadata`'s table that vended credentials must reach, as
// prefixes of the files under them: without trailing '/', and a root inside
// another (a data path inside the location, say) left out.
std::vector<std::string> VendedPrefixes(const spec::TableMetadata& metadata) {
  std::vector<std::string> roots = catalog::TableRoots(metadata);
  for (std::string& root : roots) {
    while (root.size() > 1 && root.ends_with('/')) root.pop_back();
  }
  auto inside = [](const std::string& root, const std::string& other) {
    return root.starts_with(other) && (root.size() == other.size() || root[other.size()] == '/');
  };
  std::vector<std::string> prefixes;
  for (size_t i = 0; i < roots.size(); ++i) {
    bool covered = false;
    for (size_t j = 0; j < roots.size() && !covered; ++j) {
      // Of two equal roots, the first is kept.
      covered = j != i && inside(roots[i], roots[j]) && (roots[i] != roots[j] || j < i);
    }
    if (!covered) prefixes.push_back(roots[i]);
  }
  return prefixes;
}

// True if the client asked for vended credentials (the header lists the
// delegation modes it accepts).
bool WantsVendedCredentials(const HttpRequest& request) {
  for (const auto& mode : Split(request.Header("x-iceberg-access-delegation"), ',')) {
    if (StripWhitespace(mode) == "vended-credentials") return true;
  }
  return false;
}

// A strong validator for a table response: the metadata file is immutable,
// so its location plus the snapshots mode identifies the body.
std::string ETagFor(const std::string& metadata_location, std::string_view snapshots_mode) {
  XXH64_state_t* state = XXH64_createState();
  XXH64_reset(state, 0);
  XXH64_update(state, metadata_location.data(), metadata_location.size());
  XXH64_update(state, "|", 1);
  XXH64_update(state, snapshots_mode.data(), snapshots_mode.size());
  uint64_t hash = XXH64_digest(state);
  XXH64_freeState(state);
  char buf[24];
  std::snprintf(buf, sizeof(buf), "\"%016llx\"", static_cast<unsigned long long>(hash));
  return buf;
}

bool ETagMatches(std::string_view if_none_match, const std::string& etag) {
  if (if_none_match.empty()) return false;
  for (const auto& candidate : Split(if_none_match, ',')) {
    std::string_view tag = StripWhitespace(candidate);
    ConsumePrefix(&tag, "W/");
    if (tag == "*" || tag == etag) return true;
  }
  return false;
}

// Who made a request, as the commit log keeps it (the change feed's actor).
catalog::CommitOrigin OriginOf(const RouteCall& call) {
  return {call.principal.client_id, call.request.request_id};
}

Result<catalog::PageRequest> PageFrom(const RequestTarget& target) {
  catalog::PageRequest page;
  if (auto token = target.Query("pageToken")) page.page_token = std::string(*token);
  if (auto size = target.Query("pageSize"); size && !size->empty()) {
    auto parsed = ParseInt64(*size);
    if (!parsed || *parsed <= 0) return InvalidArgument("Invalid pageSize: ", *size);
    page.page_size = static_cast<size_t>(*parsed);
  }
  return page;
}

// The field ids of a request's stats-fields, resolved in the plan's schema.
Result<StatsFields> ResolveStatsFields(const spec::Schema& schema,
                                       const std::optional<std::vector<std::string>>& names,
                                       bool case_sensitive) {
  StatsFields ids;
  if (!names) return ids;
  for (const std::string& name : *names) {
    const spec::NestedField* field = schema.FindFieldByName(name, case_sensitive);
    if (field == nullptr) {
      return InvalidArgument("Invalid stats-fields: no column '", name, "' in the scan's schema");
    }
    ids.insert(field->id);
  }
  return ids;
}

// A service without OperationsEndpoints serves no health or metrics routes.
tl::unexpected<Error> NoOperations(const RouteCall& call) {
  return MakeError(ErrorKind::kNoSuchRoute, "No route for ", call.request.method, " ",
                   call.request.Path());
}

}  // namespace

CatalogService::CatalogService(std::shared_ptr<catalog::Catalog> catalog,
                               std::shared_ptr<Authenticator> auth, IdempotencyOptions idempotency,
                               StorageAccess storage, ScanPlanningOptions scan_planning,
                               std::shared_ptr<const OperationsEndpoints> operations)
    : catalog_(catalog),
      auth_(std::move(auth)),
      idempotency_(catalog, std::move(idempotency)),
      storage_(std::move(storage)),
      scan_planning_(std::move(scan_planning)),
      plans_(scan_planning_.store),
      operations_(std::move(operations)) {
  if (auto* embedded = dynamic_cast<catalog::EmbeddedCatalog*>(catalog_.get())) {
    metadata_cached_ = [embedded](const spec::TableIdentifier& identifier) {
      return embedded->HoldsCurrentMetadata(identifier);
    };
  } else {
    metadata_cached_ = [](const spec::TableIdentifier&) { return false; };
  }
  scan_planning_.tasks_per_response = std::max<size_t>(scan_planning_.tasks_per_response, 1);
  max_concurrent_plans_ = scan_planning_.max_concurrent_plans > 0
                              ? scan_planning_.max_concurrent_plans
                              : std::max<size_t>(2, std::thread::hardware_concurrency());
  plan_slots_ = std::make_unique<std::counting_semaphore<>>(
      static_cast<std::ptrdiff_t>(max_concurrent_plans_));
}

Result<std::vector<StorageCredential>> CatalogService::VendCredentials(
    const RouteCall& call, const spec::TableMetadata& metadata) {
  std::vector<StorageCredential> out;
  if (!storage_.vendor) return out;
  // One set of credentials for every root (PyIceberg uses one FileIO per
  // table), under each root's prefix for clients that pick by prefix.
  const std::vector<std::string> prefixes = VendedPrefixes(metadata);
  SKADE_ASSIGN_OR_RAISE(auto config, storage_.vendor(prefixes, call.principal.read_only));
  if (config.empty()) return out;
  for (const std::string& prefix : prefixes) out.push_back({prefix, config});
  return out;
}

Status CatalogService::CheckVendable(const RouteCall& call, const spec::TableMetadata& metadata) {
  if (!WantsVendedCredentials(call.request)) return OkStatus();
  SKADE_ASSIGN_OR_RAISE(auto credentials, VendCredentials(call, metadata));
  (void)credentials;
  return OkStatus();
}

Result<HttpResponse> CatalogService::TableResponse(const RouteCall& call,
                                                   const catalog::LoadTableResult& table,
                                                   std::string_view metadata_json) {
  TableConfig config;
  config.config = storage_.client_properties;
  if (WantsVendedCredentials(call.request)) {
    SKADE_ASSIGN_OR_RAISE(config.storage_credentials, VendCredentials(call, *table.metadata));
    // Clients before storage-credentials read them from `config`.
    for (const auto& credential : config.storage_credentials) {
      for (const auto& [key, value] : credential.config) config.config[key] = value;
    }
  }
  HttpResponse response = JsonResponse(
      WriteLoadTable(table.metadata_location,
                     metadata_json.empty() ? *table.metadata_json : metadata_json, &config));
  return NoStoreIfCarrying(config.storage_credentials, std::move(response));
}

Result<HttpResponse> CatalogService::LoadCredentials(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto table, catalog_->LoadTable(call.identifier));
  SKADE_ASSIGN_OR_RAISE(auto credentials, VendCredentials(call, *table.metadata));
  HttpResponse response = JsonResponse(WriteLoadCredentials(credentials));
  return NoStoreIfCarrying(credentials, std::move(response));
}

HttpResponse CatalogService::Handle(const HttpRequest& request) {
  std::string_view route;
  auto response = Dispatch(request, &route);
  // ErrorResponse also sets the answer's `error`, the cause the request log shows.
  HttpResponse answer = response ? std::move(*response) : ErrorResponse(response.error());
  answer.route = route;
  return answer;
}

HttpResponse CatalogService::NotAuthorized(const Error& error) {
  HttpResponse response = ErrorResponse(error);
  response.headers.emplace_back("WWW-Authenticate", "Bearer");
  return response;
}

std::optional<HttpResponse> CatalogService::RefuseBeforeBody(const HttpRequest& request) {
  if (!auth_->enabled()) return std::nullopt;
  auto target = ParseRequestTarget(request.target);
  if (!target) return std::nullopt;  // a 400 once the body is in
  const RouteMatch match = MatchRoute(request.method, target->segments);
  if (match.path_route != nullptr && IsPublic(*match.path_route)) return std::nullopt;
  auto principal = auth_->Authenticate(request);
  if (principal) return std::nullopt;
  return NotAuthorized(principal.error());
}

bool CatalogService::MayBlock(const HttpRequest& request) const {
  return RunsOnPool(request, WantsVendedCredentials(request), metadata_cached_);
}

Result<HttpResponse> CatalogService::Dispatch(const HttpRequest& request, std::string_view* route) {
  SKADE_ASSIGN_OR_RAISE(RequestTarget target, ParseRequestTarget(request.target));
  RouteCall call{request, std::move(target)};
  const RouteMatch match = MatchRoute(request.method, call.target.segments);
  // A path under a catalog prefix skade does not have answers no route.
  if (match.path_route != nullptr && !match.prefixed) {
    *route = (match.route != nullptr ? match.route : match.path_route)->pattern;
  }
  const bool is_public = match.path_route != nullptr && IsPublic(*match.path_route);
  if (!is_public) {
    auto principal = auth_->Authenticate(request);
    if (!principal) return NotAuthorized(principal.error());
    call.principal = std::move(*principal);
    if (call.principal.read_only && Writes(request.method, match)) {
      return MakeError(ErrorKind::kForbidden, "Client ", call.principal.client_id, " is read-only");
    }
  }
  if (match.path_route == nullptr || match.prefixed) {
    return MakeError(ErrorKind::kNoSuchRoute, "No route for ", request.method, " ", request.Path());
  }
  // Parameters are checked before the method, so a malformed name is a 400
  // whatever the method.
  SKADE_RETURN_NOT_OK(DecodeParameters(match, call));
  if (match.route == nullptr) {
    HttpResponse response = ErrorResponse(MakeError(ErrorKind::kMethodNotAllowed, "Method ",
                                                    request.method, " is not allowed on this route")
                                              .value());
    response.headers.emplace_back("Allow", AllowedMethods(*match.path_route));
    return response;
  }
  const RouteHandler handler = match.route->handler;
  if (match.route->access == RouteAccess::kWrite && idempotency_.enabled() &&
      HasIdempotencyKey(request)) {
    const bool with_config = handler != &CatalogService::CommitTable;
    return idempotency_.Run(
        call, [&](RouteCall& keyed) { return (this->*handler)(keyed); },
        [&](const catalog::LoadTableResult& table) -> Result<HttpResponse> {
          if (!with_config) return CommitResponse(table);
          return TableResponse(call, table);
        });
  }
  return (this->*handler)(call);
}

bool CatalogService::IsPublic(const Route& route) const {
  return route.access == RouteAccess::kPublic ||
         (route.access == RouteAccess::kMetrics && operations_ && operations_->metrics_public());
}

Result<HttpResponse> CatalogService::HealthLive(RouteCall& call) {
  if (!operations_) return NoOperations(call);
  return operations_->Live();
}

Result<HttpResponse> CatalogService::HealthReady(RouteCall& call) {
  if (!operations_) return NoOperations(call);
  // Public, so why a check failed (paths, endpoints) is for clients only.
  return operations_->Ready(auth_->Authenticate(call.request).has_value());
}

Result<HttpResponse> CatalogService::ScrapeMetrics(RouteCall& call) {
  if (!operations_) return NoOperations(call);
  return operations_->Metrics();
}

Result<HttpResponse> CatalogService::IssueToken(RouteCall& call) {
  return auth_->IssueToken(call.request);
}

Result<HttpResponse> CatalogService::Config(RouteCall&) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("defaults");
  writer.StartObject();
  for (const auto& [key, value] : storage_.client_properties) writer.Field(key, value);
  writer.EndObject();
  writer.Key("overrides");
  writer.StartObject();
  writer.EndObject();
  writer.Key("endpoints");
  writer.StartArray();
  for (const auto& endpoint : AdvertisedEndpoints()) writer.String(endpoint);
  writer.EndArray();
  // Its presence tells clients (Java 1.11+) to send Idempotency-Key.
  if (idempotency_.enabled()) {
    writer.Field("idempotency-key-lifetime", FormatIsoDuration(idempotency_.options().lifetime));
  }
  writer.EndObject();
  return JsonResponse(writer.Take());
}

Result<HttpResponse> CatalogService::ListNamespaces(RouteCall& call) {
  spec::Namespace parent;
  if (auto value = call.target.Query("parent"); value && !value->empty()) {
    SKADE_ASSIGN_OR_RAISE(parent, DecodeNamespaceParameter(*value));
  }
  SKADE_ASSIGN_OR_RAISE(auto page, PageFrom(call.target));
  SKADE_ASSIGN_OR_RAISE(auto result, catalog_->ListNamespaces(parent, page));
  return JsonResponse(WriteNamespaceList(result));
}

Result<HttpResponse> CatalogService::CreateNamespace(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto body, ParseCreateNamespace(call.request.body));
  SKADE_RETURN_NOT_OK(catalog_->CreateNamespace(body.ns, body.properties));
  return JsonResponse(WriteNamespace(body.ns, body.properties));
}

Result<HttpResponse> CatalogService::LoadNamespace(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto properties, catalog_->LoadNamespaceProperties(call.ns));
  return JsonResponse(WriteNamespace(call.ns, properties));
}

Result<HttpResponse> CatalogService::NamespaceExists(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(bool exists, catalog_->NamespaceExists(call.ns));
  if (!exists) return spec::NoSuchNamespace(call.ns);
  return NoContent();
}

Result<HttpResponse> CatalogService::DropNamespace(RouteCall& call) {
  SKADE_RETURN_NOT_OK(catalog_->DropNamespace(call.ns));
  return NoContent();
}

Result<HttpResponse> CatalogService::UpdateProperties(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto body, ParseUpdateProperties(call.request.body));
  for (const auto& key : body.removals) {
    if (body.updates.count(key) != 0) {
      return MakeError(ErrorKind::kUnprocessableEntity,
                       "Duplicate key to update and remove: ", key);
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto result,
                        catalog_->UpdateNamespaceProperties(call.ns, body.removals, body.updates));
  return JsonResponse(WriteUpdateProperties(result));
}

Result<HttpResponse> CatalogService::ListTables(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto page, PageFrom(call.target));
  SKADE_ASSIGN_OR_RAISE(auto result, catalog_->ListTables(call.ns, page));
  return JsonResponse(WriteTableList(result));
}

Result<HttpResponse> CatalogService::CreateTable(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto request, ParseCreateTable(call.request.body));
  if (!request.stage_create) request.idempotency = CommitIdempotency(call, 200);
  request.origin = OriginOf(call);
  if (!request.stage_create && storage_.vendor && WantsVendedCredentials(call.request)) {
    // The location the table will have, from a staged create (nothing
    // persisted; the same checks and errors as the create).
    catalog::CreateTableRequest staged = request;
    staged.stage_create = true;
    staged.idempotency.reset();
    SKADE_ASSIGN_OR_RAISE(auto planned, catalog_->CreateTable(call.ns, staged));
    SKADE_RETURN_NOT_OK(CheckVendable(call, *planned.metadata));
  }
  SKADE_ASSIGN_OR_RAISE(auto created, catalog_->CreateTable(call.ns, request));
  NoteTableAnswer(call, {call.ns, request.name}, created);
  return TableResponse(call, created);
}

Result<HttpResponse> CatalogService::RegisterTable(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto body, ParseRegister(call.request.body));
  const spec::TableIdentifier identifier{call.ns, body.name};
  if (storage_.vendor && WantsVendedCredentials(call.request)) {
    // The file names the location. One that cannot be read here is left to
    // RegisterTable to refuse, with its own error.
    auto adopted = catalog_->LoadTableFromMetadata(identifier, body.metadata_location);
    if (adopted && adopted->metadata_location == body.metadata_location) {
      SKADE_RETURN_NOT_OK(CheckVendable(call, *adopted->metadata));
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto registered, catalog_->RegisterTable(identifier, body.metadata_location,
                                                                 body.overwrite, OriginOf(call)));
  NoteTableAnswer(call, identifier, registered);
  return TableResponse(call, registered);
}

Result<HttpResponse> CatalogService::LoadTable(RouteCall& call) {
  std::string_view mode = call.target.Query("snapshots").value_or("all");
  if (mode != "all" && mode != "refs") {
    return InvalidArgument("Invalid snapshots mode: '", mode, "' (expected all or refs)");
  }
  SKADE_ASSIGN_OR_RAISE(auto table, catalog_->LoadTable(call.identifier));
  std::string etag = ETagFor(table.metadata_location, mode);
  if (ETagMatches(call.request.Header("if-none-match"), etag)) {
    HttpResponse not_modified;
    not_modified.status = 304;
    not_modified.headers.emplace_back("ETag", etag);
    return not_modified;
  }
  HttpResponse response;
  if (mode == "refs") {
    // Built once per metadata file and kept with the cached metadata.
    auto filtered = spec::ReferencedSnapshotsJson(*table.metadata);
    SKADE_ASSIGN_OR_RAISE(response, TableResponse(call, table, *filtered));
  } else {
    SKADE_ASSIGN_OR_RAISE(response, TableResponse(call, table));
  }
  response.headers.emplace_back("ETag", std::move(etag));
  return response;
}

Result<HttpResponse> CatalogService::TableExists(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(call.identifier));
  if (!exists) return spec::NoSuchTable(call.identifier);
  return NoContent();
}

Result<HttpResponse> CatalogService::CommitTable(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto request, ParseCommitTable(call.request.body, call.identifier));
  request.idempotency = CommitIdempotency(call, 200);
  request.origin = OriginOf(call);
  SKADE_ASSIGN_OR_RAISE(auto committed, catalog_->CommitTable(request));
  NoteTableAnswer(call, request.identifier, committed);
  return CommitResponse(committed);
}

Result<HttpResponse> CatalogService::DropTable(RouteCall& call) {
  bool purge = false;
  if (auto value = call.target.Query("purgeRequested")) {
    SKADE_ASSIGN_OR_RAISE(purge, ParseBooleanParameter("purgeRequested", *value));
  }
  SKADE_RETURN_NOT_OK(catalog_->DropTable(call.identifier, purge));
  return NoContent();
}

Result<HttpResponse> CatalogService::ReportMetrics(RouteCall& call) {
  SKADE_RETURN_NOT_OK(ValidateMetricsReport(call.request.body));
  return TableExists(call);
}

Result<HttpResponse> CatalogService::RenameTable(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto body, ParseRename(call.request.body));
  SKADE_RETURN_NOT_OK(catalog_->RenameTable(body.source, body.destination));
  return NoContent();
}

Result<HttpResponse> CatalogService::CommitTransaction(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto requests, ParseCommitTransaction(call.request.body));
  // Every table's part carries the record; the one store transaction writes it once.
  for (auto& request : requests) {
    request.idempotency = CommitIdempotency(call, 204);
    request.origin = OriginOf(call);
  }
  SKADE_RETURN_NOT_OK(catalog_->CommitTransaction(requests));
  return NoContent();
}

Result<HttpResponse> CatalogService::PlanTableScan(RouteCall& call) {
  if (!scan_planning_.io || !scan_planning_.file_policy) {
    return MakeError(ErrorKind::kUnsupported, "Server-side scan planning is not configured");
  }
  // Bounded at once, the body's parse included, as each is in memory: a
  // plan waits a moment for a slot (most take milliseconds), then is told
  // to come back.
  if (!plan_slots_->try_acquire_for(scan_planning_.plan_slot_wait)) {
    return ErrorResponse(MakeError(ErrorKind::kCancelled, "The server is making ",
                                   max_concurrent_plans_, " scan plans already; retry shortly")
                             .value());
  }
  struct Release {
    std::counting_semaphore<>& slots;
    ~Release() { slots.release(); }
  } release{*plan_slots_};
  SKADE_ASSIGN_OR_RAISE(auto body, ParsePlanTableScan(call.request.body));
  // Every manifest path in the metadata was written by a client, and so is
  // how many files they list: a plan holds no more than the plan store.
  body.options.file_policy = scan_planning_.file_policy.get();
  body.options.max_task_bytes = scan_planning_.store.max_bytes;
  SKADE_ASSIGN_OR_RAISE(scan::ScanPlan plan,
                        scan::PlanTableScan(*catalog_, call.identifier, *scan_planning_.io,
                                            body.options, scan_planning_.manifest_cache.get()));
  if (!plan.schema || !plan.metadata) return InternalError("The scan plan has no schema");
  SKADE_ASSIGN_OR_RAISE(StatsFields stats, ResolveStatsFields(*plan.schema, body.stats_fields,
                                                              body.options.case_sensitive));
  std::vector<StorageCredential> credentials;
  if (WantsVendedCredentials(call.request)) {
    SKADE_ASSIGN_OR_RAISE(credentials, VendCredentials(call, *plan.metadata));
  }
  SKADE_RETURN_NOT_OK(CheckResidualBytes(plan, scan_planning_.store.max_bytes));
  const size_t page_size = scan_planning_.tasks_per_response;
  if (plan.tasks.size() <= page_size) {
    // Nothing is held: fetching or cancelling this id is 404, as for a plan
    // whose pages were all fetched.
    SKADE_ASSIGN_OR_RAISE(std::string plan_id, ScanPlanStore::NewPlanId());
    HttpResponse response = JsonResponse(WriteCompletedPlan(plan_id, plan, stats, credentials));
    return NoStoreIfCarrying(credentials, std::move(response));
  }
  // Serialized now, on the pool thread that planned, so each fetch is a lookup.
  std::vector<std::string> pages;
  const std::span<const scan::FileScanTask> tasks(plan.tasks);
  for (size_t begin = 0; begin < tasks.size(); begin += page_size) {
    pages.push_back(WriteScanTasksPage(
        plan, tasks.subspan(begin, std::min(page_size, tasks.size() - begin)), stats));
  }
  SKADE_ASSIGN_OR_RAISE(auto stored,
                        plans_.Add({call.identifier, plan.metadata->table_uuid}, std::move(pages)));
  HttpResponse response =
      JsonResponse(WritePlanTasks(stored.plan_id, stored.plan_tasks, credentials));
  return NoStoreIfCarrying(credentials, std::move(response));
}

Result<PlanOwner> CatalogService::CurrentPlanOwner(const RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto table, catalog_->LoadTable(call.identifier));
  return PlanOwner(call.identifier, table.metadata->table_uuid);
}

Result<HttpResponse> CatalogService::FetchPlanningResult(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(PlanOwner owner, CurrentPlanOwner(call));
  SKADE_ASSIGN_OR_RAISE(auto pending, plans_.PendingPlanTasks(owner, call.plan_id));
  return JsonResponse(WritePlanTasks({}, pending, {}));
}

Result<HttpResponse> CatalogService::CancelPlanning(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(PlanOwner owner, CurrentPlanOwner(call));
  SKADE_RETURN_NOT_OK(plans_.Cancel(owner, call.plan_id));
  return NoContent();
}

Result<HttpResponse> CatalogService::FetchScanTasks(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(std::string plan_task, ParseFetchScanTasks(call.request.body));
  SKADE_ASSIGN_OR_RAISE(PlanOwner owner, CurrentPlanOwner(call));
  SKADE_ASSIGN_OR_RAISE(auto page, plans_.FetchPage(owner, plan_task));
  return JsonResponse(*page);
}

Result<HttpResponse> CatalogService::LoadTableAtSnapshot(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto table, catalog_->LoadTableAt(call.identifier, call.snapshot_id));
  return TableResponse(call, table);
}

Result<HttpResponse> CatalogService::LoadTableAsOf(RouteCall& call) {
  auto value = call.target.Query("timestamp-ms");
  if (!value) return InvalidArgument("Missing query parameter: timestamp-ms");
  SKADE_ASSIGN_OR_RAISE(int64_t timestamp_ms,
                        ParseNonNegativeLongParameter("timestamp-ms", *value));
  SKADE_ASSIGN_OR_RAISE(auto table, catalog_->LoadTableAsOf(call.identifier, timestamp_ms));
  return TableResponse(call, table);
}

Result<HttpResponse> CatalogService::TableHistory(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto request, PageFrom(call.target));
  // The token is the commit sequence number of the previous page's last commit.
  uint64_t after = 0;
  if (!request.page_token.empty()) {
    SKADE_ASSIGN_OR_RAISE(after, ParseNonNegativeLongParameter("pageToken", request.page_token));
  }
  const size_t limit = request.page_size == 0 ? kMaxHistoryPageSize
                                              : std::min(request.page_size, kMaxHistoryPageSize);
  // One more than the page, so the last page carries no token.
  SKADE_ASSIGN_OR_RAISE(auto commits, catalog_->TableHistory(call.identifier, after, limit + 1));
  catalog::Page<catalog::TableCommit> page;
  if (commits.size() > limit) {
    commits.resize(limit);
    page.next_page_token = std::to_string(commits.back().commit_seq);
  }
  page.items = std::move(commits);
  return JsonResponse(WriteTableHistory(page));
}

Result<HttpResponse> CatalogService::ReadChanges(RouteCall& call) {
  // A position is `since`, or the previous page's next-page-token (the
  // same position, for clients that page the events proposal's way).
  std::optional<catalog::ChangePosition> since;
  for (const std::string name : {"since", "pageToken"}) {
    auto value = call.target.Query(name);
    if (!value || value->empty()) continue;
    SKADE_ASSIGN_OR_RAISE(auto position, catalog::ChangePosition::Parse(name, *value));
    if (since && (since->seq != position.seq ||
                  (since->check && position.check && since->check != position.check))) {
      return InvalidArgument("since=", since->ToString(), " and pageToken=", position.ToString(),
                             " name different positions: send one");
    }
    if (!since || position.check) since = position;
  }
  size_t limit = kDefaultChangesPageSize;
  if (auto value = call.target.Query("pageSize"); value && !value->empty()) {
    auto parsed = ParseInt64(*value);
    if (!parsed || *parsed <= 0) return InvalidArgument("Invalid pageSize: ", *value);
    limit = std::min(static_cast<size_t>(*parsed), kMaxChangesPageSize);
  }
  const catalog::ChangePosition from = since.value_or(catalog::ChangePosition{});
  SKADE_ASSIGN_OR_RAISE(auto page, catalog_->ReadChanges(from, limit));
  return JsonResponse(WriteChangePage(page, from, page.commits.size() == limit));
}

Result<HttpResponse> CatalogService::ResolveSnapshots(RouteCall& call) {
  SKADE_ASSIGN_OR_RAISE(auto keys, ParseResolveSnapshots(call.request.body));
  const std::span<const catalog::SnapshotKey> all(keys);
  const auto resolved = all.first(std::min(all.size(), kMaxResolveSnapshots));
  SKADE_ASSIGN_OR_RAISE(auto locations, catalog_->ResolveMany(resolved));
  if (locations.size() != resolved.size()) {
    return InternalError("ResolveMany answered ", locations.size(), " of ", resolved.size(),
                         " snapshots");
  }
  return JsonResponse(WriteResolveSnapshots(resolved, locations, all.subspan(resolved.size())));
}

}  // namespace skade::rest
