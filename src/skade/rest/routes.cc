#include "skade/rest/routes.h"

#include <algorithm>

#include "skade/rest/catalog_service.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

constexpr std::string_view kPrefix = "{prefix}";
constexpr std::string_view kPrefixedRoot = "v1/{prefix}/";

bool IsParameter(std::string_view part) {
  return part.size() > 2 && part.front() == '{' && part.back() == '}';
}

// A route with its pattern split once, so matching allocates nothing per row.
struct CompiledRoute {
  const Route* route;
  std::vector<std::string> parts;
  bool has_prefix;
};

const std::vector<CompiledRoute>& Compiled() {
  static const std::vector<CompiledRoute> kCompiled = [] {
    std::vector<CompiledRoute> out;
    for (const Route& route : Routes()) {
      std::vector<std::string> parts = Split(route.pattern, '/');
      bool has_prefix = std::find(parts.begin(), parts.end(), kPrefix) != parts.end();
      out.push_back({&route, std::move(parts), has_prefix});
    }
    return out;
  }();
  return kCompiled;
}

// Binds `segments` to `parts`, skipping `{prefix}` unless `with_prefix`.
bool Bind(const std::vector<std::string>& parts, bool with_prefix,
          const std::vector<std::string>& segments, RouteMatch& match) {
  match.parameters.clear();
  size_t i = 0;
  for (const std::string& part : parts) {
    if (part == kPrefix && !with_prefix) continue;
    if (i == segments.size()) return false;
    if (IsParameter(part)) {
      std::string_view name(part);
      match.parameters.emplace_back(name.substr(1, name.size() - 2), segments[i]);
    } else if (part != segments[i]) {
      return false;
    }
    ++i;
  }
  return i == segments.size();
}

// The route with `path_route`'s pattern and `method`, or null.
const Route* RouteFor(std::string_view method, const Route& path_route) {
  for (const Route& route : Routes()) {
    if (route.pattern == path_route.pattern && route.method == method) return &route;
  }
  return nullptr;
}

}  // namespace

std::span<const Route> Routes() {
  using S = CatalogService;
  using enum RouteAccess;
  static constexpr Route kRoutes[] = {
      {"GET", "v1/{prefix}/namespaces", &S::ListNamespaces, kRead},
      {"POST", "v1/{prefix}/namespaces", &S::CreateNamespace, kWrite},
      {"GET", "v1/{prefix}/namespaces/{namespace}", &S::LoadNamespace, kRead},
      {"HEAD", "v1/{prefix}/namespaces/{namespace}", &S::NamespaceExists, kRead},
      {"DELETE", "v1/{prefix}/namespaces/{namespace}", &S::DropNamespace, kWrite},
      {"POST", "v1/{prefix}/namespaces/{namespace}/properties", &S::UpdateProperties, kWrite},
      {"GET", "v1/{prefix}/namespaces/{namespace}/tables", &S::ListTables, kRead},
      {"POST", "v1/{prefix}/namespaces/{namespace}/tables", &S::CreateTable, kWrite, false, true},
      // Served from the metadata cache on the I/O thread, unless it vends
      // or the cache does not hold the table (loads_table: then on the pool,
      // as the metadata file is read, perhaps from a stalled object store).
      {"GET", "v1/{prefix}/namespaces/{namespace}/tables/{table}", &S::LoadTable, kRead, false,
       true, true},
      {"HEAD", "v1/{prefix}/namespaces/{namespace}/tables/{table}", &S::TableExists, kRead},
      {"POST", "v1/{prefix}/namespaces/{namespace}/tables/{table}", &S::CommitTable, kWrite},
      {"DELETE", "v1/{prefix}/namespaces/{namespace}/tables/{table}", &S::DropTable, kWrite},
      {"POST", "v1/{prefix}/namespaces/{namespace}/register", &S::RegisterTable, kWrite, false,
       true},
      // A client reporting scan and commit statistics changes nothing.
      {"POST", "v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics", &S::ReportMetrics,
       kRead},
      // Always vends (STS may take seconds, or stall): on the pool.
      {"GET", "v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials", &S::LoadCredentials,
       kRead, true},
      // Server-side scan planning. Planning reads the snapshot's manifest
      // list and manifests (from S3, or many of them on a large table) and
      // can take seconds: on the handler pool, whose bounded queue answers
      // an overload with 503 + Retry-After, rather than on an I/O thread
      // whose other connections' reads would wait behind it. Fetching a
      // held plan's pages and cancelling are lookups in memory, after a
      // check of the table's current metadata (loads_table).
      {"POST", "v1/{prefix}/namespaces/{namespace}/tables/{table}/plan", &S::PlanTableScan, kRead,
       true},
      {"GET", "v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
       &S::FetchPlanningResult, kRead, false, false, true},
      {"DELETE", "v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
       &S::CancelPlanning, kRead, false, false, true},
      {"POST", "v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks", &S::FetchScanTasks, kRead,
       false, false, true},
      {"POST", "v1/{prefix}/tables/rename", &S::RenameTable, kWrite},
      {"POST", "v1/{prefix}/transactions/commit", &S::CommitTransaction, kWrite},
      // skade's time-travel extension (not in the Iceberg spec), under its
      // own `skade/` segment so it can never collide with a spec route. On
      // the pool: a past version's metadata file is read and parsed (it may
      // be large and is seldom cached). The only safe-method rows that block
      // (RunsOnPool relies on that).
      {"GET", "v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/snapshots/{snapshot-id}",
       &S::LoadTableAtSnapshot, kRead, true},
      {"GET", "v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/as-of", &S::LoadTableAsOf,
       kRead, true},
      {"GET", "v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/history", &S::TableHistory,
       kRead},
      // A batched read: POST only to carry the keys in the body. On the
      // pool: a key the commit log does not hold reads its table's current
      // metadata, which may be a large file no cache keeps.
      {"POST", "v1/{prefix}/skade/resolve", &S::ResolveSnapshots, kRead, true},
      // The change feed: every commit since a commit sequence number.
      {"GET", "v1/{prefix}/skade/changes", &S::ReadChanges, kRead},
      {"GET", "v1/config", &S::Config, kRead},
      {"POST", "v1/oauth/tokens", &S::IssueToken, kPublic},
      // For operators, outside /v1 (so never advertised) and outside
      // authentication: probes and scrapers carry no token
      // (operations_endpoints.h).
      {"GET", "health/live", &S::HealthLive, kPublic},
      {"GET", "health/ready", &S::HealthReady, kPublic},
      {"GET", "metrics", &S::ScrapeMetrics, kMetrics},
  };
  return kRoutes;
}

