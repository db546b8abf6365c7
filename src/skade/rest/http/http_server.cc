#include "skade/rest/http/http_server.h"

#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "skade/rest/http/error_model.h"
#include "skade/rest/http/http_session_internal.h"
#include "skade/rest/http/request_id_internal.h"
#include "skade/rest/http/response_serializer_internal.h"
#include "skade/rest/http/server_context_internal.h"
#include "skade/util/clock.h"
#include "skade/util/error.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

namespace net = boost::asio;
using boost::system::error_code;
using tcp = net::ip::tcp;

// After a failed accept (e.g. out of file descriptors) the connection stays
// queued; retrying at once would spin.
constexpr std::chrono::milliseconds kAcceptRetryDelay{50};

// Descriptors kept free of connections: the listening socket, the store, log
// and metadata files, the catalog's spare files (io/spare_files.h: 8, their
// directory and its copy while one is made), and the files each handler on
// an I/O thread opens.
constexpr int kReservedFileDescriptors = 138;
// And per pool thread: a commit holds at most the metadata file it reads and
// the one it writes open at once.
constexpr int kFileDescriptorsPerPoolThread = 2;

// One log line per this many connections turned away at the limit.
constexpr uint64_t kRefusalLogInterval = 1000;

Status Validate(const HttpServerOptions& options, const HttpHandler& handler) {
  if (!handler) return InvalidArgument("HttpServer needs a handler");
  if (options.threads < 0) return InvalidArgument("HttpServer threads must not be negative");
  if (options.pool_threads < 1) {
    return InvalidArgument("HttpServer pool_threads must be at least 1");
  }
  if (options.pool_queue_limit < 0) {
    return InvalidArgument("HttpServer pool_queue_limit must not be negative");
  }
  if (options.max_header_bytes == 0) return InvalidArgument("HttpServer max_header_bytes is 0");
  if (options.header_timeout_ms <= 0 || options.body_timeout_ms <= 0 ||
      options.idle_timeout_ms <= 0 || options.request_timeout_ms <= 0 ||
      options.shutdown_timeout_ms <= 0) {
    return InvalidArgument("HttpServer timeouts must be positive");
  }
  if (options.max_connections < 1) {
    return InvalidArgument("HttpServer max_connections must be at least 1");
  }
  return OkStatus();
}

int ThreadCount(const HttpServerOptions& options) {
  if (options.threads > 0) return options.threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int EffectiveMaxConnections(const HttpServerOptions& options) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return options.max_connections;
  }
  const auto usable = static_cast<int64_t>(limit.rlim_cur) - kReservedFileDescriptors -
                      int64_t{kFileDescriptorsPerPoolThread} * options.pool_threads;
  return static_cast<int>(
      std::clamp<int64_t>(usable, 1, static_cast<int64_t>(options.max_connections)));
}

// What a connection over the limit gets before it is closed: `response`
// with the id `request_id`.
std::string RefusalBytes(const HttpResponse& response, std::string_view request_id) {
  std::string bytes;
  http_internal::SerializeResponseHead(response, http_internal::ConnectionMode::kClose, request_id,
                                       &bytes);
  return bytes + response.body;
}

}  // namespace

// Threads: one io_context run by ThreadCount() threads, and the context's
// handler pool. The acceptor and each session have their own strand, so a
// slow handler on an I/O thread holds up only its own connection and that
// thread, never the accept loop; a handler on the pool holds up only its
// connection. A session with a handler on the pool keeps the io_context's
// work count up until its completion is queued, so io_.run() does not return
// under it.
class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpHandler handler)
      : context_(options, std::move(handler), EffectiveMaxConnections(options)),
        io_(ThreadCount(context_.options())),
        acceptor_(net::make_strand(io_)),
        retry_timer_(acceptor_.get_executor()) {}

  Status Listen();
  Status Run();
  void Shutdown();
  uint16_t port() const { return port_; }
  int max_connections() const { return context_.max_connections(); }
  size_t pool_pending() const { return context_.pool_pending(); }
  int open_connections() { return context_.open_connections(); }

 private:
  void Accept();
  void OnAccept(error_code ec, http_internal::HttpSession::Socket socket);
  // Answers 503 and closes; for a connection over the limit.
  void Refuse(http_internal::HttpSession::Socket socket);
  void RunThread();

  // Declared first, destroyed last: sessions reach it until io_ is destroyed.
  http_internal::ServerContext context_;
  uint64_t refused_ = 0;  // on the acceptor's strand
  net::io_context io_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_timer_;
  uint16_t port_ = 0;

  std::mutex shutdown_mutex_;
  std::vector<std::thread> threads_;  // guarded by shutdown_mutex_; empty once shut down
};

