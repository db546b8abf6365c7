// Request ids, the per-request record (on_request) and the request log in both
// formats, over real sockets: which id a request gets and that every answer
// carries it, the transport's own error answers included; that a JSON log line
// stays valid JSON whatever the client sends; that no header value, query or
// body reaches the log.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "http/test_client.h"
#include "http/test_server.h"
#include "skade/rest/http/utf8.h"
#include "skade/util/json_reader.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"

namespace skade::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

/// A RequestRecord that outlives the callback.
struct Recorded {
  std::string method, path, route, request_id, error;
  int status = 0;
  int64_t duration_us = -1;
  uint64_t request_body_bytes = 0, response_body_bytes = 0;
};

class RequestLogTest : public HttpServerTest {
 protected:
  // The server records a response after its client has read it: stopped
  // before the records below are destroyed (the base class's server_ would
  // go after them, while a handler thread may still be recording).
  void TearDown() override { server_.reset(); }

  rest::HttpServerOptions Options(rest::HttpLogFormat format = rest::HttpLogFormat::kText) {
    auto options = HttpServerTest::Options();
    options.log_format = format;
    options.on_request = [this](const rest::RequestRecord& r) {
      std::lock_guard lock(mutex_);
      records_.push_back({std::string(r.method), std::string(r.path), std::string(r.route),
                          std::string(r.request_id), std::string(r.error), r.status, r.duration_us,
                          r.request_body_bytes, r.response_body_bytes});
    };
    return options;
  }

  /// The records so far; call after server_->Shutdown(), which waits for the
  /// responses under way to be written and recorded.
  std::vector<Recorded> Records() {
    std::lock_guard lock(mutex_);
    return records_;
  }

  /// One request on `client` with `headers` (each ending in CRLF). The
  /// requests of one connection are recorded and logged in order.
  static ParsedResponse Get(TestClient& client, std::string_view target,
                            std::string_view headers = "") {
    auto response = client.Exchange(MakeRequest("GET", target, "", headers));
    EXPECT_TRUE(response) << target;
    return response.value_or(ParsedResponse{});
  }
  /// The same on a new connection.
  ParsedResponse Get(std::string_view target, std::string_view headers = "") {
    TestClient client(port());
    return Get(client, target, headers);
  }

  /// The record with `request_id`; records of different connections come in
  /// no set order. Fails the test if there is not exactly one.
  Recorded RecordFor(const std::vector<Recorded>& records, std::string_view request_id) {
    const Recorded* found = nullptr;
    int count = 0;
    for (const Recorded& record : records) {
      if (record.request_id == request_id) found = &record, ++count;
    }
    EXPECT_EQ(count, 1) << request_id;
    return found ? *found : Recorded{};
  }

  /// How many X-Request-ID fields `response` has.
  static int RequestIdFields(const ParsedResponse& response) {
    int count = 0;
    for (const auto& [name, value] : response.headers) count += name == "x-request-id";
    return count;
  }

  std::mutex mutex_;
  std::vector<Recorded> records_;
  simdjson::dom::parser parser_;
};

TEST_F(RequestLogTest, PlausibleClientIdIsKeptAndEchoed) {
  Start(Options());
  const std::string longest(128, 'x');
  for (const std::string& id : {std::string("abc-123"), std::string("A.b_c:d-9"), longest}) {
    auto response = Get("/request-id", StrCat("X-Request-ID: ", id, "\r\n"));
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, id);  // what the handler saw
    EXPECT_EQ(response.Header("x-request-id"), id);
    EXPECT_EQ(RequestIdFields(response), 1);  // the handler's "forged" is dropped
  }
}

TEST_F(RequestLogTest, ImplausibleClientIdIsReplaced) {
  Start(Options());
  const std::vector<std::string> bad = {
      std::string(129, 'x'),           // too long
      "has space",                     // not in the alphabet
      "a\"},\"status\":200,\"x\":\"",  // a JSON log line breakout
      "a%0d%0aSet-Cookie:x",           // encoded CRLF: '%' is not in the alphabet
      "caf\xc3\xa9",                   // non-ASCII
      "a/b",                           //
      "a;b=c",                         //
  };
  for (const std::string& id : bad) {
    auto response = Get("/request-id", StrCat("X-Request-ID: ", id, "\r\n"));
    ASSERT_EQ(response.status, 200) << id;
    EXPECT_TRUE(IsUuid(response.Header("x-request-id"))) << id;
    EXPECT_EQ(response.body, response.Header("x-request-id")) << id;
    EXPECT_FALSE(response.HasHeader("set-cookie"));
  }
  // An empty value is no id either.
  auto empty = Get("/request-id", "X-Request-ID:\r\n");
  EXPECT_TRUE(IsUuid(empty.Header("x-request-id")));
}

