// Requests that may block run on the handler pool, apart from the I/O
// threads: reads are answered while every pool thread is held, a full pool
// answers 503 with Retry-After without calling the handler, pipelined
// requests stay in order across the two kinds of thread, and shutdown waits
// for the pool. Handlers block on a Gate the test opens, so nothing here
// depends on timing. HandlerPool itself is tested at the end.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "http/test_client.h"
#include "http/test_server.h"
#include "skade/rest/http/handler_pool_internal.h"
#include "skade/util/strings.h"
#include "testing/gate.h"
#include "testing/matchers.h"

namespace skade::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Millis = std::chrono::milliseconds;

// The fixture's handler, plus "/block?id=X": records X, then waits for the
// gate. With the default classification only non-safe methods reach the pool.
class HandlerPoolServerTest : public HttpServerTest {
 protected:
  rest::HttpServerOptions PoolOptions(int pool_threads, int queue_limit) {
    rest::HttpServerOptions options = Options();
    options.pool_threads = pool_threads;
    options.pool_queue_limit = queue_limit;
    return options;
  }

  void StartWithGate(rest::HttpServerOptions options) {
    auto server = rest::HttpServer::Start(std::move(options), [this](const rest::HttpRequest& r) {
      if (r.Path() == "/block") {
        {
          std::lock_guard lock(mutex_);
          blocked_.push_back(QueryParam(r.target, "id"));
        }
        ++entered_;
        gate_.Wait();
        rest::HttpResponse response;
        response.body = StrCat("done ", QueryParam(r.target, "id"));
        return response;
      }
      return Handle(r);
    });
    ASSERT_TRUE(server) << server.error().ToString();
    server_ = std::move(*server);
  }

  // Never leave a pool thread waiting: the server's destructor would wait.
  // Then stop the server before the gate and the records below are
  // destroyed (the base class's server_ would go after them).
  void TearDown() override {
    gate_.Open();
    server_.reset();
  }

  std::vector<std::string> blocked() {
    std::lock_guard lock(mutex_);
    return blocked_;
  }

  // A client with "POST /block?id=`id`" sent.
  std::unique_ptr<TestClient> SendBlocking(std::string_view id) {
    auto client = std::make_unique<TestClient>(port());
    EXPECT_TRUE(client->Send(MakeRequest("POST", StrCat("/block?id=", id), "{}")));
    return client;
  }

  // With one pool thread: "a" running (held at the gate), then "b" queued.
  std::pair<std::unique_ptr<TestClient>, std::unique_ptr<TestClient>> HoldOneQueueOne() {
    auto running = SendBlocking("a");
    WaitUntil([&] { return entered_ == 1; });
    auto waiting = SendBlocking("b");
    WaitUntil([&] { return server_->pool_pending() == 2; });
    return {std::move(running), std::move(waiting)};
  }

  static void ExpectDone(TestClient& client, std::string_view id) {
    auto response = client.ReadResponse();
    ASSERT_TRUE(response) << id;
    EXPECT_EQ(response->status, 200) << id;
    EXPECT_EQ(response->body, StrCat("done ", id));
  }

  Gate gate_;
  std::atomic<int> entered_{0};
  std::mutex mutex_;
  std::vector<std::string> blocked_;  // guarded by mutex_, in the order handlers started
};

TEST_F(HandlerPoolServerTest, ReadsAreAnsweredWhileEveryPoolThreadIsBlocked) {
  auto options = PoolOptions(2, 4);
  options.threads = 1;  // one I/O thread, and it is never lent to a commit
  StartWithGate(options);
  auto first = SendBlocking("a");
  auto second = SendBlocking("b");
  WaitUntil([&] { return entered_ == 2; });
  auto queued = SendBlocking("c");
  WaitUntil([&] { return server_->pool_pending() == 3; });

  for (int i = 0; i < 3; ++i) {
    TestClient reader(port());
    auto get = reader.Exchange(MakeRequest("GET", "/text"));
    ASSERT_TRUE(get) << i;
    EXPECT_EQ(get->status, 200);
    EXPECT_EQ(get->body, "hello");
    auto head = reader.Exchange(MakeRequest("HEAD", "/big?n=10"), /*head_request=*/true);
    ASSERT_TRUE(head) << i;
    EXPECT_EQ(head->status, 200);
    EXPECT_EQ(head->Header("content-length"), "10");
    auto options_request = reader.Exchange(MakeRequest("OPTIONS", "*"));
    ASSERT_TRUE(options_request) << i;
    EXPECT_EQ(options_request->status, 200);
  }
  EXPECT_EQ(server_->pool_pending(), 3u);  // no read went through the pool

  gate_.Open();
  ExpectDone(*first, "a");
  ExpectDone(*second, "b");
  ExpectDone(*queued, "c");
  WaitUntil([&] { return server_->pool_pending() == 0; });
}

