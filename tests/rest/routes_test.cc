// The route table: its shape, what /v1/config advertises from it, matching
// (404 versus 405, the optional prefix), and the read-only check walked over
// every row.
#include "skade/rest/routes.h"

#include <gtest/gtest.h>

#include <set>

#include "rest/rest_service_fixture.h"
#include "skade/rest/catalog_service.h"
#include "skade/util/strings.h"

namespace skade::rest {
namespace {

// A concrete path for `pattern`: parameters become "n" (namespace), "t"
// (table), "1" (snapshot id), "p" (plan id); `{prefix}` becomes `prefix`, or is dropped when
// that is empty.
std::string PathFor(std::string_view pattern, std::string_view prefix) {
  std::string path;
  for (const std::string& part : Split(pattern, '/')) {
    if (part == "{prefix}") {
      if (!prefix.empty()) StrAppend(&path, "/", prefix);
    } else if (part == "{namespace}") {
      path += "/n";
    } else if (part == "{table}") {
      path += "/t";
    } else if (part == "{snapshot-id}") {
      path += "/1";
    } else if (part == "{plan-id}") {
      path += "/p";
    } else {
      StrAppend(&path, "/", part);
    }
  }
  return path;
}

std::vector<std::string> SegmentsOf(std::string_view path) { return Split(path.substr(1), '/'); }

bool HasPrefix(const Route& route) { return route.pattern.find("{prefix}") != std::string::npos; }

TEST(RouteTableTest, RowsAreWellFormedAndDistinct) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const Route& route : Routes()) {
    EXPECT_TRUE(seen.emplace(route.method, route.pattern).second)
        << route.method << " " << route.pattern;
    EXPECT_NE(route.handler, nullptr) << route.pattern;
    auto parts = Split(route.pattern, '/');
    ASSERT_FALSE(parts.empty());
    // Everything but the operators' endpoints (operations_endpoints.h) is
    // the Iceberg API, under /v1.
    const bool operations = route.pattern == "metrics" || route.pattern.starts_with("health/");
    EXPECT_EQ(parts[0] == "v1", !operations) << route.pattern;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i].starts_with('{')) continue;
      // Every parameter has a decoder in DecodeParameters.
      EXPECT_TRUE(parts[i] == "{namespace}" || parts[i] == "{table}" ||
                  parts[i] == "{snapshot-id}" || parts[i] == "{plan-id}" ||
                  (parts[i] == "{prefix}" && i == 1))
          << route.pattern;
    }
  }
}

// Each row's own path reaches that row, with and without a prefix: no two
// patterns overlap.
TEST(RouteTableTest, EveryRowMatchesItsOwnPath) {
  for (const Route& route : Routes()) {
    for (std::string_view prefix : {"", "warehouse"}) {
      if (!prefix.empty() && !HasPrefix(route)) continue;
      const std::string path = PathFor(route.pattern, prefix);
      const std::vector<std::string> segments = SegmentsOf(path);
      RouteMatch match = MatchRoute(route.method, segments);
      EXPECT_EQ(match.route, &route) << route.method << " " << path;
      EXPECT_EQ(match.prefixed, !prefix.empty()) << path;
    }
  }
}

TEST(RouteTableTest, NoPathIsNoRouteAndAnotherMethodIsNotAllowed) {
  std::vector<std::string> unknown = {"v1", "namespaces", "n", "views", "v"};
  RouteMatch none = MatchRoute("GET", unknown);
  EXPECT_EQ(none.path_route, nullptr);
  EXPECT_EQ(none.route, nullptr);

  std::vector<std::string> ns = {"v1", "namespaces", "n"};
  RouteMatch put = MatchRoute("PUT", ns);
  ASSERT_NE(put.path_route, nullptr);
  EXPECT_EQ(put.path_route->pattern, "v1/{prefix}/namespaces/{namespace}");
  EXPECT_EQ(put.route, nullptr);
  ASSERT_EQ(put.parameters.size(), 1u);
  EXPECT_EQ(put.parameters[0].first, "namespace");
  EXPECT_EQ(put.parameters[0].second, "n");

  // Without a prefix first: "namespaces" here is a namespace, not a prefix.
  std::vector<std::string> ambiguous = {"v1", "namespaces", "namespaces"};
  RouteMatch load = MatchRoute("GET", ambiguous);
  ASSERT_NE(load.route, nullptr);
  EXPECT_EQ(load.route->pattern, "v1/{prefix}/namespaces/{namespace}");
  EXPECT_FALSE(load.prefixed);

  // The config and token endpoints take no prefix.
  std::vector<std::string> prefixed_config = {"v1", "warehouse", "config"};
  EXPECT_EQ(MatchRoute("GET", prefixed_config).path_route, nullptr);
}