TEST_F(RequestLogTest, MissingIdIsGeneratedFreshForEachRequest) {
  Start(Options());
  TestClient client(port());
  auto first = client.Exchange(MakeRequest("GET", "/request-id"));
  auto second = client.Exchange(MakeRequest("GET", "/request-id"));
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(IsUuid(first->Header("x-request-id")));
  EXPECT_TRUE(IsUuid(second->Header("x-request-id")));
  EXPECT_NE(first->Header("x-request-id"), second->Header("x-request-id"));
  EXPECT_EQ(first->body, first->Header("x-request-id"));
  // HEAD and 204 answers carry it too.
  auto head = client.Exchange(MakeRequest("HEAD", "/text"), /*head_request=*/true);
  auto no_content = client.Exchange(MakeRequest("GET", "/no-content", "", "X-Request-ID: nc\r\n"));
  ASSERT_TRUE(head && no_content);
  EXPECT_TRUE(IsUuid(head->Header("x-request-id")));
  EXPECT_EQ(no_content->Header("x-request-id"), "nc");
}

TEST_F(RequestLogTest, TransportErrorsCarryTheRequestId) {
  auto options = Options();
  options.max_body_bytes = 100;
  options.max_header_bytes = 1024;
  Start(options);
  struct Case {
    std::string request;
    int status;
    std::string id;  // expected; "" for a generated one
  };
  const std::vector<Case> cases = {
      // The header was read: the client's id stands.
      {"POST /a HTTP/1.1\r\nHost: t\r\nX-Request-ID: big-1\r\nContent-Length: 101\r\n\r\n", 413,
       "big-1"},
      {"POST /a HTTP/1.1\r\nHost: t\r\nX-Request-ID: dup-1\r\nContent-Length: 1\r\n"
       "Content-Length: 1\r\n\r\nx",
       400, "dup-1"},
      {"GET /a HTTP/1.1\r\nX-Request-ID: nohost-1\r\n\r\n", 400, "nohost-1"},
      {"BREW /a HTTP/1.1\r\nHost: t\r\n\r\n", 405, ""},
      // Nothing readable, or an id smuggled in by line folding: a new one.
      {"GET /a HTTP/9.9\r\nHost: t\r\n\r\n", 400, ""},
      {"GET /a HTTP/1.1\r\nHost: t\r\nX-Request-ID: good\r\n X-Injected: 1\r\n\r\n", 400, ""},
      {StrCat("GET /a HTTP/1.1\r\nHost: t\r\nX-Big: ", std::string(2000, 'b'), "\r\n\r\n"), 431,
       ""},
  };
  std::vector<std::string> ids;  // each answer's X-Request-ID
  for (const Case& c : cases) {
    TestClient client(port());
    auto response = client.Exchange(c.request);
    ASSERT_TRUE(response) << c.request;
    EXPECT_EQ(response->status, c.status) << c.request;
    EXPECT_EQ(RequestIdFields(*response), 1) << c.request;
    if (c.id.empty()) {
      EXPECT_TRUE(IsUuid(response->Header("x-request-id"))) << c.request;
    } else {
      EXPECT_EQ(response->Header("x-request-id"), c.id) << c.request;
    }
    EXPECT_FALSE(response->HasHeader("x-injected"));
    ids.push_back(response->Header("x-request-id"));
  }
  // A handler that throws, or answers something invalid: 500, id kept.
  for (const char* path : {"/throw", "/bad-status"}) {
    const std::string id = StrCat("five-hundred-", path + 1);
    auto response = Get(path, StrCat("X-Request-ID: ", id, "\r\n"));
    EXPECT_EQ(response.status, 500) << path;
    EXPECT_EQ(response.Header("x-request-id"), id) << path;
  }
  EXPECT_EQ(handler_calls(), 2);

  server_->Shutdown();
  const auto records = Records();
  ASSERT_EQ(records.size(), cases.size() + 2);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Recorded record = RecordFor(records, ids[i]);
    EXPECT_EQ(record.status, cases[i].status) << i;
    EXPECT_FALSE(record.error.empty()) << i;  // the rejection's message
  }
  EXPECT_EQ(RecordFor(records, ids[0]).error, "Request body too large");
  EXPECT_EQ(RecordFor(records, ids[0]).path, "/a");
  EXPECT_EQ(RecordFor(records, ids[4]).method, "-");  // the request line did not parse
  EXPECT_EQ(RecordFor(records, ids[4]).path, "-");
  EXPECT_EQ(RecordFor(records, "five-hundred-throw").error,
            "handler threw: secret internal detail");
  EXPECT_EQ(RecordFor(records, "five-hundred-bad-status").error,
            "invalid response from the handler");
}

