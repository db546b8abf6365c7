// One HTTP/1.1 keep-alive connection (Boost.Beast, blocking) for the REST load
// generator. Boost stays in the .cc file.
//
// Not thread-safe: each benchmark thread owns one connection.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade::bench {

struct HttpResult {
  int status = 0;
  std::string body;
};

class HttpConnection {
 public:
  /// Connects to `host`:`port` (a numeric address). kIo if that fails.
  static Result<std::unique_ptr<HttpConnection>> Connect(const std::string& host, uint16_t port);
  ~HttpConnection();

  /// Sends one request (`body`, when not empty, as application/json) and
  /// reads the whole response; HEAD responses have no body. A GET or HEAD
  /// whose connection the server had closed is retried once on a new
  /// connection; other failures are kIo.
  Result<HttpResult> Send(std::string_view method, const std::string& target,
                          const std::string& body = "");

 private:
  struct Impl;
  explicit HttpConnection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::bench
