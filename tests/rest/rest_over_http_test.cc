// The REST service behind the real HttpServer, over sockets: what read-only
// clients may do, that error bodies stay valid JSON whatever bytes a client
// sends, and that reads are not held up by commits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "http/test_client.h"
#include "rest/rest_service_fixture.h"
#include "skade/rest/http/http_server.h"
#include "skade/rest/routes.h"
#include "skade/util/strings.h"
#include "testing/gate.h"

namespace skade::rest {
namespace {

using skade::testing::kSchema;
using skade::testing::MakeRequest;
using skade::testing::ParsedResponse;
using skade::testing::TestClient;

class RestOverHttpTest : public testing::RestServiceTest {
 protected:
  void SetUp() override {
    OpenServiceWithWriterAndReader();
    if (HasFatalFailure()) return;
    HttpServerOptions http;
    http.port = 0;
    http.threads = 2;
    http.log_requests = false;
    http.refuse_before_body = [service = service_](const HttpRequest& r) {
      return service->RefuseBeforeBody(r);
    };
    auto server = HttpServer::Start(
        http, [service = service_](const HttpRequest& r) { return service->Handle(r); });
    ASSERT_TRUE(server) << server.error().ToString();
    server_ = std::move(*server);
    writer_ = Token("writer", "w-secret");
    reader_ = Token("reader", "r-secret");
  }

  ParsedResponse Send(const std::string& request) {
    TestClient client(server_->port());
    EXPECT_TRUE(client.Send(request));
    auto response = client.ReadResponse(request.rfind("HEAD ", 0) == 0);
    EXPECT_TRUE(response) << request;
    return response.value_or(ParsedResponse{});
  }

  ParsedResponse Call(const std::string& token, const std::string& method,
                      const std::string& target, const std::string& body = "") {
    return Send(MakeRequest(method, target, body, "Authorization: Bearer " + token + "\r\n"));
  }

  // Namespace n, table n.t.
  void CreateTable() {
    ASSERT_EQ(Call(writer_, "POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    ASSERT_EQ(Call(writer_, "POST", "/v1/namespaces/n/tables",
                   std::string(R"({"name":"t","schema":)") + kSchema + "}")
                  .status,
              200);
  }

  static std::string TokenRequest(const std::string& id, const std::string& secret) {
    return MakeRequest("POST", "/v1/oauth/tokens",
                       "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret,
                       "Content-Type: application/x-www-form-urlencoded\r\n");
  }

  std::string Token(const std::string& id, const std::string& secret) {
    auto response = Send(TokenRequest(id, secret));
    EXPECT_EQ(response.status, 200) << response.body;
    auto element = json::Parse(parser_, response.body);
    if (!element) return "";
    return std::string(*json::GetString(*json::AsObject(*element, "body"), "access_token"));
  }

