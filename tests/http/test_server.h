// A fixture that runs an HttpServer on 127.0.0.1 (free port) with a handler
// whose behaviour each test picks by path:
//   /slow?ms=N      sleeps N ms, then echoes
//   /throw          throws std::runtime_error (its message contains "secret")
//   /no-content     204
//   /not-modified   304 with an ETag, and a body the transport must drop
//   /text           200, Content-Type text/plain, "hello"
//   /big?n=N        N bytes of a repeating pattern (see BigBody)
//   /framing        sets Content-Length, Transfer-Encoding, Connection (ignored)
//   /bad-header     a header value containing CRLF (invalid)
//   /bad-status     status 42 (invalid)
//   /header?name=H  the value of request header H
//   /request-id     the request's request_id; tries to set X-Request-ID to "forged"
//   /routed?status=N
//                   status N (default 200) with route "test/routed/{id}" and,
//                   from 400 on, the error kRoutedError
//   anything else   echo: "<method> <target>\n<body>"
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "skade/rest/http/http_server.h"
#include "skade/util/strings.h"

namespace skade::testing {

/// The error cause /routed reports: a quote, a backslash, control characters
/// and invalid UTF-8, which every log format must keep on one valid line.
inline constexpr std::string_view kRoutedError = "routed \"failure\"\\\n\x01 \xff\xfe end";

/// The value of `key` in `target`'s query; "" if absent.
inline std::string QueryParam(std::string_view target, std::string_view key) {
  const size_t question = target.find('?');
  if (question == std::string_view::npos) return "";
  for (const std::string& pair : Split(target.substr(question + 1), '&')) {
    std::string_view view = pair;
    if (ConsumePrefix(&view, key) && ConsumePrefix(&view, "=")) return std::string(view);
  }
  return "";
}

/// `size` bytes cycling through the 62 ASCII letters and digits.
inline std::string BigBody(size_t size) {
  static constexpr std::string_view kAlphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string body(size, ' ');
  for (size_t i = 0; i < size; ++i) body[i] = kAlphabet[i % kAlphabet.size()];
  return body;
}

/// Collects log lines; thread-safe.
class LogCapture {
 public:
  std::function<void(std::string_view)> Sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(line);
    };
  }
  std::vector<std::string> Lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

class HttpServerTest : public ::testing::Test {
 protected:
  /// Port 0, two I/O threads and four pool threads, timeouts long enough not
  /// to interfere unless a test shortens them, logs captured.
  rest::HttpServerOptions Options() {
    rest::HttpServerOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    options.threads = 2;
    options.pool_threads = 4;
    options.header_timeout_ms = 5'000;
    options.body_timeout_ms = 5'000;
    options.idle_timeout_ms = 10'000;
    options.log_sink = logs_.Sink();
    return options;
  }

  void Start(rest::HttpServerOptions options) {
    auto server = rest::HttpServer::Start(std::move(options),
                                          [this](const rest::HttpRequest& r) { return Handle(r); });
    ASSERT_TRUE(server) << server.error().ToString();
    server_ = std::move(*server);
  }
  void Start() { Start(Options()); }

  uint16_t port() const { return server_->port(); }
  int handler_calls() const { return handler_calls_.load(); }

  rest::HttpResponse Handle(const rest::HttpRequest& request) {
    ++handler_calls_;
    const std::string_view path = request.Path();
    rest::HttpResponse response;
    if (path == "/slow") {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(*ParseInt32(QueryParam(request.target, "ms"))));
    } else if (path == "/throw") {
      throw std::runtime_error("secret internal detail");
    } else if (path == "/no-content") {
      response.status = 204;
      return response;
    } else if (path == "/not-modified") {
      response.status = 304;
      response.headers.emplace_back("ETag", "\"v1\"");
      response.body = "must not be sent";
      return response;
    } else if (path == "/text") {
      response.headers.emplace_back("Content-Type", "text/plain");
      response.body = "hello";
      return response;
    } else if (path == "/big") {
      response.body = BigBody(*ParseInt64(QueryParam(request.target, "n")));
      return response;
    } else if (path == "/framing") {
      response.headers = {{"Content-Length", "999"},
                          {"Transfer-Encoding", "chunked"},
                          {"Connection", "close"},
                          {"ETag", "\"v1\""}};
      response.body = "framed";
      return response;
    } else if (path == "/bad-header") {
      response.headers.emplace_back("X-Bad", "a\r\nInjected: yes");
      return response;
    } else if (path == "/bad-status") {
      response.status = 42;
      return response;
    } else if (path == "/request-id") {
      response.headers.emplace_back("X-Request-ID", "forged");
      response.body = request.request_id;
      return response;
    } else if (path == "/routed") {
      const std::string status = QueryParam(request.target, "status");
      response.status = status.empty() ? 200 : *ParseInt32(status);
      response.route = "test/routed/{id}";
      if (response.status >= 400) response.error = std::string(kRoutedError);
      return response;
    } else if (path == "/header") {
      response.body = std::string(request.Header(QueryParam(request.target, "name")));
      return response;
    }
    response.body = StrCat(request.method, " ", request.target, "\n", request.body);
    return response;
  }

  LogCapture logs_;
  std::atomic<int> handler_calls_{0};
  // Last, so it stops before the members its threads use are destroyed.
  std::unique_ptr<rest::HttpServer> server_;
};

}  // namespace skade::testing
