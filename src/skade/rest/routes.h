// The REST route table: every route skade serves, with its method, path
// pattern, handler and whether it writes. Routing (including 404 versus 405),
// the `endpoints` that GET /v1/config advertises and the read-only check all
// derive from it, so adding a route is one row in routes.cc plus a handler.
// The table is immutable; everything here is thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/catalog/catalog.h"
#include "skade/rest/authenticator.h"
#include "skade/rest/http/http_message.h"
#include "skade/rest/request_target.h"
#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::rest {

class CatalogService;

/// One request on its way through a route: what the handler reads.
struct RouteCall {
  const HttpRequest& request;
  RequestTarget target;
  Principal principal;               // empty for public routes
  spec::Namespace ns;                // the {namespace} parameter, decoded
  spec::TableIdentifier identifier;  // {namespace} and {table}, decoded and validated
  int64_t snapshot_id = 0;           // {snapshot-id}, decoded and validated (non-negative)
  std::string plan_id;               // {plan-id}, decoded
  /// With an Idempotency-Key: the record of this call's answer, which the
  /// handler completes (idempotency.h: CommitIdempotency, NoteTableAnswer).
  /// Null otherwise.
  catalog::IdempotencyRecord* idempotency = nullptr;
  /// Cleared by a handler whose answer is not kept for a replay of its
  /// Idempotency-Key (NoteTableAnswer: a staged table's), so a retry runs it
  /// again.
  bool keep_answer = true;
};

using RouteHandler = Result<HttpResponse> (CatalogService::*)(RouteCall&);

enum class RouteAccess {
  kRead,    // read-only clients may call it
  kWrite,   // read-only clients get 403
  kPublic,  // answered before authentication (the OAuth token endpoint, health)
  // GET /metrics: answered before authentication unless the server asks for
  // a token there (--metrics-auth token; OperationsEndpoints); never writes.
  kMetrics,
};

struct Route {
  std::string_view method;
  /// Path segments after the leading '/', as the OpenAPI document writes
  /// them; `{name}` is a parameter. `{prefix}` is the spec's optional catalog
  /// prefix: skade's config names none, so a request that binds one matches
  /// (it counts for the read-only check) but is answered 404. The routes
  /// under a prefix are exactly the advertised ones.
  std::string_view pattern;
  RouteHandler handler;
  RouteAccess access;
  /// Runs on the server's handler pool though it does not write (as every
  /// kWrite route does): work that may take long, which must not hold up
  /// the I/O thread's other requests.
  bool blocks = false;
  /// Vends credentials when the client asks for them (X-Iceberg-Access-
  /// Delegation: vended-credentials), which may wait on STS: such a request
  /// runs on the handler pool; without the header it stays where `blocks`
  /// and `access` put it (loadTable of a cached table, the hot path, on the
  /// I/O thread).
  bool vends = false;
  /// Reads the table's current metadata (loadTable; the held plan's routes,
  /// which check the plan's table). A hit in the catalog's metadata cache
  /// is answered on the I/O thread (the hot path); a miss reads the metadata
  /// file, from an object store that may stall for as long as its timeout,
  /// so such a request runs on the handler pool (LoadsUncachedTable) and the
  /// I/O thread keeps answering the others — /health/live among them.
  bool loads_table = false;
};

/// Every route, in the order GET /v1/config lists them.
std::span<const Route> Routes();

/// The `endpoints` GET /v1/config advertises, "METHOD /v1/{prefix}/…", one
/// per route under the catalog prefix, in table order.
const std::vector<std::string>& AdvertisedEndpoints();

struct RouteMatch {
  /// The route for the path and the method; null if none.
  const Route* route = nullptr;
  /// A route with the path, for any method; null if no route has the path
  /// (404). With `route` null but this set, the answer is 405.
  const Route* path_route = nullptr;
  /// The path binds `{prefix}`.
  bool prefixed = false;
  /// (parameter name without braces, raw segment), in path order.
  std::vector<std::pair<std::string_view, std::string_view>> parameters;
};

/// Matches a request's raw path segments, first without a prefix and then
/// with one. The views in `parameters` point into `segments`. HEAD matches
/// the GET route of a path that has no HEAD route.
RouteMatch MatchRoute(std::string_view method, const std::vector<std::string>& segments);

/// The methods that routes with `path_route`'s path answer, as a 405's
/// `Allow` header lists them ("GET, HEAD, POST"); HEAD wherever GET is.
std::string AllowedMethods(const Route& path_route);

/// Decodes the matched parameters into `call`: `{namespace}` as a namespace
/// segment, `{table}` as a valid table name, `{snapshot-id}` as a long,
/// `{plan-id}` percent-decoded. kInvalidArgument if
/// malformed.
Status DecodeParameters(const RouteMatch& match, RouteCall& call);

/// Whether `method` on a request that matched `match` writes: the route's
/// access if the method has one, else any method that is not safe
/// (IsSafeMethod; so PUT or PATCH are refused to read-only clients even where
/// no route serves them).
bool Writes(std::string_view method, const RouteMatch& match);

/// Whether a request that matched `match` runs on the handler pool: it
/// writes (Writes), or its route blocks.
bool Blocks(std::string_view method, const RouteMatch& match);

/// Whether the catalog's metadata cache holds a table's current metadata
/// (EmbeddedCatalog::HoldsCurrentMetadata): a lock-free lookup that reads no
/// file. Must be thread-safe.
using MetadataCachedQuery = std::function<bool(const spec::TableIdentifier& identifier)>;

/// Whether a request that matched `match` must leave the I/O thread because
/// its route `loads_table` and `cached` says the table's current metadata is
/// not in the cache (or the table is unknown). False for other routes and
/// for parameters that do not decode (the handler answers 400 at once).
/// Decided before the handler runs, so the answer is a hint: a table evicted
/// meanwhile is read on the I/O thread after all, bounded by the S3 client's
/// operation timeout (s3_config.h). Thread-safe.
bool LoadsUncachedTable(const RouteMatch& match, const MetadataCachedQuery& cached);

/// Whether `request` runs on the handler pool rather than on the I/O thread
/// that read it (CatalogService::MayBlock, the HttpServer's may_block): it
/// writes or its route blocks (Blocks); it asks for vended credentials
/// (`vending`, X-Iceberg-Access-Delegation) on a route that vends (STS may
/// stall); or it loads a table whose current metadata is not cached
/// (LoadsUncachedTable). False for a target that does not parse (a 400 from
/// memory). A safe method's target is parsed only where one of these can
/// hold (`skade/`, `/credentials`, `/tables/`, or vending); a loadTable of a
/// cached table, the hot path, then costs one match and one cache lookup
/// more than its handler's, and no hop. Thread-safe if `cached` is.
bool RunsOnPool(const HttpRequest& request, bool vending, const MetadataCachedQuery& cached);

}  // namespace skade::rest