TEST_F(HandlerPoolServerTest, FullPoolAnswers503WithRetryAfterAndQueuedRequestsRunInOrder) {
  StartWithGate(PoolOptions(1, 2));
  auto running = SendBlocking("a");
  WaitUntil([&] { return entered_ == 1; });
  auto waiting_b = SendBlocking("b");
  WaitUntil([&] { return server_->pool_pending() == 2; });
  auto waiting_c = SendBlocking("c");
  WaitUntil([&] { return server_->pool_pending() == 3; });

  TestClient refused(port());
  auto response = refused.Exchange(MakeRequest("POST", "/block?id=d", "{}"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->Header("retry-after"), "1");
  EXPECT_EQ(response->Header("content-type"), "application/json");
  EXPECT_THAT(response->body, HasSubstr(R"("type":"ServiceUnavailableException","code":503})"));
  EXPECT_THAT(response->body, ::testing::StartsWith(R"({"error":{"message":")"));
  // Nothing of the request was done, and the connection is still good: every
  // method that is not safe goes to the pool by default, the others do not.
  EXPECT_FALSE(response->HasHeader("connection"));
  for (const char* method : {"PUT", "DELETE", "PATCH", "POST"}) {
    auto write = refused.Exchange(MakeRequest(method, "/w", "{}"));
    ASSERT_TRUE(write) << method;
    EXPECT_EQ(write->status, 503) << method;
  }
  auto read = refused.Exchange(MakeRequest("GET", "/text"));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);

  gate_.Open();
  ExpectDone(*running, "a");
  ExpectDone(*waiting_b, "b");
  ExpectDone(*waiting_c, "c");
  EXPECT_THAT(blocked(), ElementsAre("a", "b", "c"));  // first come, first served; d never ran
  server_->Shutdown();  // the request log is complete once the responses are written
  int refusals_logged = 0;
  for (const std::string& line : logs_.Lines()) {
    refusals_logged += line.starts_with("ERROR http handler pool full (1 threads, 2 queued)");
  }
  EXPECT_EQ(refusals_logged, 1);  // not one per refusal
}

TEST_F(HandlerPoolServerTest, PipelinedReadsAndWritesAreAnsweredInOrder) {
  StartWithGate(PoolOptions(2, 4));
  TestClient client(port());
  std::string batch = MakeRequest("GET", "/g/0") + MakeRequest("POST", "/block?id=p1", "{}") +
                      MakeRequest("GET", "/g/2") + MakeRequest("HEAD", "/text") +
                      MakeRequest("POST", "/p/4", "four") + MakeRequest("GET", "/g/5") +
                      MakeRequest("DELETE", "/d/6");
  ASSERT_TRUE(client.Send(batch));
  auto first = client.ReadResponse();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "GET /g/0\n");
  WaitUntil([&] { return entered_ == 1; });
  gate_.Open();
  ExpectDone(client, "p1");
  auto third = client.ReadResponse();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->body, "GET /g/2\n");
  auto head = client.ReadResponse(/*head_request=*/true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->Header("content-length"), "5");
  auto fifth = client.ReadResponse();
  ASSERT_TRUE(fifth);
  EXPECT_EQ(fifth->body, "POST /p/4\nfour");
  auto sixth = client.ReadResponse();
  ASSERT_TRUE(sixth);
  EXPECT_EQ(sixth->body, "GET /g/5\n");
  auto seventh = client.ReadResponse();
  ASSERT_TRUE(seventh);
  EXPECT_EQ(seventh->body, "DELETE /d/6\n");
  EXPECT_EQ(client.pending(), "");
}

TEST_F(HandlerPoolServerTest, MayBlockPredicateDecidesWhereHandlersRun) {
  auto options = PoolOptions(1, 0);
  // A write that is known to be cheap stays on the I/O threads; a read that
  // is known to block goes to the pool.
  options.may_block = [](const rest::HttpRequest& request) {
    return request.Path() == "/block" || request.Path() == "/slow-read";
  };
  StartWithGate(options);
  auto running = SendBlocking("a");
  WaitUntil([&] { return entered_ == 1; });
  TestClient client(port());
  auto cheap_write = client.Exchange(MakeRequest("POST", "/token", "x"));
  ASSERT_TRUE(cheap_write);
  EXPECT_EQ(cheap_write->status, 200);
  EXPECT_EQ(cheap_write->body, "POST /token\nx");
  auto pooled_read = client.Exchange(MakeRequest("GET", "/slow-read"));
  ASSERT_TRUE(pooled_read);
  EXPECT_EQ(pooled_read->status, 503);
  gate_.Open();
  ExpectDone(*running, "a");
}

