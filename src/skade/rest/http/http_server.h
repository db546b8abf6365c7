// A small, hardened HTTP/1.1 server: the transport under skade's REST catalog.
//
// It parses and validates requests, calls one handler per request and writes
// the handler's response; routing and the Iceberg semantics live in the
// handler. Built on Boost.Asio/Beast, which stay out of this header.
//
// What the transport guarantees (and answers itself, as Iceberg REST
// ErrorModel JSON `{"error":{"message":…,"type":…,"code":…}}`):
//   400 BadRequestException      malformed request line, header or chunked
//                                body; ambiguous framing (Content-Length with
//                                Transfer-Encoding, repeated Content-Length,
//                                a Transfer-Encoding other than "chunked",
//                                obs-fold line folding); HTTP/1.1 without
//                                exactly one Host. The connection is closed.
//   413 RequestTooLargeException body over `max_body_bytes`, detected from
//                                Content-Length before any body byte is read,
//                                or as chunks arrive. The connection is closed.
//   431 RequestHeaderFieldsTooLargeException
//                                request line + headers over
//                                `max_header_bytes`. The connection is closed.
//   500 InternalServerError      the handler threw, or returned an invalid
//                                response; the message reveals nothing of it.
//   501 UnsupportedOperationException
//                                a method other than GET, HEAD, POST, PUT,
//                                DELETE, PATCH, OPTIONS. The connection is closed.
// Connections are HTTP/1.1 keep-alive (HTTP/1.0: only with
// "Connection: keep-alive"); pipelined requests are answered in order.
// Timeouts: a connection is dropped when a request's header is not complete
// `header_timeout_ms` after its first byte (for a new connection: after
// accept), when its body is not complete `body_timeout_ms` after the header,
// when the whole request is not complete `request_timeout_ms` after its first
// byte (so trickling cannot add the two up), when writing one response takes
// longer than `body_timeout_ms`, or when it sits idle between requests for
// `idle_timeout_ms`. All socket I/O is asynchronous, so stalled or half-open
// peers never hold a thread.
// Connections: at most `max_connections` are open at once (fewer if the file
// descriptor soft limit is lower; see max_connections()). One more is accepted,
// answered "503 ServiceUnavailableException" with "Connection: close" and
// closed, so running out of descriptors never reaches the handler's own file
// I/O (a commit failing with 500 because it cannot open a file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "skade/rest/http/http_message.h"
#include "skade/util/result.h"

namespace skade::rest {

/// Answers one request. Called concurrently from the server's I/O threads (never
/// twice at once for one connection), so it must be thread-safe. The time it
/// takes is a thread the other connections do not get; it should not block for
/// long. Exceptions are caught and answered with 500.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  /// Address to listen on: an IPv4/IPv6 literal or a host name.
  std::string host = "127.0.0.1";
  /// 0 picks a free port; HttpServer::port() tells which.
  uint16_t port = 8181;
  /// I/O threads running the handler; 0 means one per core.
  int threads = 0;
  /// Limit on the request line plus all header fields, in bytes.
  size_t max_header_bytes = 16 * 1024;
  /// Limit on a request body after removing chunked coding, in bytes.
  size_t max_body_bytes = 16 * 1024 * 1024;
  int header_timeout_ms = 10'000;
  /// Also bounds writing one response.
  int body_timeout_ms = 30'000;
  int idle_timeout_ms = 60'000;
  /// The whole request, from its first byte to the end of its body.
  int request_timeout_ms = 30'000;
  /// How long Shutdown() lets requests under way finish before it closes
  /// their connections.
  int shutdown_timeout_ms = 10'000;
  /// Open connections at most; see max_connections().
  int max_connections = 1024;
  /// One line per answered request, "INFO http METHOD /path STATUS 12us"
  /// (path without the query; no header values). The time runs from the
  /// complete request to the response handed to the kernel. Errors (a handler
  /// that threw, a failing accept) are logged regardless.
  bool log_requests = true;
  /// Receives each log line (no trailing newline) instead of stderr. Called
  /// concurrently from the I/O threads.
  std::function<void(std::string_view line)> log_sink;
};

/// A running server. Thread-safe: port() and Shutdown() may be called from any
/// thread except the server's own I/O threads (i.e. not from a handler).
class HttpServer {
 public:
  /// Binds and listens on options.host:options.port, then starts the I/O
  /// threads. Errors: kIo if the address cannot be resolved or bound (the
  /// message names the address and the reason, e.g. "Address already in
  /// use"); kInvalidArgument for an empty handler, a negative thread count,
  /// a zero header limit, a timeout that is not positive or a connection limit
  /// below 1.
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options, HttpHandler handler);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Shutdown().
  ~HttpServer();

  /// The bound port (useful with options.port == 0).
  uint16_t port() const;

  /// The connection limit in force: options.max_connections, lowered so that
  /// it stays a margin below the process's file descriptor soft limit (read at
  /// Start()), which the catalog's own files, the store and the listening
  /// socket need too. At least 1.
  int max_connections() const;

  /// Graceful stop; idempotent. Stops accepting (new connections are
  /// refused), closes idle keep-alive connections, lets every request already
  /// started finish — the handler returns and its response is written, with
  /// "Connection: close" — for up to `shutdown_timeout_ms`, then closes the
  /// connections still open (a request still arriving is dropped unanswered)
  /// and joins the I/O threads. A handler that is running cannot be
  /// interrupted: the join waits for it to return (its response may still be
  /// written before the close). So it blocks for at most the drain time plus the run time of
  /// the handlers under way at its end.
  void Shutdown();

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::rest
