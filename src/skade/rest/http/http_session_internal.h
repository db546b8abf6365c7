// One accepted connection of an HttpServer.
#pragma once

#include <atomic>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "skade/rest/http/http_message.h"
#include "skade/rest/http/request_parser_internal.h"
#include "skade/rest/http/response_serializer_internal.h"
#include "skade/rest/http/server_context_internal.h"

namespace skade::rest::http_internal {

/// Reads requests from one connection, calls the handler for each in order and
/// writes the responses, applying the limits and timeouts of HttpServerOptions.
///
/// Threading: everything after Start() runs on the socket's executor, which
/// must be a strand; Start() and Stop() may be called from any thread. Owned
/// by shared_ptr: each pending operation holds a reference, so the session
/// lives until its socket is closed and its last handler has run.
///
/// A request that may block (ServerContext::MayBlock) is handed to the
/// context's handler pool: the pool thread reads request_ and calls the
/// handler, then posts the response back to the strand (OnHandled), which
/// writes it and goes on with the next request. Meanwhile (Phase::kHandling)
/// the strand touches neither request_ nor the buffer and reads nothing more,
/// so requests stay in order; no deadline runs, as none runs while a handler
/// runs on the strand itself. If the pool is full the request is answered
/// 503 at once. A close meanwhile (Abort) sets closed_, so a request still
/// waiting for a pool thread is not handled.
///
/// Fast path for a request that arrives in one read: parse it from the
/// connection's flat buffer (reused for every request), call the handler, and
/// write the response directly with one non-blocking gather write; only a
/// response the kernel cannot take at once goes through an asynchronous write.
/// Deadlines cost no timer operation per request (see SetDeadline).
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // Concrete executor types: no type-erased executor on the per-request path.
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Strand>;
  using Timer = boost::asio::basic_waitable_timer<
      std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>, Strand>;

  /// `socket` is connected and was admitted by context->AdmitConnection(),
  /// which the destructor releases; `context` outlives the session.
  HttpSession(Socket socket, ServerContext* context);
  ~HttpSession();

  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  /// Starts serving. Call once.
  void Start();

  /// Closes the connection now if it is between requests; otherwise lets the
  /// request under way finish (received, handled, answered) and closes after.
  void Stop();

  /// Closes the connection now, even in the middle of a request (a handler
  /// already running finishes first: it runs on the session's strand).
  void Abort();

 private:
  // What the session waits for; it never waits for two things at once
  // (kHandling: for the handler pool).
  enum class Phase { kReading, kHandling, kWriting, kLingering, kClosed };
  // What follows a completely written Send().
  enum class AfterSend { kContinueRequest, kNextRequest, kClose };

  void Begin();
  void OnStop();
  void NewRequest();
  // Serves buffered requests until one needs more input or an asynchronous
  // write or the close is under way.
  void ServeRequests();
  // True when a complete request is in request_; false when waiting for input
  // or closing.
  bool ParseRequest();
  // After the header: sends "100 Continue" if the client waits for it. False
  // if an asynchronous write took over.
  bool OnHeaderDone();
  // Calls the handler and sends its response, or hands the request to the
  // pool; true to go on with the next request at once.
  bool Respond();
  // Hands request_ to the pool; false (OnHandled goes on), or Answer()'s
  // result for the 503 when the pool is full.
  bool HandOff();
  // On the strand, with the pool's response; nullopt if it did not handle
  // the request because the connection had closed.
  void OnHandled(std::optional<HttpResponse> response);
  // Sends response_ to the complete request_, keeping the connection if the
  // request and the server allow; true as Send().
  bool Answer();
  // Answers a rejected request and closes.
  void Reject();
  // Sends response_ (a 500 instead if it is invalid); true as Send().
  bool SendResponse(ConnectionMode connection);

  void Read();
  void OnRead(boost::system::error_code ec, size_t bytes);
  // Writes head_ and then body_; true if written at once and the caller may
  // go on (AfterSent's result).
  bool Send(AfterSend after);
  void OnWritten(boost::system::error_code ec, AfterSend after);
  bool AfterSent(AfterSend after);
  // Reports the answered request_ and response_ (ServerContext::RecordRequest).
  void RecordRequest();

  // Half-closes and, if the client may still be sending, drains its input for
  // a short while before closing: closing with unread input makes the kernel
  // reset the connection, which can destroy a response (e.g. a 413) before the
  // client reads it.
  void LingeringClose();
  void Drain();
  void Close();

  // Deadline for what the session waits for next. The timer is only moved
  // earlier here; when it fires early it re-arms for the current deadline,
  // so a steady stream of requests costs one timer wake-up per timeout
  // period instead of a cancel and re-arm per request.
  void SetDeadline(std::chrono::milliseconds timeout);
  void SetDeadlineAt(std::chrono::steady_clock::time_point deadline);
  // Starts the header deadline, and the whole request's, from now.
  void StartRequestDeadlines();
  void ArmTimer(std::chrono::steady_clock::time_point expiry);
  void OnTimer(boost::system::error_code ec);

  std::string_view Buffered() const;

  ServerContext* const context_;
  const HttpServerOptions& options_;
  const Strand strand_;
  Socket socket_;
  Timer timer_;

  boost::beast::flat_buffer buffer_;  // received, not yet parsed
  HttpRequest request_;
  std::optional<RequestParser> parser_;  // engaged from Begin() on
  int64_t request_complete_us_ = 0;      // MonotonicMicros() when request_ was complete
  HttpResponse response_;
  std::string head_;       // status line and headers being sent
  std::string_view body_;  // body bytes being sent after head_ (in response_)
  std::string log_line_;

  Phase phase_ = Phase::kReading;
  // Set by Close(); read by the pool thread before it calls the handler.
  std::atomic<bool> closed_{false};
  bool stop_requested_ = false;
  // Whether this request's header / body deadline has started.
  bool header_deadline_set_ = false;
  bool body_deadline_set_ = false;
  std::chrono::steady_clock::time_point deadline_;
  // When the request under way must be complete (request_timeout_ms after its
  // first byte); set with header_deadline_set_.
  std::chrono::steady_clock::time_point request_deadline_;
  std::chrono::steady_clock::time_point timer_expiry_ =
      std::chrono::steady_clock::time_point::max();
};

}  // namespace skade::rest::http_internal