TEST_F(HandlerPoolServerTest, ShutdownAnswersPoolWorkUnderWayThenJoins) {
  StartWithGate(PoolOptions(1, 1));
  auto [running, waiting] = HoldOneQueueOne();

  std::thread shutdown([&] { server_->Shutdown(); });
  // Shutdown has begun once new connections are refused.
  WaitUntil([&] { return !TestClient(port()).connected(); });
  gate_.Open();
  for (auto* client : {running.get(), waiting.get()}) {
    auto response = client->ReadResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->Header("connection"), "close");
    EXPECT_TRUE(client->WaitForClose(Millis(10'000)));
  }
  shutdown.join();
  EXPECT_THAT(blocked(), ElementsAre("a", "b"));
  EXPECT_EQ(server_->pool_pending(), 0u);
}

TEST_F(HandlerPoolServerTest, ShutdownPastItsDrainDropsQueuedRequestsUnrun) {
  auto options = PoolOptions(1, 1);
  options.shutdown_timeout_ms = 100;
  StartWithGate(options);
  auto [running, waiting] = HoldOneQueueOne();

  std::thread shutdown([&] { server_->Shutdown(); });
  // Past the drain both connections are closed, the running handler's too;
  // the one still queued must then not run.
  EXPECT_TRUE(waiting->WaitForClose(Millis(10'000)));
  EXPECT_TRUE(running->WaitForClose(Millis(10'000)));
  gate_.Open();
  shutdown.join();
  EXPECT_THAT(blocked(), ElementsAre("a"));
  EXPECT_EQ(running->pending(), "");  // its response was dropped with the connection
  EXPECT_EQ(waiting->pending(), "");
  EXPECT_EQ(server_->pool_pending(), 0u);
}

TEST_F(HandlerPoolServerTest, ThrowingHandlerOnThePoolIs500) {
  StartWithGate(PoolOptions(1, 0));
  TestClient client(port());
  auto response = client.Exchange(MakeRequest("POST", "/throw", "{}"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 500);
  EXPECT_THAT(response->body, Not(HasSubstr("secret")));
  auto next = client.Exchange(MakeRequest("POST", "/p", "ok"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "POST /p\nok");
}

TEST_F(HandlerPoolServerTest, InvalidPoolOptionsAreRejected) {
  auto handler = [](const rest::HttpRequest&) { return rest::HttpResponse{}; };
  EXPECT_THAT(rest::HttpServer::Start(PoolOptions(0, 1), handler),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(rest::HttpServer::Start(PoolOptions(1, -1), handler),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(rest::HttpServer::Start(PoolOptions(1, 0), handler), IsOk());
}

// Regression: a request's place in the pool was freed only after its response
// had been posted back, so a client that sent its next write as soon as it
// had the answer could find the pool still full (a 503 with nothing queued).
TEST_F(HandlerPoolServerTest, OneClientsSequentialWritesAreNeverRefused) {
  StartWithGate(PoolOptions(1, 0));
  TestClient client(port());
  for (int i = 0; i < 200; ++i) {
    auto response = client.Exchange(MakeRequest("POST", StrCat("/w/", i), "x"));
    ASSERT_TRUE(response) << i;
    ASSERT_EQ(response->status, 200) << i << ": " << response->body;
  }
}

// --- HandlerPool ----------------------------------------------------------

using rest::http_internal::HandlerPool;

TEST(HandlerPoolTest, RefusesBeyondThreadsPlusQueueAndRunsInOrder) {
  HandlerPool pool(1, 2);
  ASSERT_TRUE(pool.Start());
  Gate gate;
  std::latch started(1);
  std::mutex mutex;
  std::vector<int> order;
  auto work = [&](int i) {
    return [&, i] {
      if (i == 0) {
        started.count_down();
        gate.Wait();
      }
      std::lock_guard lock(mutex);
      order.push_back(i);
    };
  };
  auto nothing = [] {};
  ASSERT_TRUE(pool.TrySubmit(work(0), nothing));
  started.wait();
  EXPECT_TRUE(pool.TrySubmit(work(1), nothing));
  EXPECT_TRUE(pool.TrySubmit(work(2), nothing));
  EXPECT_EQ(pool.pending(), 3u);
  EXPECT_FALSE(pool.TrySubmit(work(3), nothing));
  gate.Open();
  pool.Stop();
  EXPECT_THAT(order, ElementsAre(0, 1, 2));
  EXPECT_EQ(pool.pending(), 0u);
}

TEST(HandlerPoolTest, ThenRunsOnceTheTasksPlaceIsFree) {
  HandlerPool pool(1, 0);
  ASSERT_TRUE(pool.Start());
  std::latch done(1);
  bool resubmitted = false;
  ASSERT_TRUE(pool.TrySubmit([] {},
                             [&] {
                               resubmitted = pool.TrySubmit([] {}, [] {});
                               done.count_down();
                             }));
  done.wait();
  pool.Stop();
  EXPECT_TRUE(resubmitted);
}

TEST(HandlerPoolTest, StopRunsWhatWasAcceptedAndRefusesMore) {
  HandlerPool pool(2, 100);
  ASSERT_TRUE(pool.Start());
  std::atomic<int> ran{0};
  std::atomic<int> then_ran{0};
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(pool.TrySubmit([&] { ++ran; }, [&] { ++then_ran; }));
  pool.Stop();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_EQ(then_ran.load(), 50);
  EXPECT_FALSE(pool.TrySubmit([&] { ++ran; }, [] {}));
  pool.Stop();  // idempotent
  EXPECT_EQ(ran.load(), 50);
}

}  // namespace
}  // namespace skade::testing
