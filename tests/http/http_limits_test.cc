// HttpServer resource bounds over real sockets: the connection cap, the
// whole-request deadline, and the bounded shutdown drain.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/test_client.h"
#include "http/test_server.h"
#include "skade/util/strings.h"
#include "testing/gate.h"

namespace skade::testing {
namespace {

using Millis = std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

Millis Since(Clock::time_point start) {
  return std::chrono::duration_cast<Millis>(Clock::now() - start);
}

// A client the server has accepted and answered once (so it holds a slot).
std::unique_ptr<TestClient> Served(uint16_t port) {
  auto client = std::make_unique<TestClient>(port);
  if (!client->Send(MakeRequest("GET", "/held"))) return nullptr;
  auto response = client->ReadResponse();
  if (!response || response->status != 200) return nullptr;
  return client;
}

TEST_F(HttpServerTest, ConnectionsBeyondTheLimitGet503AndAreClosed) {
  auto options = Options();
  options.max_connections = 2;
  Start(options);
  auto first = Served(port());
  auto second = Served(port());
  ASSERT_TRUE(first && second);

  TestClient refused(port());
  ASSERT_TRUE(refused.connected());  // accepted by the kernel and by the server
  EXPECT_TRUE(refused.WaitForClose(Millis(5000)));
  EXPECT_EQ(refused.pending().rfind("HTTP/1.1 503 ", 0), 0u) << refused.pending();
  EXPECT_NE(refused.pending().find("ServiceUnavailableException"), std::string::npos);

  // The held connections are unaffected, and a freed slot is reused.
  auto response = first->Exchange(MakeRequest("GET", "/still"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  first.reset();
  std::unique_ptr<TestClient> later;
  for (const auto start = Clock::now(); !later && Since(start) < Millis(5000);) {
    later = Served(port());
    if (!later) std::this_thread::sleep_for(Millis(20));
  }
  EXPECT_TRUE(later);
}

TEST_F(HttpServerTest, ConnectionLimitStaysBelowTheFileDescriptorLimit) {
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit lowered = saved;
  lowered.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 1000);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  auto options = Options();
  options.max_connections = 1'000'000;
  Start(options);
  ::setrlimit(RLIMIT_NOFILE, &saved);
  EXPECT_GE(server_->max_connections(), 1);
  EXPECT_LT(server_->max_connections(), static_cast<int>(lowered.rlim_cur));
}

TEST_F(HttpServerTest, InvalidConnectionLimitIsRejected) {
  auto options = Options();
  options.max_connections = 0;
  EXPECT_FALSE(rest::HttpServer::Start(
      options, [](const rest::HttpRequest&) { return rest::HttpResponse{}; }));
}

// The header and body deadlines each allow more; the request as a whole does not.
TEST_F(HttpServerTest, TrickledRequestIsCutOffAtRequestTimeout) {
  auto options = Options();
  options.request_timeout_ms = 400;
  Start(options);
  TestClient client(port());
  const auto start = Clock::now();
  ASSERT_TRUE(client.Send("POST / HTTP/1.1\r\nHost: t\r\n"));
  std::this_thread::sleep_for(Millis(200));
  ASSERT_TRUE(client.Send("Content-Length: 1000\r\n\r\n"));
  bool closed = false;
  while (!closed && Since(start) < Millis(5000)) {
    client.Send("x");
    closed = client.WaitForClose(Millis(50));
  }
  EXPECT_TRUE(closed);
  EXPECT_GE(Since(start), Millis(350));
  EXPECT_LT(Since(start), Millis(3000));
  EXPECT_EQ(handler_calls(), 0);
}

// Regression: Shutdown() waited for every half-received request until its
// own header/body timeout, however long that was.
TEST_F(HttpServerTest, ShutdownDrainIsBoundedByShutdownTimeout) {
  auto options = Options();
  options.header_timeout_ms = 60'000;
  options.body_timeout_ms = 60'000;
  options.request_timeout_ms = 120'000;
  options.shutdown_timeout_ms = 300;
  Start(options);
  TestClient half_header(port());
  ASSERT_TRUE(half_header.Send("GET /a HTTP/1.1\r\nHost: t\r\n"));
  TestClient half_body(port());
  ASSERT_TRUE(half_body.Send("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc"));
  // Both accepted (however busy the machine), then read.
  skade::testing::WaitUntil([&] { return server_->open_connections() == 2; });
  std::this_thread::sleep_for(Millis(100));

  const auto start = Clock::now();
  server_->Shutdown();
  EXPECT_GE(Since(start), Millis(250));  // it did wait for them, for a while
  EXPECT_LT(Since(start), Millis(10'000));
  EXPECT_TRUE(half_header.WaitForClose(Millis(3000)));
  EXPECT_TRUE(half_body.WaitForClose(Millis(3000)));
  EXPECT_EQ(handler_calls(), 0);
}

TEST_F(HttpServerTest, ShutdownStillFinishesRequestsWithinTheDrainTime) {
  auto options = Options();
  options.shutdown_timeout_ms = 5'000;
  Start(options);
  TestClient busy(port());
  ASSERT_TRUE(busy.Send(MakeRequest("GET", "/slow?ms=300")));
  while (handler_calls() < 1) std::this_thread::sleep_for(Millis(1));
  server_->Shutdown();
  auto response = busy.ReadResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
}

}  // namespace
}  // namespace skade::testing
