// What the transport refuses before any handler runs: oversized requests,
// ambiguous framing (request smuggling), malformed syntax, unsupported
// methods, and random garbage.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "http/test_client.h"
#include "http/test_server.h"
#include "skade/util/strings.h"

namespace skade::testing {
namespace {

using ::testing::HasSubstr;
using std::string_literals::operator""s;
using Millis = std::chrono::milliseconds;

// Sends `request` on a new connection and expects the transport's error
// response with `status` and `type`, followed by the connection closing.
void ExpectRejected(uint16_t port, std::string_view request, int status, std::string_view type) {
  TestClient client(port);
  auto response = client.Exchange(request);
  ASSERT_TRUE(response) << "no response to: " << request;
  EXPECT_EQ(response->status, status) << response->body;
  EXPECT_EQ(response->Header("content-type"), "application/json");
  EXPECT_EQ(response->Header("connection"), "close");
  EXPECT_THAT(response->body, HasSubstr(StrCat(R"({"error":{"message":")")));
  EXPECT_THAT(response->body,
              HasSubstr(StrCat(R"(","type":")", type, R"(","code":)", status, "}}")));
  EXPECT_TRUE(client.WaitForClose(Millis(5000)));
}

class RequestValidationTest : public HttpServerTest {
 protected:
  void SetUp() override {
    auto options = Options();
    options.max_header_bytes = 1024;
    options.max_body_bytes = 1024;
    Start(options);
  }
};

// --- Limits ---------------------------------------------------------------

TEST_F(RequestValidationTest, ContentLengthOverLimitIs413BeforeTheBodyIsSent) {
  // No body bytes follow: the answer must come from the header alone.
  ExpectRejected(port(), "POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 1025\r\n\r\n", 413,
                 "RequestTooLargeException");
  ExpectRejected(port(),
                 "POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999\r\n\r\n",
                 400, "BadRequestException");  // does not even fit 64 bits
  EXPECT_EQ(handler_calls(), 0);
}

TEST_F(RequestValidationTest, RejectionSurvivesTheRestOfAnOversizedUpload) {
  // The client sends everything before reading: the server must not reset the
  // connection (closing with unread input) before the 413 is read.
  TestClient client(port());
  const std::string body(16 * 1024 * 1024, 'u');  // more than socket buffers hold
  ASSERT_TRUE(client.Send(
      StrCat("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: ", body.size(), "\r\n\r\n", body)));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 413);
  EXPECT_TRUE(client.WaitForClose(Millis(5000)));
}

TEST_F(RequestValidationTest, BodyAtLimitIsAccepted) {
  TestClient client(port());
  const std::string body(1024, 'b');
  auto response = client.Exchange(MakeRequest("POST", "/up", body));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "POST /up\n" + body);
}

TEST_F(RequestValidationTest, ChunkedBodyOverLimitIs413AsChunksArrive) {
  const std::string chunk(600, 'c');
  ExpectRejected(port(),
                 StrCat("POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n",
                        "258\r\n", chunk, "\r\n258\r\n", chunk, "\r\n0\r\n\r\n"),
                 413, "RequestTooLargeException");
  EXPECT_EQ(handler_calls(), 0);
}

// Beast holds a chunk's size line and the trailer until they end: one that
// never ends must be refused once it passes the header limit, not buffered
// until the request deadline (no handler runs).
TEST_F(RequestValidationTest, EndlessChunkSizeLineOrTrailerIs400) {
  const std::string head = "POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string endless(8 * 1024, 'a');
  ExpectRejected(port(), StrCat(head, "1;", endless), 400, "BadRequestException");
  TestClient client(port());
  auto response = client.Exchange(StrCat(head, "1\r\nx\r\n0\r\nX-Trailer: ", endless));
  ASSERT_TRUE(response);
  EXPECT_THAT(response->status, ::testing::AnyOf(400, 431)) << response->body;
  EXPECT_TRUE(client.WaitForClose(Millis(5000)));
  EXPECT_EQ(handler_calls(), 0);
}

TEST_F(RequestValidationTest, ExpectContinueOverLimitIs413WithoutInterimResponse) {
  ExpectRejected(
      port(), "PUT /up HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n",
      413, "RequestTooLargeException");
}

// A GET whose header section is exactly `size` bytes.
std::string RequestOfHeaderSize(size_t size) {
  const std::string prefix = "GET /h HTTP/1.1\r\nHost: t\r\nX-Pad: ";
  const std::string suffix = "\r\n\r\n";
  return prefix + std::string(size - prefix.size() - suffix.size(), 'p') + suffix;
}

TEST_F(RequestValidationTest, HeaderOverLimitIs431) {
  ExpectRejected(port(), RequestOfHeaderSize(1025), 431, "RequestHeaderFieldsTooLargeException");
  ExpectRejected(port(), RequestOfHeaderSize(5000), 431, "RequestHeaderFieldsTooLargeException");
  EXPECT_EQ(handler_calls(), 0);
}

TEST_F(RequestValidationTest, HeaderLimitIsExactWhetherSentAtOnceOrInPieces) {
  for (bool in_pieces : {false, true}) {
    SCOPED_TRACE(in_pieces ? "in pieces" : "at once");
    for (size_t size : {size_t{1024}, size_t{1025}}) {
      const std::string request = RequestOfHeaderSize(size);
      TestClient client(port());
      if (in_pieces) {
        // Complete fields first, then the rest: the parser consumes the first
        // part before it sees the end of the header.
        const size_t split = request.find("X-Pad");
        ASSERT_TRUE(client.Send(request.substr(0, split)));
        std::this_thread::sleep_for(Millis(30));
        ASSERT_TRUE(client.Send(request.substr(split)));
      } else {
        ASSERT_TRUE(client.Send(request));
      }
      auto response = client.ReadResponse();
      ASSERT_TRUE(response);
      EXPECT_EQ(response->status, size <= 1024 ? 200 : 431) << size;
    }
  }
}

TEST_F(RequestValidationTest, HeaderLimitAppliesPerRequest) {
  TestClient client(port());
  std::string batch;
  for (int i = 0; i < 50; ++i) batch += RequestOfHeaderSize(1000);  // 50 KB in total
  ASSERT_TRUE(client.Send(batch));
  for (int i = 0; i < 50; ++i) {
    auto response = client.ReadResponse();
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->status, 200) << i;
  }
}

TEST_F(RequestValidationTest, OneEmptyLineBeforeARequestIsIgnored) {
  // RFC 9112, 2.2: some clients end a body with a CRLF its length does not
  // count, which then comes before the next request line.
  const std::string get = "GET /h HTTP/1.1\r\nHost: t\r\n\r\n";
  TestClient client(port());
  ASSERT_TRUE(client.Send(StrCat("\r\n", get, "\r\n", get, "\n", get)));
  for (int i = 0; i < 3; ++i) {
    auto response = client.ReadResponse();
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->status, 200) << i;
  }
  // A CRLF cut in two by the network is still one empty line.
  ASSERT_TRUE(client.Send("\r"));
  std::this_thread::sleep_for(Millis(30));
  auto split = client.Exchange(StrCat("\n", get));
  ASSERT_TRUE(split);
  EXPECT_EQ(split->status, 200);
  // One, not any number: a stream of empty lines is no request.
  ExpectRejected(port(), StrCat("\r\n\r\n", get), 400, "BadRequestException");
}

