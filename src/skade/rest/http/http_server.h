// A small, hardened HTTP/1.1 server: the transport under skade's REST catalog.
//
// It parses and validates requests, calls one handler per request and writes
// the handler's response; routing and the Iceberg semantics live in the
// handler. Built on Boost.Asio/Beast, which stay out of this header.
//
// Where handlers run: a request whose handler may block (`may_block`; by
// default every method but GET, HEAD and OPTIONS — the writes, whose commits
// wait on file writes, syncs, the store's group commit and back-off) is
// handed to the handler pool, `pool_threads` threads apart from the I/O
// threads; every other request is answered on the I/O thread that read it.
// So reads (loadTable, HEAD) never wait behind a commit for a thread, and as
// many commits as the pool has threads are in flight at once for group
// commit to merge, however few cores there are. A connection waits for its
// request's handler before it reads the next one, so pipelined requests are
// answered in order whichever thread ran them.
//
// Defaults: `pool_threads` = 64. Pool threads mostly wait (on a sync, on the
// leader of a group commit, on a table's lock), so far more of them than
// cores is cheap — a mostly untouched stack and a couple of file descriptors
// each, reserved below the connection limit — and the number of commits in
// flight is what group commit and per-table batching can merge into one
// store transaction and one sync. `pool_queue_limit` = 256: a request waiting
// for a pool thread holds only its connection, but its wait grows with the
// queue (at most four turns of the whole pool here); past that a client is
// better told at once to come back than left to time out not knowing
// whether its commit happened.
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
//   405 MethodNotAllowedException
//                                a method other than GET, HEAD, POST, PUT,
//                                DELETE, PATCH, OPTIONS (the `Allow` header
//                                lists those). The connection is closed.
// Request ids: every response carries "X-Request-ID": the request's
// HttpRequest::request_id (the client's own X-Request-ID when it is a
// plausible id, else a new UUID; also on the transport's error answers, whose
// header may be unread or incomplete). A handler cannot set the field.
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
// answered "503 ServiceUnavailableException" with "Retry-After: 1" and
// "Connection: close" and closed, so running out of descriptors never reaches
// the handler's own file I/O (a commit failing with 500 because it cannot open
// a file).
// Pool overload: a request that may block while all `pool_threads` are busy
// and `pool_queue_limit` requests already wait is answered at once with
// "503 ServiceUnavailableException" and "Retry-After: 1", without calling the
// handler (so nothing of it happened and a retry is safe); the connection
// stays open. What the Iceberg clients do with that 503: Iceberg Java (1.10,
// HTTPClient's ExponentialHttpRequestRetryStrategy, `rest.client.max-retries`
// = 5) retries a 503 for any method, commits included, when it carries
// Retry-After, after that many seconds (without Retry-After only idempotent
// methods are retried, backing off 1 s, 2 s, 4 s … plus jitter); once its
// retries are spent a commit's 503 becomes CommitStateUnknownException, any
// other request's ServiceUnavailableException. PyIceberg (0.12) does not
// retry a 503: it raises ServiceUnavailableError to the caller, which may
// retry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "skade/rest/http/http_message.h"
#include "skade/util/result.h"

