// A blocking HTTP/1.1 test client over a POSIX socket. It sends raw bytes, so
// tests can send malformed, smuggled or trickled requests, and reads
// responses one at a time, so pipelined answers can be checked in order.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/util/strings.h"

namespace skade::testing {

struct ParsedResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  bool HasHeader(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return true;
    }
    return false;
  }
  std::string Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return value;
    }
    return "";
  }
};

/// A request with a Host header and, when `body` is not empty, Content-Length.
inline std::string MakeRequest(std::string_view method, std::string_view target,
                               std::string_view body = "", std::string_view extra_headers = "") {
  std::string request = StrCat(method, " ", target, " HTTP/1.1\r\nHost: test\r\n", extra_headers);
  if (!body.empty()) StrAppend(&request, "Content-Length: ", body.size(), "\r\n");
  StrAppend(&request, "\r\n", body);
  return request;
}

class TestClient {
 public:
  using Millis = std::chrono::milliseconds;

  /// Connects to 127.0.0.1:`port`. Every read gives up after `timeout`.
  explicit TestClient(uint16_t port, Millis timeout = Millis(10'000)) : timeout_(timeout) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~TestClient() { ::close(fd_); }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  bool connected() const { return connected_; }

  /// Sends all of `bytes`; false if the connection failed.
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  /// Sends `request` and reads the next response (see ReadResponse); nullopt
  /// if the send failed too.
  std::optional<ParsedResponse> Exchange(std::string_view request, bool head_request = false) {
    if (!Send(request)) return std::nullopt;
    return ReadResponse(head_request);
  }

  /// Reads the next response. A response to HEAD, 1xx, 204 and 304 has no
  /// body. nullopt if the connection ends, times out or the bytes are not a
  /// response.
  std::optional<ParsedResponse> ReadResponse(bool head_request = false) {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill(timeout_)) return std::nullopt;
    }
    std::string_view head(buffer_.data(), end);
    ParsedResponse response;
    const size_t line_end = head.find("\r\n");
    std::string_view status_line = head.substr(0, line_end);
    if (!ConsumePrefix(&status_line, "HTTP/1.1 ") || status_line.size() < 3) return std::nullopt;
    auto status = ParseInt32(status_line.substr(0, 3));
    if (!status) return std::nullopt;
    response.status = *status;
    std::string_view fields = line_end == std::string_view::npos ? "" : head.substr(line_end + 2);
    while (!fields.empty()) {
      const size_t eol = fields.find("\r\n");
      std::string_view line = fields.substr(0, eol);
      fields = eol == std::string_view::npos ? "" : fields.substr(eol + 2);
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) return std::nullopt;
      response.headers.emplace_back(AsciiLower(line.substr(0, colon)),
                                    std::string(StripWhitespace(line.substr(colon + 1))));
    }
    buffer_.erase(0, end + 4);
    const bool no_body =
        head_request || response.status < 200 || response.status == 204 || response.status == 304;
    if (!no_body) {
      auto length = ParseInt64(response.Header("content-length"));
      if (!length) return std::nullopt;
      while (buffer_.size() < static_cast<size_t>(*length)) {
        if (!Fill(timeout_)) return std::nullopt;
      }
      response.body = buffer_.substr(0, *length);
      buffer_.erase(0, *length);
    }
    return response;
  }

  /// Waits until the server closes the connection (true) or `timeout` passes
  /// (false). Bytes that arrive meanwhile are appended to `pending()`.
  bool WaitForClose(Millis timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left =
          std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      if (!Fill(left)) return !timed_out_;
    }
  }

  /// Received bytes not consumed by ReadResponse.
  const std::string& pending() const { return buffer_; }

 private:
  // One recv into buffer_. False on end of stream, error or timeout (then
  // timed_out_ is set).
  bool Fill(Millis timeout) {
    timed_out_ = false;
    pollfd poll_fd{fd_, POLLIN, 0};
    const int ready = ::poll(&poll_fd, 1, static_cast<int>(timeout.count()));
    if (ready <= 0) {
      timed_out_ = ready == 0;
      return false;
    }
    char chunk[64 * 1024];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  bool connected_ = false;
  bool timed_out_ = false;
  Millis timeout_;
  std::string buffer_;
};

}  // namespace skade::testing
