// HttpServer behaviour over real sockets: message exchange, keep-alive,
// pipelining, HEAD, handler errors, timeouts, shutdown, concurrency, logging.
// Malformed and oversized input is in request_validation_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http/test_client.h"
#include "http/test_server.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Millis = std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

Millis Since(Clock::time_point start) {
  return std::chrono::duration_cast<Millis>(Clock::now() - start);
}

TEST_F(HttpServerTest, EchoRoundTrip) {
  Start();
  TestClient client(port());
  const std::string body = R"({"a":1})";
  auto response = client.Exchange(MakeRequest("POST", "/v1/echo?x=1&y=%20", body));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "POST /v1/echo?x=1&y=%20\n" + body);
  EXPECT_EQ(response->Header("content-type"), "application/json");
  EXPECT_EQ(response->Header("content-length"), std::to_string(response->body.size()));
  EXPECT_EQ(response->Header("server"), "skade");
  EXPECT_THAT(response->Header("date"), HasSubstr(" GMT"));
  EXPECT_FALSE(response->HasHeader("connection"));
}

TEST_F(HttpServerTest, HandlerHeadersAndContentTypeAreKept) {
  Start();
  TestClient client(port());
  auto response = client.Exchange(MakeRequest("GET", "/text"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "hello");
  EXPECT_EQ(response->Header("content-type"), "text/plain");
  int content_types = 0;
  for (const auto& [name, value] : response->headers) content_types += name == "content-type";
  EXPECT_EQ(content_types, 1);
}

TEST_F(HttpServerTest, TransportOwnsFramingHeaders) {
  Start();
  TestClient client(port());
  auto response = client.Exchange(MakeRequest("GET", "/framing"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "framed");
  EXPECT_EQ(response->Header("content-length"), "6");
  EXPECT_EQ(response->Header("etag"), "\"v1\"");
  EXPECT_FALSE(response->HasHeader("transfer-encoding"));
  EXPECT_FALSE(response->HasHeader("connection"));
  // Still keep-alive.
  auto next = client.Exchange(MakeRequest("GET", "/text"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "hello");
}

TEST_F(HttpServerTest, HeaderNamesReachHandlerLowerCasedAndTrimmed) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(client.Send(
      MakeRequest("GET", "/header?name=x-custom-thing", "", "X-Custom-THING: \t Value 1 \t\r\n")));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "Value 1");
}

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  Start();
  TestClient client(port());
  for (int i = 0; i < 100; ++i) {
    const std::string target = StrCat("/item/", i);
    auto response = client.Exchange(MakeRequest("GET", target));
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->body, "GET " + target + "\n");
    EXPECT_FALSE(response->HasHeader("connection"));
  }
  EXPECT_EQ(handler_calls(), 100);
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  Start();
  TestClient client(port());
  std::string batch;
  for (int i = 0; i < 20; ++i) {
    if (i == 5)
      batch += MakeRequest("GET", "/slow?ms=30");
    else if (i % 3 == 0)
      batch += MakeRequest("POST", StrCat("/p/", i), StrCat("body-", i));
    else
      batch += MakeRequest("GET", StrCat("/g/", i));
  }
  ASSERT_TRUE(client.Send(batch));
  for (int i = 0; i < 20; ++i) {
    auto response = client.ReadResponse();
    ASSERT_TRUE(response) << i;
    if (i == 5)
      EXPECT_EQ(response->body, "GET /slow?ms=30\n");
    else if (i % 3 == 0)
      EXPECT_EQ(response->body, StrCat("POST /p/", i, "\nbody-", i));
    else
      EXPECT_EQ(response->body, StrCat("GET /g/", i, "\n"));
  }
}