TEST_F(RequestLogTest, RecordHasRouteStatusSizesAndNoQuery) {
  Start(Options());
  TestClient client(port());
  auto ok = client.Exchange(MakeRequest("POST", "/routed?token=q-secret", "12345"));
  auto missing =
      client.Exchange(MakeRequest("GET", "/routed?status=404", "", "X-Request-ID: missing-1\r\n"));
  auto echo = client.Exchange(MakeRequest("GET", "/plain"));
  ASSERT_TRUE(ok && missing && echo);
  server_->Shutdown();
  const auto records = Records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].method, "POST");
  EXPECT_EQ(records[0].path, "/routed");
  EXPECT_EQ(records[0].route, "test/routed/{id}");
  EXPECT_EQ(records[0].status, 200);
  EXPECT_EQ(records[0].request_body_bytes, 5u);
  EXPECT_EQ(records[0].request_id, ok->Header("x-request-id"));
  EXPECT_EQ(records[0].error, "");
  EXPECT_GE(records[0].duration_us, 0);
  EXPECT_EQ(records[1].status, 404);
  EXPECT_EQ(records[1].route, "test/routed/{id}");
  EXPECT_EQ(records[1].request_id, "missing-1");
  EXPECT_EQ(records[1].error, kRoutedError);
  EXPECT_EQ(records[2].route, "");  // the echo handler names no route
  EXPECT_EQ(records[2].response_body_bytes, echo->body.size());
}

TEST_F(RequestLogTest, ConnectionTurnedAwayAtTheLimitGetsAnIdAndIsRecorded) {
  auto options = Options();
  options.max_connections = 1;
  Start(options);
  TestClient admitted(port());
  ASSERT_TRUE(admitted.Exchange(MakeRequest("GET", "/text")));  // now surely counted
  TestClient refused(port());
  auto response = refused.ReadResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_TRUE(IsUuid(response->Header("x-request-id")));
  server_->Shutdown();
  const auto records = Records();
  ASSERT_EQ(records.size(), 2u);
  const Recorded refusal = RecordFor(records, response->Header("x-request-id"));
  EXPECT_EQ(refusal.status, 503);
  EXPECT_EQ(refusal.method, "-");
  EXPECT_EQ(refusal.path, "-");
  EXPECT_EQ(refusal.error, "Too many connections; retry later");
  // Not in the request log: only the periodic error line says so.
  for (const auto& line : logs_.Lines()) EXPECT_THAT(line, Not(HasSubstr(" 503 ")));
}

TEST_F(RequestLogTest, TextLineHasIdRouteAndQuotedError) {
  Start(Options());
  TestClient client(port());
  Get(client, "/routed?status=409", "X-Request-ID: text-1\r\n");
  Get(client, "/routed", "X-Request-ID: text-2\r\n");
  Get(client, "/throw", "X-Request-ID: text-3\r\n");
  server_->Shutdown();
  std::vector<std::string> requests;
  for (const auto& line : logs_.Lines()) {
    if (line.find(" request_id=") != std::string::npos) requests.push_back(line);
  }
  ASSERT_EQ(requests.size(), 3u);
  // The error as a JSON string: the newline and control byte escaped, so
  // client text cannot start a forged line.
  EXPECT_EQ(requests[0].find('\n'), std::string::npos);
  EXPECT_THAT(requests[0],
              MatchesRegex(
                  R"(INFO http GET /routed 409 [0-9]+us request_id=text-1 )"
                  R"(route=test/routed/\{id\} error="routed \\"failure\\"\\\\\\n\\u0001 .* end")"));
  EXPECT_THAT(
      requests[1],
      MatchesRegex(
          R"(INFO http GET /routed 200 [0-9]+us request_id=text-2 route=test/routed/\{id\})"));
  EXPECT_THAT(requests[2], MatchesRegex(R"(ERROR http GET /throw 500 [0-9]+us request_id=text-3 )"
                                        R"(error="handler threw: secret internal detail")"));
}