// The rows that write, planTableScan, resolve, loadCredentials and the
// time-travel reads of past versions are the requests the server runs on its
// handler pool; every other row is answered on an I/O thread unless it vends
// credentials to a client that asks (or, below, loads a table the cache does
// not hold). RunsOnPool parses a safe method's target only under `skade/`,
// for `/credentials`, `/tables/` or when vending, which is right only while
// no other such row writes or blocks.
TEST(RouteTableTest, ExactlyTheWritingAndBlockingRowsMayBlock) {
  const MetadataCachedQuery cached = [](const spec::TableIdentifier&) { return true; };
  std::vector<std::string> blocking;
  for (const Route& route : Routes()) {
    EXPECT_FALSE(IsSafeMethod(route.method) && route.access == RouteAccess::kWrite)
        << route.method << " " << route.pattern;
    EXPECT_FALSE(IsSafeMethod(route.method) && route.blocks &&
                 route.pattern.find("/skade/") == std::string_view::npos &&
                 !route.pattern.ends_with("/credentials"))
        << route.method << " " << route.pattern;
    if (route.access != RouteAccess::kWrite && route.blocks) {
      blocking.push_back(StrCat(route.method, " ", route.pattern));
    }
    for (std::string_view prefix : {"", "warehouse"}) {
      if (!prefix.empty() && !HasPrefix(route)) continue;
      HttpRequest request;
      request.method = route.method;
      request.target = PathFor(route.pattern, prefix) + "?purgeRequested=true";
      EXPECT_EQ(RunsOnPool(request, false, cached),
                route.access == RouteAccess::kWrite || route.blocks)
          << request.method << " " << request.target;
      EXPECT_EQ(RunsOnPool(request, true, cached),
                route.access == RouteAccess::kWrite || route.blocks || route.vends)
          << request.method << " " << request.target << " (vending)";
    }
  }
  EXPECT_EQ(
      blocking,
      (std::vector<std::string>{
          "GET v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
          "POST v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
          "GET v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/snapshots/{snapshot-id}",
          "GET v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/as-of",
          "POST v1/{prefix}/skade/resolve"}));
  // As for the read-only check: where no row serves a method, only a method
  // that is not safe counts as a write (it is answered 404 or 405 anyway).
  HttpRequest request;
  for (const char* method : {"GET", "HEAD", "OPTIONS"}) {
    request.method = method;
    request.target = "/v1/namespaces/n/views/v";
    EXPECT_FALSE(RunsOnPool(request, false, cached)) << method;
  }
  request.method = "PATCH";
  EXPECT_TRUE(RunsOnPool(request, false, cached));
  request.method = "POST";
  request.target = "/v1/namespaces?x=%zz";  // does not parse: a 400 from memory
  EXPECT_FALSE(RunsOnPool(request, false, cached));
}