  std::unique_ptr<HttpServer> server_;
  std::string writer_;
  std::string reader_;
};

// Regression: the read-only check let through any 7-segment path ending in
// "metrics" and forbade the real report-metrics route, which has 6 segments
// (/v1/namespaces/{ns}/tables/{table}/metrics).
TEST_F(RestOverHttpTest, ReadOnlyClientsMayReportMetrics) {
  CreateTable();
  if (HasFatalFailure()) return;
  const std::string report = R"({"report-type":"commit-report","table-name":"n.t"})";
  EXPECT_EQ(Call(reader_, "POST", "/v1/namespaces/n/tables/t/metrics", report).status, 204);
  // With a prefix the route is not served here, and a reader learns exactly
  // what a writer does: not a 403.
  auto as_writer = Call(writer_, "POST", "/v1/warehouse/namespaces/n/tables/t/metrics", report);
  auto as_reader = Call(reader_, "POST", "/v1/warehouse/namespaces/n/tables/t/metrics", report);
  EXPECT_NE(as_reader.status, 403);
  EXPECT_EQ(as_reader.status, as_writer.status);
}

TEST_F(RestOverHttpTest, ReadOnlyClientsGet403OnEveryWriteAndOnlyThere) {
  CreateTable();
  if (HasFatalFailure()) return;
  for (const std::string& endpoint : AdvertisedEndpoints()) {
    const std::string method = endpoint.substr(0, endpoint.find(' '));
    for (const char* prefix : {"", "/warehouse"}) {
      std::string path = endpoint.substr(endpoint.find(' ') + 1);
      for (auto [from, to] :
           std::vector<std::pair<std::string, std::string>>{{"/{prefix}", prefix},
                                                            {"{namespace}", "n"},
                                                            {"{table}", "t"},
                                                            {"{snapshot-id}", "1"},
                                                            {"{plan-id}", "p"}}) {
        if (auto at = path.find(from); at != std::string::npos) path.replace(at, from.size(), to);
      }
      // The POSTs (and the DELETE) that only read: a metrics report, skade's
      // batched resolve, and scan planning (a cancel drops only the plan).
      const bool reads = path.ends_with("/metrics") || path.ends_with("/skade/resolve") ||
                         path.ends_with("/plan") || path.ends_with("/plan/p") ||
                         path.ends_with("/tasks");
      auto response = Call(reader_, method, path, "{}");
      if (method == "GET" || method == "HEAD" || reads) {
        EXPECT_NE(response.status, 403) << endpoint << " as " << path;
      } else {
        EXPECT_EQ(response.status, 403) << endpoint << " as " << path;
        EXPECT_EQ(ErrorType(response), "ForbiddenException");
      }
    }
  }
  // Writes the router does not know are still writes.
  for (const char* path : {"/v1/namespaces/n/tables/t/x/metrics", "/v1/a/b/c/d/e/metrics",
                           "/v1/namespaces/n/tables/t/metrics/x", "/v1/metrics"}) {
    EXPECT_EQ(Call(reader_, "POST", path, "{}").status, 403) << path;
  }
  EXPECT_EQ(Call(reader_, "PUT", "/v1/namespaces/n", "{}").status, 403);
  EXPECT_EQ(Call(reader_, "PATCH", "/v1/namespaces/n", "{}").status, 403);
  EXPECT_EQ(Call(reader_, "DELETE", "/v1/namespaces/n/tables/t/metrics").status, 403);
  // Nothing was changed.
  EXPECT_EQ(Call(writer_, "GET", "/v1/namespaces/n/tables/t").status, 200);
}

// Review finding: the body was read (up to 16 MiB per connection) before
// the token was checked, so anyone who could connect could make the server
// hold gigabytes. Now the header alone is answered.
TEST_F(RestOverHttpTest, ABodyWithoutValidCredentialsIsRefusedBeforeItIsRead) {
  for (const std::string& auth : {std::string(), std::string("Authorization: Bearer nope\r\n")}) {
    TestClient client(server_->port());
    ASSERT_TRUE(client.Send(StrCat("POST /v1/namespaces HTTP/1.1\r\nHost: t\r\n", auth,
                                   "Content-Length: 16000000\r\n\r\n")));
    auto response = client.ReadResponse();  // no byte of the body was sent
    ASSERT_TRUE(response) << auth;
    EXPECT_EQ(response->status, 401) << response->body;
    EXPECT_EQ(response->Header("www-authenticate"), "Bearer");
    EXPECT_TRUE(client.WaitForClose(std::chrono::milliseconds(5000)));
  }
  // The token endpoint is public, and a valid token's body is read.
  CreateTable();
}

// As `skade serve` wires it: writes run on the server's pool, so with every
// pool thread inside a commit (held at the handler's door by a gate) a client
// still loads and checks tables, gets tokens and reports metrics; a further
// write is turned away with 503 at once, and the held commits then succeed.
TEST_F(RestOverHttpTest, ReadsAreAnsweredWhileCommitsHoldEveryPoolThread) {
  CreateTable();
  if (HasFatalFailure()) return;
  testing::Gate gate;
  std::atomic<int> held{0};
  HttpServerOptions http = OneIoThreadServerOptions();
  http.pool_queue_limit = 0;
  auto gated = HttpServer::Start(http, [&, service = service_](const HttpRequest& r) {
    if (r.method == "POST" && r.Path() == "/v1/namespaces/n/tables/t") {
      ++held;
      gate.Wait();
    }
    return service->Handle(r);
  });
  ASSERT_TRUE(gated) << gated.error().ToString();
  const std::string auth = "Authorization: Bearer " + writer_ + "\r\n";
  auto commit = [&](std::string_view value) {
    return MakeRequest("POST", "/v1/namespaces/n/tables/t",
                       StrCat(R"({"requirements":[],"updates":[{"action":"set-properties",)",
                              R"("updates":{"k":")", value, R"("}}]})"),
                       auth);
  };
  TestClient first((*gated)->port());
  TestClient second((*gated)->port());
  ASSERT_TRUE(first.Send(commit("1")));
  ASSERT_TRUE(second.Send(commit("2")));
  testing::WaitUntil([&] { return held == 2; });

  TestClient client((*gated)->port());
  auto load = client.Exchange(MakeRequest("GET", "/v1/namespaces/n/tables/t", "", auth));
  ASSERT_TRUE(load);
  EXPECT_EQ(load->status, 200);
  auto exists = client.Exchange(MakeRequest("HEAD", "/v1/namespaces/n/tables/t", "", auth), true);
  ASSERT_TRUE(exists);
  EXPECT_EQ(exists->status, 204);
  auto token = client.Exchange(TokenRequest("reader", "r-secret"));
  ASSERT_TRUE(token);
  EXPECT_EQ(token->status, 200);
  auto metrics =
      client.Exchange(MakeRequest("POST", "/v1/namespaces/n/tables/t/metrics",
                                  R"({"report-type":"commit-report","table-name":"n.t"})", auth));
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 204);
  auto refused =
      client.Exchange(MakeRequest("POST", "/v1/namespaces", R"({"namespace":["m"]})", auth));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(ErrorType(*refused), "ServiceUnavailableException");
  EXPECT_EQ(refused->Header("retry-after"), "1");
  EXPECT_EQ(held, 2);