TEST_F(RequestLogTest, JsonLinesStayValidWithHostilePathsAndErrors) {
  Start(Options(rest::HttpLogFormat::kJson));
  // Bytes a request-target may hold: quotes, backslashes, braces, invalid
  // UTF-8 (a lone continuation byte, a truncated sequence, an overlong form).
  const std::vector<std::string> paths = {"/a\"b\\c",          "/\"},\"status\":200,\"x\":{\"",
                                          "/\x80\xff",         "/caf\xc3",
                                          "/\xc0\xaf",         "/%00%0a",
                                          "/\xe2\x82\xac-euro"};
  TestClient client(port());
  for (const std::string& path : paths) Get(client, path);
  Get(client, "/routed?status=418", "X-Request-ID: json-err\r\n");
  Get(client, "/throw");
  ASSERT_TRUE(client.Exchange("GET /a HTTP/9.9\r\nHost: t\r\n\r\n"));  // a transport 400
  server_->Shutdown();

  std::vector<std::string> logged_paths;
  int errors = 0;
  bool saw_routed = false, saw_throw = false, saw_400 = false;
  for (const std::string& line : logs_.Lines()) {
    auto element = json::Parse(parser_, line);
    ASSERT_TRUE(element) << "not JSON: " << line;
    auto object = json::AsObject(*element, "line");
    ASSERT_TRUE(object);
    auto ts = json::GetString(*object, "ts");
    ASSERT_TRUE(ts) << line;
    EXPECT_THAT(*ts, MatchesRegex(R"(20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:)"
                                  R"([0-6][0-9]\.[0-9][0-9][0-9]Z)"));
    auto level = *json::GetString(*object, "level");
    const std::string msg = *json::GetString(*object, "msg");
    if (msg != "request") {
      EXPECT_EQ(level, "error") << line;  // the transport's own notice of the throw
      ++errors;
      continue;
    }
    const std::string path = *json::GetString(*object, "path");
    const int64_t status = *json::GetInt64(*object, "status");
    const std::string id = *json::GetString(*object, "request_id");
    EXPECT_FALSE(id.empty());
    EXPECT_TRUE(json::Has(*object, "duration_ms")) << line;
    EXPECT_TRUE(json::GetInt64(*object, "request_bytes")) << line;
    EXPECT_TRUE(json::GetInt64(*object, "response_bytes")) << line;
    EXPECT_EQ(level, status >= 500 ? "error" : "info") << line;
    if (path == "/routed") {
      saw_routed = true;
      EXPECT_EQ(id, "json-err");
      EXPECT_EQ(status, 418);
      EXPECT_EQ(*json::GetString(*object, "route"), "test/routed/{id}");
      EXPECT_EQ(*json::GetString(*object, "error"), rest::ToValidUtf8(kRoutedError));
    } else if (path == "/throw") {
      saw_throw = true;
      EXPECT_EQ(*json::GetString(*object, "error"), "handler threw: secret internal detail");
      EXPECT_FALSE(json::Has(*object, "route"));
    } else if (status == 400) {
      saw_400 = true;
      EXPECT_EQ(path, "-");
      EXPECT_TRUE(json::GetString(*object, "error"));
    } else {
      EXPECT_EQ(status, 200) << line;
      EXPECT_FALSE(json::Has(*object, "error")) << line;  // only when there is one
      logged_paths.push_back(path);
    }
  }
  EXPECT_TRUE(saw_routed && saw_throw && saw_400);
  EXPECT_EQ(errors, 1);
  std::vector<std::string> expected;
  for (const std::string& path : paths) expected.push_back(rest::ToValidUtf8(path));
  EXPECT_EQ(logged_paths, expected);  // valid UTF-8 unchanged, the rest with U+FFFD
}

TEST_F(RequestLogTest, NoHeaderValueQueryOrBodyIsLogged) {
  for (auto format : {rest::HttpLogFormat::kText, rest::HttpLogFormat::kJson}) {
    LogCapture logs;
    auto options = Options(format);
    options.log_sink = logs.Sink();
    Start(options);
    const std::string secrets_headers =
        "Authorization: Bearer SECRET-bearer-1234\r\n"
        "X-Iceberg-Access-Delegation: SECRET-delegation\r\n"
        "Cookie: session=SECRET-cookie\r\n";
    {
      TestClient client(port());
      ASSERT_TRUE(
          client.Exchange(MakeRequest("POST", "/v1/x?token=SECRET-query&credential=SECRET-q2",
                                      "client_secret=SECRET-body", secrets_headers)));
      ASSERT_TRUE(client.Exchange(
          MakeRequest("GET", "/routed?status=401&token=SECRET-query", "", secrets_headers)));
      // A rejected request with its secrets in a header too long to keep.
      ASSERT_TRUE(client.Exchange(
          MakeRequest("GET", "/v1/x?token=SECRET-query", "",
                      StrCat(secrets_headers, "X-Pad: ", std::string(20'000, 'p'), "\r\n"))));
    }
    server_->Shutdown();
    const auto lines = logs.Lines();
    EXPECT_EQ(lines.size(), 3u);
    for (const std::string& line : lines) {
      EXPECT_THAT(line, Not(HasSubstr("SECRET"))) << line;
      EXPECT_THAT(line, Not(HasSubstr("token="))) << line;
    }
    server_.reset();
  }
}

}  // namespace
}  // namespace skade::testing