// Regression: a loadTable of a table the metadata cache did not hold read
// its metadata file on the I/O thread; with S3 stalled, two such requests
// held both I/O threads for minutes and /health/live went unanswered. Where
// a request runs now also asks the cache, for the rows that load a table.
TEST(RouteTableTest, RunsOnPoolAlsoWhereATableIsNotCached) {
  for (const Route& route : Routes()) {
    for (std::string_view prefix : {"", "warehouse"}) {
      if (!prefix.empty() && !HasPrefix(route)) continue;
      for (bool vending : {false, true}) {
        for (bool is_cached : {false, true}) {
          std::vector<spec::TableIdentifier> asked;
          const MetadataCachedQuery cached = [&](const spec::TableIdentifier& identifier) {
            asked.push_back(identifier);
            return is_cached;
          };
          HttpRequest request;
          request.method = route.method;
          request.target = PathFor(route.pattern, prefix);
          // A prefixed path is a 404 that loads nothing.
          const bool loads = route.loads_table && prefix.empty();
          EXPECT_EQ(RunsOnPool(request, vending, cached),
                    route.access == RouteAccess::kWrite || route.blocks ||
                        (vending && route.vends) || (loads && !is_cached))
              << request.method << " " << request.target << (vending ? " (vending)" : "")
              << (is_cached ? " (cached)" : "");
          if (loads && !route.blocks && !(vending && route.vends)) {
            ASSERT_EQ(asked.size(), 1u) << request.method << " " << request.target;
            EXPECT_EQ(asked[0].ns, spec::Namespace{"n"});
            EXPECT_EQ(asked[0].name, "t");
          }
        }
      }
    }
  }
  std::vector<std::string> loading;
  for (const Route& route : Routes()) {
    if (!route.loads_table) continue;
    loading.push_back(StrCat(route.method, " ", route.pattern));
    // RunsOnPool parses a safe method's target only if it has "/tables/".
    EXPECT_NE(route.pattern.find("/tables/"), std::string_view::npos) << route.pattern;
  }
  EXPECT_EQ(loading, (std::vector<std::string>{
                         "GET v1/{prefix}/namespaces/{namespace}/tables/{table}",
                         "GET v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
                         "DELETE v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
                         "POST v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks"}));

  // The cache is not asked for what loads nothing, nor for a name that does
  // not decode (a 400 from memory).
  int asked = 0;
  const MetadataCachedQuery never = [&](const spec::TableIdentifier&) {
    ++asked;
    return false;
  };
  HttpRequest request;
  request.method = "GET";
  for (const char* target : {"/health/live", "/v1/config", "/v1/namespaces/n/tables",
                             "/v1/namespaces/n/tables/%zz", "/v1/namespaces/n/tables/t?x=%zz"}) {
    request.target = target;
    EXPECT_FALSE(RunsOnPool(request, false, never)) << target;
  }
  request.method = "HEAD";  // tableExists reads the pointer only
  request.target = "/v1/namespaces/n/tables/t";
  EXPECT_FALSE(RunsOnPool(request, false, never));
  EXPECT_EQ(asked, 0);
}

// What clients have always been told; a change here is a change for them.
TEST(RouteTableTest, AdvertisedEndpointsAreTheRoutesUnderThePrefix) {
  const std::vector<std::string> expected = {
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
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
      "POST /v1/{prefix}/tables/rename",
      "POST /v1/{prefix}/transactions/commit",
      "GET /v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/snapshots/{snapshot-id}",
      "GET /v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/as-of",
      "GET /v1/{prefix}/skade/namespaces/{namespace}/tables/{table}/history",
      "POST /v1/{prefix}/skade/resolve",
      "GET /v1/{prefix}/skade/changes",
  };
  EXPECT_EQ(AdvertisedEndpoints(), expected);
  std::vector<std::string> from_table;
  for (const Route& route : Routes()) {
    if (HasPrefix(route)) from_table.push_back(StrCat(route.method, " /", route.pattern));
  }
  EXPECT_EQ(AdvertisedEndpoints(), from_table);
}

class RoutesOverServiceTest : public testing::RestServiceTest {
 protected:
  void SetUp() override {
    OpenServiceWithWriterAndReader();
    if (HasFatalFailure()) return;
    writer_ = Token("writer", "w-secret");
    reader_ = Token("reader", "r-secret");
    ASSERT_EQ(As(writer_, "POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    ASSERT_EQ(As(writer_, "POST", "/v1/namespaces/n/tables",
                 std::string(R"({"name":"t","schema":)") + testing::kSchema + "}")
                  .status,
              200);
  }

  HttpResponse As(const std::string& token, const std::string& method, const std::string& target,
                  const std::string& body = "") {
    return Call(method, target, body, {{"authorization", "Bearer " + token}});
  }

  std::string writer_;
  std::string reader_;
};

