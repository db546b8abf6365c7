#include "skade/rest/catalog_service.h"

#include <xxhash.h>

#include "skade/rest/error_response.h"
#include "skade/rest/request_target.h"
#include "skade/rest/rest_messages.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/util/json_writer.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

HttpResponse JsonResponse(std::string body, int status = 200) {
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = std::move(body);
  return response;
}

HttpResponse NoContent() {
  HttpResponse response;
  response.status = 204;
  return response;
}

HttpResponse MethodNotAllowed(const HttpRequest& request) {
  return ErrorResponse(405, "MethodNotAllowedException",
                       StrCat("Method ", request.method, " is not allowed on this route"));
}

HttpResponse NoRoute(const HttpRequest& request) {
  std::string path = request.target.substr(0, request.target.find('?'));
  return ErrorResponse(404, "NoSuchRouteException",
                       StrCat("No route for ", request.method, " ", path));
}

// Anything but a read is a write, so a method the router does not serve
// (PUT, PATCH) is still refused to a read-only client.
bool IsWrite(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// POST /v1[/{prefix}]/namespaces/{namespace}/tables/{table}/metrics: a client
// reporting scan and commit statistics changes nothing, so read-only clients
// may send it.
bool IsReportMetrics(const std::string& method, const std::vector<std::string>& segments) {
  if (method != "POST" || (segments.size() != 6 && segments.size() != 7)) return false;
  const size_t base = segments.size() - 5;  // index of "namespaces", after "v1" and any prefix
  return segments[0] == "v1" && segments[base] == "namespaces" && segments[base + 2] == "tables" &&
         segments[base + 4] == "metrics";
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

// The metadata restricted to snapshots that a branch or tag references
// (`snapshots=refs`).
spec::TableMetadata OnlyReferencedSnapshots(const spec::TableMetadata& metadata) {
  spec::TableMetadata copy = metadata;
  std::vector<spec::SnapshotPtr> kept;
  for (const auto& snapshot : metadata.snapshots) {
    for (const auto& [name, ref] : metadata.refs) {
      if (ref.snapshot_id == snapshot->snapshot_id) {
        kept.push_back(snapshot);
        break;
      }
    }
  }
  copy.snapshots = std::move(kept);
  copy.Finalize();
  return copy;
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

}  // namespace

struct CatalogService::Call {
  const HttpRequest& request;
  RequestTarget target;
  Principal principal;
};

CatalogService::CatalogService(std::shared_ptr<catalog::Catalog> catalog,
                               std::shared_ptr<Authenticator> auth)
    : catalog_(std::move(catalog)), auth_(std::move(auth)) {}

const std::vector<std::string>& CatalogService::Endpoints() {
  static const std::vector<std::string> kEndpoints = {
      "GET /v1/{prefix}/namespaces",
      "POST /v1/{prefix}/namespaces",
      "GET /v1/{prefix}/namespaces/{namespace}",
      "HEAD /v1/{prefix}/namespaces/{namespace}",
      "DELETE /v1/{prefix}/namespaces/{namespace}",
      "POST /v1/{prefix}/namespaces/{namespace}/properties",
      "GET /v1/{prefix}/namespaces/{namespace}/tables",
      "POST /v1/{prefix}/namespaces/{namespace}/tables",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/register",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
      "POST /v1/{prefix}/tables/rename",
      "POST /v1/{prefix}/transactions/commit",
  };
  return kEndpoints;
}

HttpResponse CatalogService::Handle(const HttpRequest& request) {
  auto target = ParseRequestTarget(request.target);
  if (!target) return ErrorResponse(target.error());
  Call call{request, std::move(*target), {}};
  const auto& segments = call.target.segments;
  bool is_token_route = segments.size() == 3 && segments[0] == "v1" && segments[1] == "oauth" &&
                        segments[2] == "tokens";
  if (is_token_route) {
    if (request.method != "POST") return MethodNotAllowed(request);
    return auth_->IssueToken(request);
  }
  auto principal = auth_->Authenticate(request);
  if (!principal) {
    HttpResponse response = ErrorResponse(principal.error());
    response.headers.emplace_back("WWW-Authenticate", "Bearer");
    return response;
  }
  call.principal = *principal;
  if (call.principal.read_only && IsWrite(request.method) &&
      !IsReportMetrics(request.method, segments)) {
    return ErrorResponse(403, "ForbiddenException",
                         StrCat("Client ", call.principal.client_id, " is read-only"));
  }
  return Route(call);
}

HttpResponse CatalogService::Route(Call& call) {
  const auto& s = call.target.segments;
  const std::string& method = call.request.method;
  if (s.empty() || s[0] != "v1") return NoRoute(call.request);
  if (s.size() == 2 && s[1] == "config") {
    return method == "GET" ? Config(call) : MethodNotAllowed(call.request);
  }
  if (s.size() == 3 && s[1] == "tables" && s[2] == "rename") {
    return method == "POST" ? RenameTable(call) : MethodNotAllowed(call.request);
  }
  if (s.size() == 3 && s[1] == "transactions" && s[2] == "commit") {
    return method == "POST" ? CommitTransaction(call) : MethodNotAllowed(call.request);
  }
  if (s.size() < 2 || s[1] != "namespaces") return NoRoute(call.request);
  if (s.size() == 2) {
    if (method == "GET") return ListNamespaces(call);
    if (method == "POST") return CreateNamespace(call);
    return MethodNotAllowed(call.request);
  }
  auto ns = DecodeNamespaceSegment(s[2]);
  if (!ns) return ErrorResponse(ns.error());
  if (s.size() == 3) return Namespace(call, *ns);
  if (s.size() == 4 && s[3] == "properties") {
    return method == "POST" ? UpdateProperties(call, *ns) : MethodNotAllowed(call.request);
  }
  if (s.size() == 4 && s[3] == "register") {
    return method == "POST" ? RegisterTable(call, *ns) : MethodNotAllowed(call.request);
  }
  if (s.size() == 4 && s[3] == "tables") {
    if (method == "GET") return ListTables(call, *ns);
    if (method == "POST") return CreateTable(call, *ns);
    return MethodNotAllowed(call.request);
  }
  if (s[3] != "tables" || s.size() > 6) return NoRoute(call.request);
  auto name = PercentDecode(s[4], true);
  if (!name) return ErrorResponse(name.error());
  spec::TableIdentifier identifier{std::move(*ns), std::move(*name)};
  if (auto valid = spec::ValidateName(identifier.name, "table name"); !valid) {
    return ErrorResponse(valid.error());
  }
  if (s.size() == 5) return Table(call, identifier);
  if (s[5] == "metrics") {
    return method == "POST" ? ReportMetrics(call, identifier) : MethodNotAllowed(call.request);
  }
  return NoRoute(call.request);
}

HttpResponse CatalogService::Config(Call&) {
  JsonWriter writer;
  writer.StartObject();
  writer.Key("defaults");
  writer.StartObject();
  writer.EndObject();
  writer.Key("overrides");
  writer.StartObject();
  writer.EndObject();
  writer.Key("endpoints");
  writer.StartArray();
  for (const auto& endpoint : Endpoints()) writer.String(endpoint);
  writer.EndArray();
  writer.EndObject();
  return JsonResponse(writer.Take());
}

HttpResponse CatalogService::ListNamespaces(Call& call) {
  spec::Namespace parent;
  if (auto value = call.target.Query("parent"); value && !value->empty()) {
    auto decoded = DecodeNamespaceParameter(*value);
    if (!decoded) return ErrorResponse(decoded.error());
    parent = std::move(*decoded);
  }
  auto page = PageFrom(call.target);
  if (!page) return ErrorResponse(page.error());
  auto result = catalog_->ListNamespaces(parent, *page);
  if (!result) return ErrorResponse(result.error());
  return JsonResponse(WriteNamespaceList(*result));
}

HttpResponse CatalogService::CreateNamespace(Call& call) {
  auto body = ParseCreateNamespace(call.request.body);
  if (!body) return ErrorResponse(body.error());
  if (auto created = catalog_->CreateNamespace(body->ns, body->properties); !created) {
    return ErrorResponse(created.error());
  }
  return JsonResponse(WriteNamespace(body->ns, body->properties));
}

HttpResponse CatalogService::Namespace(Call& call, const spec::Namespace& ns) {
  const std::string& method = call.request.method;
  if (method == "GET") {
    auto properties = catalog_->LoadNamespaceProperties(ns);
    if (!properties) return ErrorResponse(properties.error());
    return JsonResponse(WriteNamespace(ns, *properties));
  }
  if (method == "HEAD") {
    auto exists = catalog_->NamespaceExists(ns);
    if (!exists) return ErrorResponse(exists.error());
    if (!*exists) {
      return ErrorResponse(404, "NoSuchNamespaceException",
                           StrCat("Namespace does not exist: ", spec::NamespaceToString(ns)));
    }
    return NoContent();
  }
  if (method == "DELETE") {
    if (auto dropped = catalog_->DropNamespace(ns); !dropped) return ErrorResponse(dropped.error());
    return NoContent();
  }
  return MethodNotAllowed(call.request);
}

HttpResponse CatalogService::UpdateProperties(Call& call, const spec::Namespace& ns) {
  auto body = ParseUpdateProperties(call.request.body);
  if (!body) return ErrorResponse(body.error());
  for (const auto& key : body->removals) {
    if (body->updates.count(key) != 0) {
      return ErrorResponse(422, "UnprocessableEntityException",
                           StrCat("Duplicate key to update and remove: ", key));
    }
  }
  auto result = catalog_->UpdateNamespaceProperties(ns, body->removals, body->updates);
  if (!result) return ErrorResponse(result.error());
  return JsonResponse(WriteUpdateProperties(*result));
}

HttpResponse CatalogService::ListTables(Call& call, const spec::Namespace& ns) {
  auto page = PageFrom(call.target);
  if (!page) return ErrorResponse(page.error());
  auto result = catalog_->ListTables(ns, *page);
  if (!result) return ErrorResponse(result.error());
  return JsonResponse(WriteTableList(*result));
}

HttpResponse CatalogService::CreateTable(Call& call, const spec::Namespace& ns) {
  auto request = ParseCreateTable(call.request.body);
  if (!request) return ErrorResponse(request.error());
  auto created = catalog_->CreateTable(ns, *request);
  if (!created) return ErrorResponse(created.error());
  return JsonResponse(WriteLoadTable(created->metadata_location, *created->metadata_json, true));
}

HttpResponse CatalogService::RegisterTable(Call& call, const spec::Namespace& ns) {
  auto body = ParseRegister(call.request.body);
  if (!body) return ErrorResponse(body.error());
  auto registered =
      catalog_->RegisterTable({ns, body->name}, body->metadata_location, body->overwrite);
  if (!registered) return ErrorResponse(registered.error());
  return JsonResponse(
      WriteLoadTable(registered->metadata_location, *registered->metadata_json, true));
}

HttpResponse CatalogService::Table(Call& call, const spec::TableIdentifier& identifier) {
  const std::string& method = call.request.method;
  if (method == "GET") return LoadTable(call, identifier);
  if (method == "HEAD") {
    auto exists = catalog_->TableExists(identifier);
    if (!exists) return ErrorResponse(exists.error());
    if (!*exists) {
      return ErrorResponse(404, "NoSuchTableException",
                           StrCat("Table does not exist: ", identifier.ToString()));
    }
    return NoContent();
  }
  if (method == "POST") {
    auto request = ParseCommitTable(call.request.body, identifier);
    if (!request) return ErrorResponse(request.error());
    auto committed = catalog_->CommitTable(*request);
    if (!committed) return ErrorResponse(committed.error());
    return JsonResponse(
        WriteLoadTable(committed->metadata_location, *committed->metadata_json, false));
  }
  if (method == "DELETE") {
    bool purge = false;
    if (auto value = call.target.Query("purgeRequested")) {
      auto parsed = ParseBooleanParameter("purgeRequested", *value);
      if (!parsed) return ErrorResponse(parsed.error());
      purge = *parsed;
    }
    if (auto dropped = catalog_->DropTable(identifier, purge); !dropped) {
      return ErrorResponse(dropped.error());
    }
    return NoContent();
  }
  return MethodNotAllowed(call.request);
}

HttpResponse CatalogService::LoadTable(Call& call, const spec::TableIdentifier& identifier) {
  std::string_view mode = call.target.Query("snapshots").value_or("all");
  if (mode != "all" && mode != "refs") {
    return ErrorResponse(400, "BadRequestException",
                         StrCat("Invalid snapshots mode: '", mode, "' (expected all or refs)"));
  }
  auto table = catalog_->LoadTable(identifier);
  if (!table) return ErrorResponse(table.error());
  std::string etag = ETagFor(table->metadata_location, mode);
  if (ETagMatches(call.request.Header("if-none-match"), etag)) {
    HttpResponse not_modified;
    not_modified.status = 304;
    not_modified.headers.emplace_back("ETag", etag);
    return not_modified;
  }
  HttpResponse response;
  if (mode == "refs") {
    std::string filtered = spec::TableMetadataToJson(OnlyReferencedSnapshots(*table->metadata));
    response = JsonResponse(WriteLoadTable(table->metadata_location, filtered, true));
  } else {
    response = JsonResponse(WriteLoadTable(table->metadata_location, *table->metadata_json, true));
  }
  response.headers.emplace_back("ETag", std::move(etag));
  return response;
}

HttpResponse CatalogService::ReportMetrics(Call& call, const spec::TableIdentifier& identifier) {
  if (auto valid = ValidateMetricsReport(call.request.body); !valid) {
    return ErrorResponse(valid.error());
  }
  auto exists = catalog_->TableExists(identifier);
  if (!exists) return ErrorResponse(exists.error());
  if (!*exists) {
    return ErrorResponse(404, "NoSuchTableException",
                         StrCat("Table does not exist: ", identifier.ToString()));
  }
  return NoContent();
}

HttpResponse CatalogService::RenameTable(Call& call) {
  auto body = ParseRename(call.request.body);
  if (!body) return ErrorResponse(body.error());
  if (auto renamed = catalog_->RenameTable(body->source, body->destination); !renamed) {
    return ErrorResponse(renamed.error());
  }
  return NoContent();
}

HttpResponse CatalogService::CommitTransaction(Call& call) {
  auto requests = ParseCommitTransaction(call.request.body);
  if (!requests) return ErrorResponse(requests.error());
  if (auto committed = catalog_->CommitTransaction(*requests); !committed) {
    return ErrorResponse(committed.error());
  }
  return NoContent();
}

}  // namespace skade::rest