  gate.Open();
  for (TestClient* committer : {&first, &second}) {
    auto response = committer->ReadResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200) << response->body;
  }
  // The refused create never ran.
  EXPECT_EQ(Call(writer_, "GET", "/v1/namespaces/m").status, 404);
}

// Regression: a loadTable of a table the metadata cache did not hold read its
// metadata file on the I/O thread; with S3 stalled, two such loads held both
// I/O threads for minutes and /health/live went unanswered. Such a load runs
// on the handler pool now; a load of a cached table stays on the I/O thread.
TEST_F(RestOverHttpTest, AnUncachedLoadLeavesTheIoThread) {
  CreateTable();
  if (HasFatalFailure()) return;
  server_.reset();
  OpenServiceWithWriterAndReader();  // the same warehouse, an empty cache
  if (HasFatalFailure()) return;
  testing::Gate gate;
  std::atomic<int> held{0};
  HttpServerOptions http = OneIoThreadServerOptions();
  auto gated = HttpServer::Start(http, [&, service = service_](const HttpRequest& r) {
    if (r.method == "GET" && r.Path() == "/v1/namespaces/n/tables/t" && held == 0) {
      ++held;
      gate.Wait();  // as a read from a stalled object store would
    }
    return service->Handle(r);
  });
  ASSERT_TRUE(gated) << gated.error().ToString();
  server_ = std::move(*gated);
  writer_ = Token("writer", "w-secret");
  const std::string auth = "Authorization: Bearer " + writer_ + "\r\n";

  TestClient loader(server_->port());
  ASSERT_TRUE(loader.Send(MakeRequest("GET", "/v1/namespaces/n/tables/t", "", auth)));
  testing::WaitUntil([&] { return held == 1; });
  // On the old code the one I/O thread is the one held: the gate opens after
  // 10 s, so the test fails rather than hangs.
  std::atomic<bool> answered{false};
  std::atomic<bool> timed_out{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 100 && !answered; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!answered) timed_out = true;
    gate.Open();
  });
  TestClient client(server_->port());
  auto config = client.Exchange(MakeRequest("GET", "/v1/config", "", auth));
  answered = true;
  gate.Open();
  watchdog.join();
  EXPECT_FALSE(timed_out) << "GET /v1/config waited for the uncached load";
  ASSERT_TRUE(config);
  EXPECT_EQ(config->status, 200);
  auto load = loader.ReadResponse();
  ASSERT_TRUE(load);
  EXPECT_EQ(load->status, 200) << load->body;

  // The load cached the table: the next one is answered on the I/O thread.
  HttpRequest request;
  request.method = "GET";
  request.target = "/v1/namespaces/n/tables/t";
  EXPECT_FALSE(service_->MayBlock(request));
  request.target = "/v1/namespaces/n/tables/unknown";
  EXPECT_TRUE(service_->MayBlock(request));
}

// Regression: a namespace or table name with invalid UTF-8 was echoed into the
// error message as is, and the body was not JSON any client could parse.
TEST_F(RestOverHttpTest, ErrorBodiesAreValidUtf8WhateverTheClientSent) {
  for (const std::string& target :
       {std::string("/v1/namespaces/%FF%FEbad"), std::string("/v1/namespaces/a%C0%AFb"),
        std::string("/v1/namespaces/n\xFF/tables/t"),
        std::string("/v1/namespaces/n/tables/%ED%A0%80"),
        std::string("/v1/namespaces/\xF4\x90\x80\x80/tables")}) {
    auto response = Call(writer_, "GET", target);
    EXPECT_GE(response.status, 400) << target;
    EXPECT_LT(response.status, 500) << target;
    EXPECT_NE(ErrorType(response), "<no error>") << target;
  }
  auto method = Call(writer_, "GET", "/v1/bad\xC3(route");
  EXPECT_EQ(method.status, 404);
  ErrorType(method);
}

}  // namespace
}  // namespace skade::rest