const std::vector<std::string>& AdvertisedEndpoints() {
  static const std::vector<std::string> kEndpoints = [] {
    std::vector<std::string> out;
    for (const Route& route : Routes()) {
      if (route.pattern.starts_with(kPrefixedRoot)) {
        out.push_back(StrCat(route.method, " /", route.pattern));
      }
    }
    return out;
  }();
  return kEndpoints;
}

RouteMatch MatchRoute(std::string_view method, const std::vector<std::string>& segments) {
  for (bool with_prefix : {false, true}) {
    RouteMatch match;
    match.prefixed = with_prefix;
    for (const CompiledRoute& compiled : Compiled()) {
      if (with_prefix && !compiled.has_prefix) continue;
      if (match.path_route != nullptr) {
        // The parameters are already bound; only the method is left to find.
        if (compiled.route->pattern == match.path_route->pattern &&
            compiled.route->method == method) {
          match.route = compiled.route;
        }
        continue;
      }
      if (!Bind(compiled.parts, with_prefix, segments, match)) continue;
      match.path_route = compiled.route;
      if (compiled.route->method == method) match.route = compiled.route;
    }
    if (match.path_route != nullptr) {
      // HEAD is GET without the body (RFC 9110 9.3.2) where no route of its
      // own answers it.
      if (match.route == nullptr && method == "HEAD")
        match.route = RouteFor("GET", *match.path_route);
      return match;
    }
  }
  return {};
}

std::string AllowedMethods(const Route& path_route) {
  std::vector<std::string> methods;
  for (const Route& route : Routes()) {
    if (route.pattern == path_route.pattern) methods.emplace_back(route.method);
  }
  if (RouteFor("GET", path_route) != nullptr && RouteFor("HEAD", path_route) == nullptr) {
    methods.emplace_back("HEAD");
  }
  return Join(methods, ", ");
}

Status DecodeParameters(const RouteMatch& match, RouteCall& call) {
  for (const auto& [name, raw] : match.parameters) {
    if (name == "namespace") {
      SKADE_ASSIGN_OR_RAISE(call.ns, DecodeNamespaceSegment(raw));
      call.identifier.ns = call.ns;
    } else if (name == "table") {
      SKADE_ASSIGN_OR_RAISE(call.identifier.name, PercentDecode(raw, true));
      SKADE_RETURN_NOT_OK(spec::ValidateName(call.identifier.name, "table name"));
    } else if (name == "snapshot-id") {
      SKADE_ASSIGN_OR_RAISE(std::string decoded, PercentDecode(raw, false));
      SKADE_ASSIGN_OR_RAISE(call.snapshot_id, ParseLongParameter("snapshot id", decoded));
    } else if (name == "plan-id") {
      SKADE_ASSIGN_OR_RAISE(call.plan_id, PercentDecode(raw, false));
    } else if (name != "prefix") {
      return InternalError("Route parameter {", name, "} has no decoder");
    }
  }
  return OkStatus();
}

bool Writes(std::string_view method, const RouteMatch& match) {
  if (match.route != nullptr) return match.route->access == RouteAccess::kWrite;
  return !IsSafeMethod(method);
}

bool Blocks(std::string_view method, const RouteMatch& match) {
  return Writes(method, match) || (match.route != nullptr && match.route->blocks);
}

bool LoadsUncachedTable(const RouteMatch& match, const MetadataCachedQuery& cached) {
  // A prefixed path is answered 404 without loading anything.
  if (match.route == nullptr || !match.route->loads_table || match.prefixed) return false;
  static const HttpRequest kNoRequest;
  RouteCall call{kNoRequest, {}};
  if (!DecodeParameters(match, call)) return false;
  return !cached(call.identifier);
}

bool RunsOnPool(const HttpRequest& request, bool vending, const MetadataCachedQuery& cached) {
  // No route with a safe method writes; only time-travel reads under a
  // `skade/` segment, loadCredentials, vending reads and table loads block
  // (routes_test checks every row): other safe requests — the health and
  // config endpoints, listings, the change feed — are not parsed twice
  // (route segments match as they are sent: `%73kade` is no `skade`).
  const std::string_view target = request.target;
  if (IsSafeMethod(request.method) && !vending && target.find("/skade/") == target.npos &&
      target.find("/credentials") == target.npos && target.find("/tables/") == target.npos) {
    return false;
  }
  auto parsed = ParseRequestTarget(request.target);
  if (!parsed) return false;
  const RouteMatch match = MatchRoute(request.method, parsed->segments);
  return Blocks(request.method, match) || (vending && match.route && match.route->vends) ||
         LoadsUncachedTable(match, cached);
}

}  // namespace skade::rest
