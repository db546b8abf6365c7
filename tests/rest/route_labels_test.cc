// What the REST service tells the transport about each answer for the request
// log and metrics: the matched route's pattern (never the raw path) and, for an
// error, its cause. In process, and behind the real HttpServer with the JSON
// request log and on_request.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "http/test_client.h"
#include "rest/rest_service_fixture.h"
#include "skade/rest/http/http_server.h"
#include "skade/util/strings.h"

namespace skade::rest {
namespace {

using skade::testing::MakeRequest;
using skade::testing::TestClient;
using ::testing::HasSubstr;
using ::testing::Not;

class RouteLabelsTest : public testing::RestServiceTest {
 protected:
  void SetUp() override {
    OpenServiceWithWriterAndReader();
    if (HasFatalFailure()) return;
    token_ = Token("writer", "w-secret");
  }

  HttpResponse Authorized(const std::string& method, const std::string& target,
                          const std::string& body = "") {
    return Call(method, target, body, {{"authorization", "Bearer " + token_}});
  }

  std::string token_;
};

TEST_F(RouteLabelsTest, AnswersNameTheMatchedRoutePattern) {
  auto created = Authorized("POST", "/v1/namespaces", R"({"namespace":["n"]})");
  EXPECT_EQ(created.status, 200);
  EXPECT_EQ(created.route, "v1/{prefix}/namespaces");
  EXPECT_EQ(created.error, "");
  auto config = Authorized("GET", "/v1/config");
  EXPECT_EQ(config.route, "v1/config");
  auto loaded = Authorized("GET", "/v1/namespaces/n?pageToken=x");
  EXPECT_EQ(loaded.status, 200);
  EXPECT_EQ(loaded.route, "v1/{prefix}/namespaces/{namespace}");
}

TEST_F(RouteLabelsTest, ErrorsNameRouteAndCause) {
  auto missing = Authorized("GET", "/v1/namespaces/nope/tables/t");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.route, "v1/{prefix}/namespaces/{namespace}/tables/{table}");
  EXPECT_THAT(missing.error, HasSubstr("nope"));

  auto bad_name = Authorized("GET", "/v1/namespaces/n/tables/%00");
  EXPECT_EQ(bad_name.status, 400);
  EXPECT_EQ(bad_name.route, "v1/{prefix}/namespaces/{namespace}/tables/{table}");
  EXPECT_FALSE(bad_name.error.empty());

  // 405: the path has a route, the method none.
  auto not_allowed = Authorized("PUT", "/v1/namespaces");
  EXPECT_EQ(not_allowed.status, 405);
  EXPECT_EQ(not_allowed.route, "v1/{prefix}/namespaces");
  EXPECT_EQ(not_allowed.error, "Method PUT is not allowed on this route");

  // No route: no label, whatever path the client made up.
  auto no_route = Authorized("GET", "/v1/made/up/path");
  EXPECT_EQ(no_route.status, 404);
  EXPECT_EQ(no_route.route, "");
  EXPECT_EQ(no_route.error, "No route for GET /v1/made/up/path");
  auto prefixed = Authorized("GET", "/v1/warehouse/namespaces");
  EXPECT_EQ(prefixed.status, 404);
  EXPECT_EQ(prefixed.route, "");

  // Refused before the handler: still the route, and why.
  auto anonymous = Call("GET", "/v1/namespaces");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.route, "v1/{prefix}/namespaces");
  EXPECT_EQ(anonymous.error, "Not authorized: missing bearer token");
  auto reader = Call("POST", "/v1/namespaces", R"({"namespace":["r"]})",
                     {{"authorization", "Bearer " + Token("reader", "r-secret")}});
  EXPECT_EQ(reader.status, 403);
  EXPECT_EQ(reader.route, "v1/{prefix}/namespaces");
  EXPECT_EQ(reader.error, "Client reader is read-only");

  // The token endpoint's OAuth errors: the cause, never the secret tried.
  auto wrong = Call("POST", "/v1/oauth/tokens",
                    "grant_type=client_credentials&client_id=writer&client_secret=GUESSED-secret",
                    {{"content-type", "application/x-www-form-urlencoded"}});
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.route, "v1/oauth/tokens");
  EXPECT_EQ(wrong.error, "invalid_client: Unknown client or wrong secret");
}

// The whole path: the service's labels reach on_request and the JSON log,
// with no token from a header, a query or a body.
TEST_F(RouteLabelsTest, JsonRequestLogOverHttp) {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, int>> routes;  // (route, status) from on_request
  HttpServerOptions http;
  http.port = 0;
  http.threads = 2;
  http.log_format = HttpLogFormat::kJson;
  http.log_sink = [&](std::string_view line) {
    std::lock_guard lock(mutex);
    lines.emplace_back(line);
  };
  http.on_request = [&](const RequestRecord& record) {
    std::lock_guard lock(mutex);
    routes.emplace_back(std::string(record.route), record.status);
  };
  auto server = HttpServer::Start(
      http, [service = service_](const HttpRequest& r) { return service->Handle(r); });
  ASSERT_TRUE(server) << server.error().ToString();
  {
    TestClient client((*server)->port());
    const std::string auth = StrCat("Authorization: Bearer ", token_, "\r\nX-Request-ID: r-1\r\n");
    auto ok =
        client.Exchange(MakeRequest("GET", "/v1/namespaces?pageSize=10&token=SECRET-q", "", auth));
    auto missing = client.Exchange(MakeRequest("GET", "/v1/namespaces/ghost", "", auth));
    auto token = client.Exchange(
        MakeRequest("POST", "/v1/oauth/tokens",
                    "grant_type=client_credentials&client_id=writer&client_secret=w-secret",
                    "Content-Type: application/x-www-form-urlencoded\r\n"));
    ASSERT_TRUE(ok && missing && token);
    EXPECT_EQ(ok->status, 200);
    EXPECT_EQ(missing->status, 404);
    EXPECT_EQ(missing->Header("x-request-id"), "r-1");
    ASSERT_EQ(token->status, 200);
    EXPECT_THAT(token->body, HasSubstr("access_token"));
  }
  (*server)->Shutdown();
  using Pair = std::pair<std::string, int>;
  EXPECT_THAT(routes, ::testing::ElementsAre(Pair("v1/{prefix}/namespaces", 200),
                                             Pair("v1/{prefix}/namespaces/{namespace}", 404),
                                             Pair("v1/oauth/tokens", 200)));
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) {
    EXPECT_TRUE(json::Parse(parser_, line)) << line;
    EXPECT_THAT(line, Not(HasSubstr(token_)));
    EXPECT_THAT(line, Not(HasSubstr("SECRET")));
    EXPECT_THAT(line, Not(HasSubstr("w-secret")));
  }
  auto element = json::Parse(parser_, lines[1]);
  ASSERT_TRUE(element);
  auto object = *json::AsObject(*element, "line");
  EXPECT_EQ(*json::GetString(object, "route"), "v1/{prefix}/namespaces/{namespace}");
  EXPECT_EQ(*json::GetString(object, "request_id"), "r-1");
  EXPECT_EQ(*json::GetInt64(object, "status"), 404);
  EXPECT_THAT(*json::GetString(object, "error"), HasSubstr("ghost"));
  EXPECT_EQ(*json::GetString(object, "path"), "/v1/namespaces/ghost");
}

}  // namespace
}  // namespace skade::rest