TEST_F(HttpServerTest, ConnectionCloseIsHonoured) {
  Start();
  TestClient client(port());
  auto response = client.Exchange(MakeRequest("GET", "/a", "", "Connection: close\r\n"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->Header("connection"), "close");
  EXPECT_TRUE(client.WaitForClose(Millis(3000)));
}

TEST_F(HttpServerTest, Http10ClosesUnlessKeepAliveRequested) {
  Start();
  {
    TestClient client(port());
    auto response = client.Exchange("GET /old HTTP/1.0\r\n\r\n");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "GET /old\n");
    EXPECT_EQ(response->Header("connection"), "close");
    EXPECT_TRUE(client.WaitForClose(Millis(3000)));
  }
  TestClient client(port());
  for (int i = 0; i < 3; ++i) {
    auto response = client.Exchange("GET /kept HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->Header("connection"), "keep-alive");
  }
}

TEST_F(HttpServerTest, HeadAnnouncesLengthButSendsNoBody) {
  Start();
  TestClient client(port());
  auto head = client.Exchange(MakeRequest("HEAD", "/big?n=1000"), /*head_request=*/true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("content-length"), "1000");
  EXPECT_EQ(head->Header("content-type"), "application/json");
  // Had body bytes followed, they would garble the next response.
  auto next = client.Exchange(MakeRequest("GET", "/text"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "hello");
  EXPECT_EQ(client.pending(), "");
}

TEST_F(HttpServerTest, NoContentAndNotModifiedHaveNeitherBodyNorLength) {
  Start();
  TestClient client(port());
  for (std::string_view method : {"GET", "HEAD"}) {
    auto response = client.Exchange(MakeRequest(method, "/no-content"), method == "HEAD");
    ASSERT_TRUE(response) << method;
    EXPECT_EQ(response->status, 204);
    EXPECT_FALSE(response->HasHeader("content-length"));
    EXPECT_FALSE(response->HasHeader("content-type"));
  }
  auto not_modified = client.Exchange(MakeRequest("GET", "/not-modified"));
  ASSERT_TRUE(not_modified);
  EXPECT_EQ(not_modified->status, 304);
  EXPECT_EQ(not_modified->Header("etag"), "\"v1\"");
  EXPECT_FALSE(not_modified->HasHeader("content-length"));
  auto next = client.Exchange(MakeRequest("GET", "/text"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "hello");
}

TEST_F(HttpServerTest, ChunkedBodyIsDecodedAndTrailersDropped) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(
      client.Send("POST /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
                  "GET /header?name=x-trailer HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "POST /c\nhello world");
  auto next = client.ReadResponse();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, "");
}

TEST_F(HttpServerTest, BodyArrivingInPiecesIsAssembled) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(client.Send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 12\r\n\r\nhel"));
  std::this_thread::sleep_for(Millis(20));
  ASSERT_TRUE(client.Send("lo wo"));
  std::this_thread::sleep_for(Millis(20));
  auto response = client.Exchange("rld!");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "POST /p\nhello world!");
}

TEST_F(HttpServerTest, ExpectContinueGetsInterimResponse) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(client.Send(
      "PUT /e HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  auto interim = client.ReadResponse();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  auto response = client.Exchange("12345");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "PUT /e\n12345");
}

TEST_F(HttpServerTest, AbsoluteFormTargetIsReducedToOriginForm) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(
      client.Send("GET http://example.com:8181/v1/x?q=1 HTTP/1.1\r\nHost: t\r\n\r\n"
                  "GET HTTPS://example.com HTTP/1.1\r\nHost: t\r\n\r\n"
                  "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto first = client.ReadResponse();
  auto second = client.ReadResponse();
  auto third = client.ReadResponse();
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(first->body, "GET /v1/x?q=1\n");
  EXPECT_EQ(second->body, "GET /\n");
  EXPECT_EQ(third->body, "OPTIONS *\n");
}

TEST_F(HttpServerTest, HandlerExceptionIs500WithoutInternals) {
  Start();
  TestClient client(port());
  auto response = client.Exchange(MakeRequest("GET", "/throw"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->body,
            R"({"error":{"message":"Internal server error","type":"InternalServerError",)"
            R"("code":500}})");
  EXPECT_EQ(response->Header("content-type"), "application/json");
  // The request was well framed: the connection and the server carry on.
  auto next = client.Exchange(MakeRequest("GET", "/text"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "hello");
  bool logged = false;
  for (const std::string& line : logs_.Lines()) {
    logged = logged || (line.starts_with("ERROR http") && line.find("/throw") != std::string::npos);
  }
  EXPECT_TRUE(logged);
}

TEST_F(HttpServerTest, InvalidHandlerResponsesBecome500) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/bad-header") + MakeRequest("GET", "/bad-status")));
  for (int i = 0; i < 2; ++i) {
    auto response = client.ReadResponse();
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->status, 500);
    EXPECT_FALSE(response->HasHeader("injected"));
    EXPECT_FALSE(response->HasHeader("x-bad"));
  }
}

TEST_F(HttpServerTest, LogLineHasMethodPathStatusAndNoSecrets) {
  Start();
  TestClient client(port());
  ASSERT_TRUE(client.Send(
      MakeRequest("GET", "/v1/tables?token=secret123", "", "Authorization: Bearer secret456\r\n")));
  ASSERT_TRUE(client.ReadResponse());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/throw")));
  ASSERT_TRUE(client.ReadResponse());
  server_->Shutdown();  // lines are logged once the response is written: wait for them
  std::vector<std::string> info;
  for (const std::string& line : logs_.Lines()) {
    EXPECT_THAT(line, Not(HasSubstr("secret123")));
    EXPECT_THAT(line, Not(HasSubstr("secret456")));
    if (line.find(" request_id=") != std::string::npos) info.push_back(line);
  }
  ASSERT_EQ(info.size(), 2u);
  EXPECT_THAT(info[0], ::testing::MatchesRegex(
                           R"(INFO http GET /v1/tables 200 [0-9]+us request_id=[0-9a-f-]+)"));
  EXPECT_THAT(info[1], ::testing::MatchesRegex(
                           R"(ERROR http GET /throw 500 [0-9]+us request_id=[0-9a-f-]+ error=.*)"));
}

TEST_F(HttpServerTest, NoRequestLogWhenDisabled) {
  auto options = Options();
  options.log_requests = false;
  Start(options);
  TestClient client(port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/a")));
  ASSERT_TRUE(client.ReadResponse());
  server_->Shutdown();
  EXPECT_TRUE(logs_.Lines().empty());
}

TEST_F(HttpServerTest, LargeResponseIsDeliveredIntact) {
  Start();
  TestClient client(port());
  constexpr size_t kSize = 8 * 1024 * 1024;  // more than a socket buffer: asynchronous write
  ASSERT_TRUE(
      client.Send(MakeRequest("GET", StrCat("/big?n=", kSize)) + MakeRequest("GET", "/text")));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response);
  ASSERT_EQ(response->body.size(), kSize);
  EXPECT_TRUE(response->body == BigBody(kSize));
  auto next = client.ReadResponse();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "hello");
}

// --- Timeouts -------------------------------------------------------------

TEST_F(HttpServerTest, SlowlorisHeaderIsCutOffAtHeaderTimeout) {
  auto options = Options();
  options.header_timeout_ms = 300;
  Start(options);
  TestClient client(port());
  const auto start = Clock::now();
  client.Send("GET / HTTP/1.1\r\n");
  // Trickling header fields must not extend the deadline.
  bool closed = false;
  for (int i = 0; !closed && Since(start) < Millis(5000); ++i) {
    client.Send(StrCat("X-Drip-", i, ": y\r\n"));
    closed = client.WaitForClose(Millis(50));
  }
  EXPECT_TRUE(closed);
  EXPECT_GE(Since(start), Millis(250));
  EXPECT_LT(Since(start), Millis(3000));
  EXPECT_EQ(client.pending(), "");  // dropped without a response
  EXPECT_EQ(handler_calls(), 0);
}

TEST_F(HttpServerTest, SilentNewConnectionIsClosedAtHeaderTimeout) {
  auto options = Options();
  options.header_timeout_ms = 300;
  Start(options);
  TestClient client(port());
  const auto start = Clock::now();
  EXPECT_TRUE(client.WaitForClose(Millis(5000)));
  EXPECT_GE(Since(start), Millis(250));
}

TEST_F(HttpServerTest, StalledBodyIsCutOffAtBodyTimeout) {
  auto options = Options();
  options.body_timeout_ms = 300;
  Start(options);
  TestClient client(port());
  const auto start = Clock::now();
  ASSERT_TRUE(client.Send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789"));
  EXPECT_TRUE(client.WaitForClose(Millis(5000)));
  EXPECT_GE(Since(start), Millis(250));
  EXPECT_LT(Since(start), Millis(3000));
  EXPECT_EQ(handler_calls(), 0);
}

TEST_F(HttpServerTest, IdleKeepAliveConnectionIsClosedAtIdleTimeout) {
  auto options = Options();
  options.idle_timeout_ms = 300;
  Start(options);
  TestClient client(port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/a")));
  ASSERT_TRUE(client.ReadResponse());
  const auto start = Clock::now();
  EXPECT_TRUE(client.WaitForClose(Millis(5000)));
  EXPECT_GE(Since(start), Millis(250));
  EXPECT_LT(Since(start), Millis(3000));
}

TEST_F(HttpServerTest, BusyConnectionOutlivesIdleTimeout) {
  auto options = Options();
  options.idle_timeout_ms = 300;
  options.header_timeout_ms = 300;
  Start(options);
  TestClient client(port());
  // 1.2 s of requests 100 ms apart: every gap is shorter than the timeout.
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(client.Send(MakeRequest("GET", StrCat("/t/", i)))) << i;
    auto response = client.ReadResponse();
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->status, 200);
    std::this_thread::sleep_for(Millis(100));
  }
}

TEST_F(HttpServerTest, ClientThatDoesNotReadIsDroppedAtWriteTimeout) {
  auto options = Options();
  options.body_timeout_ms = 300;
  Start(options);
  TestClient client(port());
  constexpr size_t kSize = 64 * 1024 * 1024;  // far more than socket buffers hold
  ASSERT_TRUE(client.Send(MakeRequest("GET", StrCat("/big?n=", kSize))));
  std::this_thread::sleep_for(Millis(1500));
  EXPECT_TRUE(client.WaitForClose(Millis(10'000)));
  EXPECT_LT(client.pending().size(), kSize);
}

// --- Lifecycle ------------------------------------------------------------

TEST_F(HttpServerTest, GracefulShutdownFinishesInFlightRequest) {
  Start();
  TestClient idle(port());
  ASSERT_TRUE(idle.Send(MakeRequest("GET", "/a")));
  ASSERT_TRUE(idle.ReadResponse());
  TestClient busy(port());
  ASSERT_TRUE(busy.Send(MakeRequest("GET", "/slow?ms=500")));
  while (handler_calls() < 2) std::this_thread::sleep_for(Millis(1));

  const auto start = Clock::now();
  server_->Shutdown();
  EXPECT_GE(Since(start), Millis(300));  // it waited for the handler

  auto response = busy.ReadResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "GET /slow?ms=500\n");
  EXPECT_EQ(response->Header("connection"), "close");
  EXPECT_TRUE(busy.WaitForClose(Millis(3000)));
  EXPECT_TRUE(idle.WaitForClose(Millis(3000)));
  EXPECT_FALSE(TestClient(port()).connected());
}

TEST_F(HttpServerTest, ShutdownIsIdempotent) {
  Start();
  const uint16_t bound = port();
  server_->Shutdown();
  server_->Shutdown();
  EXPECT_FALSE(TestClient(bound).connected());
  server_.reset();
}

TEST_F(HttpServerTest, PortInUseIsAnIoError) {
  Start();
  auto options = Options();
  options.port = port();
  auto second = rest::HttpServer::Start(
      options, [](const rest::HttpRequest&) { return rest::HttpResponse{}; });
  EXPECT_THAT(second, IsErrorWithMessage(ErrorKind::kIo, "Address already in use"));
  EXPECT_THAT(second, IsErrorWithMessage(ErrorKind::kIo, StrCat(":", port())));
}

TEST_F(HttpServerTest, InvalidOptionsAreRejected) {
  EXPECT_THAT(rest::HttpServer::Start(Options(), nullptr), IsError(ErrorKind::kInvalidArgument));
  auto options = Options();
  options.idle_timeout_ms = 0;
  EXPECT_THAT(rest::HttpServer::Start(
                  options, [](const rest::HttpRequest&) { return rest::HttpResponse{}; }),
              IsError(ErrorKind::kInvalidArgument));
}

TEST_F(HttpServerTest, ManyConcurrentClientsAreAllAnsweredCorrectly) {
  auto options = Options();
  options.threads = 4;
  options.log_requests = false;
  Start(options);
  constexpr int kClients = 16;
  constexpr int kRequests = 200;
  std::atomic<int> correct{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      TestClient client(port());
      for (int i = 0; i < kRequests; ++i) {
        const std::string body = StrCat("client ", c, " request ", i);
        if (!client.Send(MakeRequest("POST", StrCat("/c/", c), body))) return;
        auto response = client.ReadResponse();
        if (!response) return;
        if (response->status == 200 && response->body == StrCat("POST /c/", c, "\n", body)) {
          ++correct;
        }
      }
    });
  }
  for (auto& thread : clients) thread.join();
  EXPECT_EQ(correct.load(), kClients * kRequests);
  EXPECT_EQ(handler_calls(), kClients * kRequests);
}

}  // namespace
}  // namespace skade::testing