// Every row's access decides the read-only answer: writes are refused with
// 403 before they run, reads (and the metrics report) pass; with a prefix
// the same (then it is a 404, but not a 403 for a read).
TEST_F(RoutesOverServiceTest, ReadOnlyModeFollowsEachRowsAccess) {
  for (const Route& route : Routes()) {
    if (route.access == RouteAccess::kPublic) continue;
    for (std::string_view prefix : {"", "warehouse"}) {
      if (!prefix.empty() && !HasPrefix(route)) continue;
      const std::string path = PathFor(route.pattern, prefix);
      const std::string method(route.method);
      auto response = As(reader_, method, path, "{}");
      if (route.access == RouteAccess::kWrite) {
        EXPECT_EQ(response.status, 403) << method << " " << path;
        EXPECT_EQ(ErrorType(response), "ForbiddenException") << method << " " << path;
      } else {
        EXPECT_NE(response.status, 403) << method << " " << path;
        EXPECT_NE(response.status, 401) << method << " " << path;
      }
    }
  }
  // Nothing was changed by the refused writes.
  EXPECT_EQ(As(writer_, "GET", "/v1/namespaces/n/tables/t").status, 200);
}

// A path some row has, with a method no row has for it, is 405 (to a writer;
// a reader is refused a non-read method first); a path no row has is 404,
// and so is any path that binds a prefix.
TEST_F(RoutesOverServiceTest, NotFoundAndMethodNotAllowedFollowTheTable) {
  std::set<std::string_view> seen;
  for (const Route& route : Routes()) {
    if (!seen.insert(route.pattern).second) continue;
    const std::string path = PathFor(route.pattern, "");
    auto patch = As(writer_, "PATCH", path, "{}");
    EXPECT_EQ(patch.status, 405) << path;
    EXPECT_EQ(ErrorType(patch), "MethodNotAllowedException") << path;
    // The 405 names the methods the path has (RFC 9110 15.5.6), HEAD
    // wherever GET is; and HEAD is answered there, as GET without a body.
    std::set<std::string> methods;
    for (const Route& other : Routes()) {
      if (other.pattern == route.pattern) methods.insert(std::string(other.method));
    }
    const bool head_is_get = methods.contains("GET") && !methods.contains("HEAD");
    if (head_is_get) methods.insert("HEAD");
    std::set<std::string> allowed;
    for (const auto& [name, value] : patch.headers) {
      if (name != "Allow") continue;
      for (std::string method : Split(value, ',')) {
        allowed.insert(std::string(StripWhitespace(method)));
      }
    }
    EXPECT_EQ(allowed, methods) << path;
    if (head_is_get) {
      auto head = As(writer_, "HEAD", path);
      EXPECT_NE(head.status, 405) << path;
      EXPECT_EQ(head.status, As(writer_, "GET", path).status) << path;
    }
    const bool is_public = route.access == RouteAccess::kPublic;
    EXPECT_EQ(As(reader_, "PATCH", path, "{}").status, is_public ? 405 : 403) << path;
    if (HasPrefix(route)) {
      const std::string prefixed = PathFor(route.pattern, "warehouse");
      for (const char* method : {"GET", "PATCH"}) {
        auto response = As(writer_, method, prefixed);
        EXPECT_EQ(response.status, 404) << method << " " << prefixed;
        EXPECT_EQ(ErrorType(response), "NoSuchRouteException") << method << " " << prefixed;
      }
    }
  }
  auto unknown = As(writer_, "GET", "/v1/namespaces/n/views/v");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(ErrorType(unknown), "NoSuchRouteException");
}

// The token endpoint is answered before authentication, including its 405;
// every other route wants a token.
TEST_F(RoutesOverServiceTest, OnlyPublicRoutesSkipAuthentication) {
  auto get_token = Call("GET", "/v1/oauth/tokens");
  EXPECT_EQ(get_token.status, 405);
  EXPECT_EQ(ErrorType(get_token), "MethodNotAllowedException");
  for (const Route& route : Routes()) {
    if (route.access == RouteAccess::kPublic) continue;
    const std::string path = PathFor(route.pattern, "");
    auto response = Call(std::string(route.method), path, "{}");
    EXPECT_EQ(response.status, 401) << route.method << " " << path;
    EXPECT_EQ(ErrorType(response), "NotAuthorizedException") << path;
    bool challenged = false;
    for (const auto& [name, value] : response.headers) {
      challenged |= name == "WWW-Authenticate" && value == "Bearer";
    }
    EXPECT_TRUE(challenged) << path;
  }
}

}  // namespace
}  // namespace skade::rest