Status HttpServer::Impl::Listen() {
  const HttpServerOptions& options = context_.options();
  const std::string where = StrCat(options.host, ":", options.port);
  error_code ec;
  tcp::endpoint endpoint;
  const net::ip::address address = net::ip::make_address(options.host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, options.port);
  } else {
    tcp::resolver resolver(io_);
    const auto results = resolver.resolve(options.host, std::to_string(options.port), ec);
    if (ec || results.empty()) {
      return IoError("cannot resolve HTTP listen address ", where, ": ",
                     ec ? ec.message() : std::string("no address"));
    }
    endpoint = *results.begin();
  }
  acceptor_.open(endpoint.protocol(), ec);
  // Lets a restarted server bind while old connections sit in TIME_WAIT; it
  // does not allow two listeners on one port.
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (!ec) port_ = acceptor_.local_endpoint(ec).port();
  if (ec) return IoError("cannot listen on ", where, ": ", ec.message());
  return OkStatus();
}

Status HttpServer::Impl::Run() {
  // First: a session may hand a request to the pool as soon as an I/O thread
  // runs. (A failed start has stopped the threads it did start.)
  SKADE_RETURN_NOT_OK(context_.StartPool());
  Accept();  // before the threads start, so that io_.run() has work
  const int count = ThreadCount(context_.options());
  try {
    // No lock: the server is not published yet.
    threads_.reserve(count);
    for (int i = 0; i < count; ++i) threads_.emplace_back([this] { RunThread(); });
  } catch (const std::system_error& e) {
    Shutdown();  // stops and joins the threads that did start
    return IoError("cannot start HTTP server threads: ", e.what());
  }
  return OkStatus();
}

void HttpServer::Impl::RunThread() {
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception& e) {
      // Only resource exhaustion (e.g. bad_alloc) gets here: sessions catch
      // handler exceptions. Keep serving the other connections.
      context_.LogError(StrCat("I/O thread: ", e.what()));
    }
  }
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept(http_internal::HttpSession::Strand(io_.get_executor()),
                         [this](error_code ec, http_internal::HttpSession::Socket socket) {
                           OnAccept(ec, std::move(socket));
                         });
}

void HttpServer::Impl::OnAccept(error_code ec, http_internal::HttpSession::Socket socket) {
  if (ec == net::error::operation_aborted || context_.stopping()) return;
  if (ec) {
    context_.LogError(StrCat("accept failed: ", ec.message()));
    retry_timer_.expires_after(kAcceptRetryDelay);
    retry_timer_.async_wait([this](error_code ec) {
      if (!ec && !context_.stopping()) Accept();
    });
    return;
  }
  if (context_.AdmitConnection()) {
    std::make_shared<http_internal::HttpSession>(std::move(socket), &context_)->Start();
  } else {
    Refuse(std::move(socket));
  }
  Accept();
}

void HttpServer::Impl::Refuse(http_internal::HttpSession::Socket socket) {
  if (refused_++ % kRefusalLogInterval == 0) {
    context_.LogError(StrCat("connection limit (", context_.max_connections(),
                             ") reached; turned away ", refused_, " connection(s) so far"));
  }
  // One non-blocking write: a fresh socket's send buffer takes these few
  // hundred bytes, and the accept loop must never wait on a client. The client
  // has rarely sent anything yet, so the close does not reset the connection.
  error_code ignored;
  socket.non_blocking(true, ignored);
  // Made per refusal, for a current Date and a new request id.
  const HttpResponse response = RetryLaterResponse("Too many connections; retry later");
  const std::string request_id = http_internal::NewRequestId();
  const std::string refusal = RefusalBytes(response, request_id);
  const int64_t start_us = MonotonicMicros();
  socket.write_some(net::buffer(refusal), ignored);
  socket.shutdown(tcp::socket::shutdown_send, ignored);
  socket.close(ignored);
  RequestRecord record;
  record.method = "-";
  record.path = "-";
  record.request_id = request_id;
  record.status = response.status;
  record.duration_us = MonotonicMicros() - start_us;
  record.response_body_bytes = response.body.size();
  record.error = response.error;
  context_.NotifyRequest(record);
}

void HttpServer::Impl::Shutdown() {
  std::lock_guard lock(shutdown_mutex_);
  if (threads_.empty()) return;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(context_.options().shutdown_timeout_ms);
  context_.Stop();
  net::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    acceptor_.close(ignored);
    retry_timer_.cancel();
  });
  if (!context_.WaitForNoConnections(deadline)) {
    // A client still sending (or never finishing) a request must not hold the
    // process: the drain is bounded, whatever the per-request timeouts.
    const size_t closed = context_.CloseAll();
    context_.LogError(StrCat("shutdown: closed ", closed, " connection(s) still open after ",
                             context_.options().shutdown_timeout_ms, " ms"));
  }
  // Handlers still running on the pool (their connections closed above) are
  // waited for; the I/O threads run their completions meanwhile.
  context_.StopPool();
  // io_.run() returns once the last session has closed.
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                      HttpHandler handler) {
  SKADE_RETURN_NOT_OK(Validate(options, handler));
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  SKADE_RETURN_NOT_OK(impl->Listen());
  SKADE_RETURN_NOT_OK(impl->Run());
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Shutdown(); }

uint16_t HttpServer::port() const { return impl_->port(); }

int HttpServer::max_connections() const { return impl_->max_connections(); }

size_t HttpServer::pool_pending() const { return impl_->pool_pending(); }

int HttpServer::open_connections() const { return impl_->open_connections(); }

void HttpServer::Shutdown() { impl_->Shutdown(); }

}  // namespace skade::rest