// --- Framing that could smuggle a request, and other malformed input ------

struct BadRequest {
  const char* name;
  std::string request;
};

void PrintTo(const BadRequest& bad, std::ostream* out) { *out << bad.name; }

class SmugglingTest : public RequestValidationTest,
                      public ::testing::WithParamInterface<BadRequest> {};

TEST_P(SmugglingTest, IsRejectedWith400AndClose) {
  ExpectRejected(port(), GetParam().request, 400, "BadRequestException");
  EXPECT_EQ(handler_calls(), 0);
}

std::string Post(std::string_view headers, std::string_view body = "0\r\n\r\n") {
  return StrCat("POST /s HTTP/1.1\r\nHost: t\r\n", headers, "\r\n", body);
}

INSTANTIATE_TEST_SUITE_P(
    Framing, SmugglingTest,
    ::testing::Values(
        BadRequest{"ContentLengthThenChunked",
                   Post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n")},
        BadRequest{"ChunkedThenContentLength",
                   Post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n")},
        BadRequest{"GzipThenContentLength",
                   Post("Transfer-Encoding: gzip\r\nContent-Length: 5\r\n", "hello")},
        BadRequest{"DifferingContentLengths",
                   Post("Content-Length: 5\r\nContent-Length: 6\r\n", "hello!")},
        BadRequest{"RepeatedContentLength",
                   Post("Content-Length: 5\r\nContent-Length: 5\r\n", "hello")},
        BadRequest{"ContentLengthList", Post("Content-Length: 5, 5\r\n", "hello")},
        BadRequest{"NegativeContentLength", Post("Content-Length: -1\r\n")},
        BadRequest{"SignedContentLength", Post("Content-Length: +5\r\n", "hello")},
        BadRequest{"HexContentLength", Post("Content-Length: 0x5\r\n", "hello")},
        BadRequest{"GzipTransferEncoding", Post("Transfer-Encoding: gzip\r\n")},
        BadRequest{"GzipThenChunked", Post("Transfer-Encoding: gzip, chunked\r\n")},
        BadRequest{"ChunkedThenGzip", Post("Transfer-Encoding: chunked, gzip\r\n")},
        BadRequest{"RepeatedTransferEncoding",
                   Post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n")},
        BadRequest{"PrefixedChunked", Post("Transfer-Encoding: xchunked\r\n")},
        BadRequest{"FoldedTransferEncoding", Post("Transfer-Encoding:\r\n chunked\r\n")},
        BadRequest{"ObsFold", Post("X-Folded: a\r\n b\r\nContent-Length: 0\r\n", "")},
        BadRequest{"ObsFoldWithTab", Post("X-Folded: a\r\n\tb\r\nContent-Length: 0\r\n", "")},
        BadRequest{"SpaceBeforeColon", Post("Content-Length : 5\r\n", "hello")},
        BadRequest{"ChunkedInHttp10",
                   "POST /s HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
        BadRequest{"MissingHost", "GET / HTTP/1.1\r\n\r\n"},
        BadRequest{"TwoHosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"},
        BadRequest{"BareCrInValue", "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\rb\r\n\r\n"},
        BadRequest{"NulInValue", "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\0b\r\n\r\n"s},
        BadRequest{"ControlInName", "GET / HTTP/1.1\r\nHost: t\r\nX\x01Y: a\r\n\r\n"},
        BadRequest{"EmptyName", "GET / HTTP/1.1\r\nHost: t\r\n: a\r\n\r\n"},
        BadRequest{"BareLfLineEnds", "GET / HTTP/1.1\nHost: t\n\n"}),
    [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    RequestLine, SmugglingTest,
    ::testing::Values(BadRequest{"Garbage", "GARBAGE\r\n\r\n"},
                      BadRequest{"MethodOnly", "GET\r\n\r\n"},
                      BadRequest{"NoVersion", "GET /\r\nHost: t\r\n\r\n"},
                      BadRequest{"Http2", "GET / HTTP/2.0\r\nHost: t\r\n\r\n"},
                      BadRequest{"Http09", "GET / HTTP/0.9\r\nHost: t\r\n\r\n"},
                      BadRequest{"ExtraToken", "GET / HTTP/1.1 x\r\nHost: t\r\n\r\n"},
                      BadRequest{"BadMethodCharacter", "G@T / HTTP/1.1\r\nHost: t\r\n\r\n"},
                      BadRequest{"SpaceInTarget", "GET /a b HTTP/1.1\r\nHost: t\r\n\r\n"},
                      BadRequest{"RelativeTarget", "GET a/b HTTP/1.1\r\nHost: t\r\n\r\n"},
                      BadRequest{"AsteriskForGet", "GET * HTTP/1.1\r\nHost: t\r\n\r\n"},
                      BadRequest{"LeadingSpace", " GET / HTTP/1.1\r\nHost: t\r\n\r\n"}),
    [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    ChunkedBody, SmugglingTest,
    ::testing::Values(BadRequest{"NonHexSize", Post("Transfer-Encoding: chunked\r\n",
                                                    "zz\r\nhello\r\n0\r\n\r\n")},
                      BadRequest{"NegativeSize", Post("Transfer-Encoding: chunked\r\n",
                                                      "-5\r\nhello\r\n0\r\n\r\n")},
                      BadRequest{"OverflowingSize",
                                 Post("Transfer-Encoding: chunked\r\n",
                                      "fffffffffffffffffffff\r\nx\r\n0\r\n\r\n")},
                      BadRequest{"MissingChunkCrlf",
                                 Post("Transfer-Encoding: chunked\r\n", "5\r\nhelloXX0\r\n\r\n")},
                      BadRequest{"BadExtension", Post("Transfer-Encoding: chunked\r\n",
                                                      "5;\x01\r\nhello\r\n0\r\n\r\n")}),
    [](const auto& info) { return std::string(info.param.name); });

class UnsupportedMethodTest : public RequestValidationTest,
                              public ::testing::WithParamInterface<const char*> {};

// A client's mistake, not the server's: 405 (never a 5xx), with the methods
// the server does answer.
TEST_P(UnsupportedMethodTest, Is405WithTheServedMethods) {
  const std::string request = StrCat(GetParam(), " HTTP/1.1\r\nHost: t\r\n\r\n");
  ExpectRejected(port(), request, 405, "MethodNotAllowedException");
  TestClient client(port());
  auto response = client.Exchange(request);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->Header("allow"), "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS");
  EXPECT_EQ(handler_calls(), 0);
}

INSTANTIATE_TEST_SUITE_P(Methods, UnsupportedMethodTest,
                         ::testing::Values("BREW /pot", "get /", "TRACE /",
                                           "CONNECT example.com:443"));

// A compressed body would be read as it is: 415 saying so, not a puzzling
// "malformed JSON" from the handler. `identity` (no coding) is accepted.
TEST_F(RequestValidationTest, ContentEncodingOtherThanIdentityIs415) {
  for (const char* coding : {"gzip", "deflate, gzip", "br", "x-unknown"}) {
    SCOPED_TRACE(coding);
    ExpectRejected(port(),
                   Post(StrCat("Content-Length: 2\r\nContent-Encoding: ", coding, "\r\n"), "{}"),
                   415, "UnsupportedMediaTypeException");
  }
  EXPECT_EQ(handler_calls(), 0);
  TestClient client(port());
  auto response =
      client.Exchange(Post("Content-Length: 2\r\nContent-Encoding: Identity\r\n", "{}"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200) << response->body;
  EXPECT_EQ(handler_calls(), 1);
}

// --- Garbage --------------------------------------------------------------

// Random bytes, and valid requests with random damage, each on its own
// connection: the server must answer with a well-formed response or close,
// never hang or crash, and still serve a valid request afterwards.
TEST_F(RequestValidationTest, GarbageNeverBreaksTheServer) {
  std::mt19937 random(20261129);
  const std::vector<std::string> seeds = {
      MakeRequest("GET", "/v1/config?warehouse=w"),
      MakeRequest("POST", "/v1/namespaces", R"({"namespace":["a"]})"),
      Post("Transfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\n\r\n"),
      MakeRequest("HEAD", "/v1/namespaces/a/tables/t", "", "Connection: close\r\n"),
  };
  constexpr std::string_view kInteresting[] = {
      "\r", "\n", "\r\n", " ", "\t", ":", "\0", ",", "\r\n ", "chunked", "Content-Length: 3\r\n"};
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string input;
    if (iteration % 4 == 0) {
      input.resize(std::uniform_int_distribution<size_t>(1, 3000)(random));
      for (char& c : input) c = static_cast<char>(random());
    } else {
      input = seeds[random() % seeds.size()];
      const int edits = 1 + static_cast<int>(random() % 6);
      for (int e = 0; e < edits && !input.empty(); ++e) {
        const size_t at = random() % input.size();
        switch (random() % 4) {
          case 0:
            input[at] = static_cast<char>(random());
            break;
          case 1:
            input.insert(at, kInteresting[random() % std::size(kInteresting)]);
            break;
          case 2:
            input.erase(at, 1 + random() % 8);
            break;
          case 3:
            input.insert(at, input.substr(0, at));  // repeat a prefix
            break;
        }
      }
    }
    TestClient client(port());
    client.Send(input);
    client.ShutdownWrite();
    ASSERT_TRUE(client.WaitForClose(Millis(5000))) << "iteration " << iteration;
    const std::string& answer = client.pending();
    if (!answer.empty()) {
      EXPECT_TRUE(answer.starts_with("HTTP/1.1 ")) << "iteration " << iteration << ": " << answer;
    }
  }
  TestClient client(port());
  auto response = client.Exchange(MakeRequest("GET", "/still-alive"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "GET /still-alive\n");
}

}  // namespace
}  // namespace skade::testing