namespace skade::rest {

/// What the server knows of one answered request when its response has been
/// handed to the kernel (or the connection failed while sending it): for the
/// request log and for metrics. The views live only during the call.
struct RequestRecord {
  std::string_view method;      // "-" when the request line did not parse
  std::string_view path;        // the target without its query; "-" if none
  std::string_view route;       // HttpResponse::route; empty if none matched
  std::string_view request_id;  // HttpRequest::request_id ("" if rejected before)
  int status = 0;
  /// From the complete request to the response handed to the kernel.
  int64_t duration_us = 0;
  uint64_t request_body_bytes = 0;
  uint64_t response_body_bytes = 0;
  std::string_view error;  // HttpResponse::error
};

/// How the server writes its log lines (HttpServerOptions::log_format). Both
/// write one line per answered request with its method, path (never the query),
/// status, duration, request id, route and, for status >= 400, the error's
/// cause; neither writes a header value or a body. docs/operations/logging.md
/// lists the fields.
enum class HttpLogFormat {
  /// For people: "INFO http GET /v1/config 200 85us request_id=… route=v1/config",
  /// then ` error="…"` (quoted and escaped as a JSON string) for an error.
  kText,
  /// For log collectors: one JSON object per line, e.g. {"ts":"2026-12-02T13:17:41.123Z",
  /// "level":"info","msg":"request","method":"GET",…}. The transport's error lines
  /// are objects too ({"ts","level":"error","msg"}). Always valid JSON: client
  /// text in it (the path, the error) is escaped and invalid UTF-8 replaced.
  kJson,
};

/// Answers one request. Called concurrently from the server's I/O threads and
/// its handler pool (never twice at once for one connection), so it must be
/// thread-safe. On an I/O thread (a request `may_block` says will not block)
/// the time it takes is a thread the other connections do not get; on the
/// pool it may block. Exceptions are caught and answered with 500.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  /// Address to listen on: an IPv4/IPv6 literal or a host name.
  std::string host = "127.0.0.1";
  /// 0 picks a free port; HttpServer::port() tells which.
  uint16_t port = 8181;
  /// I/O threads: all socket I/O, and the handler for requests that do not
  /// block; 0 means one per core.
  int threads = 0;
  /// Whether the handler may block on `request` (complete, body included):
  /// then it runs on the handler pool, else on the I/O thread that read the
  /// request. Called on an I/O thread once per request, so it must be cheap
  /// and thread-safe; if it throws, the request goes to the pool. Empty: true
  /// for every method but GET, HEAD and OPTIONS (IsSafeMethod).
  std::function<bool(const HttpRequest& request)> may_block;
  /// Called on an I/O thread once the header of a request with a body is
  /// complete, before the body is read: a response it returns is sent at
  /// once and the connection closed, the body never read — so a request
  /// that will be refused anyway (no valid credentials) cannot make the
  /// server hold a large body first. Cheap and thread-safe; empty: none.
  std::function<std::optional<HttpResponse>(const HttpRequest& request)> refuse_before_body;
  /// Threads of the handler pool (see the top of this file for the default).
  int pool_threads = 64;
  /// Requests that may block waiting for a pool thread, at most; one more is
  /// answered 503 with Retry-After. 0: none wait.
  int pool_queue_limit = 256;
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
  /// One line per answered request (see HttpLogFormat), the transport's own
  /// error answers (400, 405, 413, 431, 500, 503) included; a connection
  /// turned away at the connection limit is not a request and only counted in
  /// a periodic error line. The time runs from the complete request to the
  /// response handed to the kernel. Errors (a handler that threw, a failing
  /// accept) are logged regardless.
  bool log_requests = true;
  /// The shape of every line the server logs.
  HttpLogFormat log_format = HttpLogFormat::kText;
  /// Receives each log line (no trailing newline) instead of stderr. Called
  /// concurrently from the I/O threads and the handler pool.
  std::function<void(std::string_view line)> log_sink;
  /// Called once per answered request (whatever `log_requests` says), after
  /// its response is sent, concurrently from the I/O threads: must be cheap
  /// and thread-safe (metrics count here). The transport's own error answers
  /// count; a connection turned away at the connection limit (a 503 before
  /// any request was read) counts too, with method and path "-". An exception
  /// it throws is logged and otherwise ignored.
  std::function<void(const RequestRecord& record)> on_request;
};

/// A running server. Thread-safe: port() and Shutdown() may be called from any
/// thread except the server's own I/O and pool threads (i.e. not from a
/// handler).
class HttpServer {
 public:
  /// Binds and listens on options.host:options.port, then starts the handler
  /// pool and the I/O threads. Errors: kIo if the address cannot be resolved
  /// or bound (the message names the address and the reason, e.g. "Address
  /// already in use") or a thread cannot start; kInvalidArgument for an empty handler, a negative
  /// thread count, fewer than 1 pool thread, a negative pool queue limit, a zero header limit, a
  /// timeout that is not positive or a connection limit below 1.
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options, HttpHandler handler);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Shutdown().
  ~HttpServer();

  /// The bound port (useful with options.port == 0).
  uint16_t port() const;

  /// The connection limit in force: options.max_connections, lowered so that
  /// it stays a margin below the process's file descriptor soft limit (read at
  /// Start()), which the catalog's own files, the store, the listening
  /// socket and the files the pool's handlers open need too. At least 1.
  int max_connections() const;

  /// Requests handed to the handler pool and not finished: running, or
  /// waiting for a thread. For monitoring (and tests that fill the pool).
  size_t pool_pending() const;

  /// Connections open now (admitted and not yet closed). For monitoring.
  int open_connections() const;

  /// Graceful stop; idempotent. Stops accepting (new connections are
  /// refused), closes idle keep-alive connections, lets every request already
  /// started finish — the handler returns (on the pool: also the requests
  /// queued for it) and its response is written, with "Connection: close" —
  /// for up to `shutdown_timeout_ms`, then closes the connections still open
  /// (a request still arriving is dropped unanswered; one still waiting for a
  /// pool thread then is dropped without calling the handler), waits for the
  /// pool's running handlers, joins the pool and then the I/O threads. A
  /// handler that is running cannot be interrupted: the join waits for it to
  /// return (its response may still be written before the close). So it
  /// blocks for at most the drain time plus the run time of the handlers
  /// under way at its end.
  void Shutdown();

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace skade::rest
