#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <optional>
#include <utility>

#include "skade/rest/http/error_model.h"
#include "skade/rest/http/http_session_internal.h"
#include "skade/rest/http/request_id_internal.h"
#include "skade/rest/http/response_serializer_internal.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"

namespace skade::rest::http_internal {

namespace {

namespace net = boost::asio;
using boost::system::error_code;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kHeaderReadBytes = 8 * 1024;
constexpr size_t kBodyReadBytes = 64 * 1024;
constexpr milliseconds kLingerTime{1000};
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace

HttpSession::HttpSession(Socket socket, ServerContext* context)
    : context_(context),
      options_(context->options()),
      strand_(socket.get_executor()),
      socket_(std::move(socket)),
      timer_(strand_) {}

HttpSession::~HttpSession() {
  context_->Unregister(this);
  context_->ReleaseConnection();
}

void HttpSession::Start() {
  net::dispatch(strand_, [self = shared_from_this()] { self->Begin(); });
}

void HttpSession::Stop() {
  net::post(strand_, [self = shared_from_this()] { self->OnStop(); });
}

void HttpSession::Abort() {
  net::post(strand_, [self = shared_from_this()] { self->Close(); });
}

void HttpSession::Begin() {
  // Registering on the strand orders it before any Stop() for this session.
  if (!context_->Register(this)) return Close();
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  socket_.non_blocking(true, ignored);  // for Send()'s direct write
  NewRequest();
  StartRequestDeadlines();
  ServeRequests();
}

void HttpSession::OnStop() {
  stop_requested_ = true;
  if (phase_ == Phase::kReading && !parser_->got_some()) Close();
}

void HttpSession::NewRequest() {
  parser_.emplace(&request_, options_.max_header_bytes, options_.max_body_bytes);
  header_deadline_set_ = false;
  body_deadline_set_ = false;
}

std::string_view HttpSession::Buffered() const {
  return {static_cast<const char*>(buffer_.data().data()), buffer_.size()};
}

void HttpSession::ServeRequests() {
  while (ParseRequest() && Respond()) {
  }
}

bool HttpSession::ParseRequest() {
  for (;;) {
    size_t consumed = 0;
    const RequestParser::Status status = parser_->Parse(Buffered(), &consumed);
    buffer_.consume(consumed);
    switch (status) {
      case RequestParser::Status::kDone:
        request_complete_us_ = MonotonicMicros();
        AssignRequestId(&request_);
        return true;
      case RequestParser::Status::kHeaderDone:
        if (!OnHeaderDone()) return false;
        break;
      case RequestParser::Status::kNeedMore:
        Read();
        return false;
      case RequestParser::Status::kRejected:
        Reject();
        return false;
    }
  }
}

bool HttpSession::OnHeaderDone() {
  if (auto refused = context_->RefuseBeforeBody(request_)) {
    request_complete_us_ = MonotonicMicros();
    AssignRequestId(&request_);
    response_ = std::move(*refused);
    SendResponse(ConnectionMode::kClose);
    return false;
  }
  // A client that sent "Expect: 100-continue" may wait for this before
  // sending the body; one that already sent some of it does not need it.
  if (buffer_.size() == 0 && parser_->version() >= 11 &&
      EqualsIgnoreCase(request_.Header("expect"), "100-continue")) {
    head_.assign(kContinue);
    body_ = {};
    return Send(AfterSend::kContinueRequest);
  }
  return true;
}

bool HttpSession::Respond() {
  if (context_->MayBlock(request_)) return HandOff();
  response_ = context_->Handle(request_);
  return Answer();
}

bool HttpSession::HandOff() {
  // Filled on the pool thread, read on the strand after the post.
  auto response = std::make_shared<std::optional<HttpResponse>>();
  auto work = [self = shared_from_this(), response] {
    if (!self->closed_.load(std::memory_order_acquire)) {
      *response = self->context_->Handle(self->request_);
    }
  };
  // The tracked executor keeps io_.run() from returning (at shutdown, with
  // this connection closed) before the completion is queued.
  auto then =
      [self = shared_from_this(), response,
       io = net::prefer(strand_.get_inner_executor(), net::execution::outstanding_work.tracked)] {
        net::post(self->strand_, [self, response] { self->OnHandled(std::move(*response)); });
      };
  if (!context_->RunOnPool(std::move(work), std::move(then))) {
    response_ = RetryLaterResponse("Too many requests waiting for the server; retry later");
    return Answer();
  }
  phase_ = Phase::kHandling;
  SetDeadlineAt(Clock::time_point::max());
  return false;
}

void HttpSession::OnHandled(std::optional<HttpResponse> response) {
  if (phase_ == Phase::kClosed || !response) return Close();
  response_ = std::move(*response);
  if (Answer()) ServeRequests();
}

bool HttpSession::Answer() {
  const bool keep_alive = parser_->keep_alive() && !stop_requested_ && !context_->stopping();
  return SendResponse(!keep_alive                ? ConnectionMode::kClose
                      : parser_->version() >= 11 ? ConnectionMode::kKeepAlive
                                                 : ConnectionMode::kExplicitKeepAlive);
}

void HttpSession::Reject() {
  request_complete_us_ = MonotonicMicros();
  AssignRequestId(&request_);
  const RequestRejection& rejection = parser_->rejection();
  response_ = ErrorModelResponse(rejection.status, rejection.type, rejection.message);
  if (rejection.status == 405) response_.headers.emplace_back("Allow", kServedMethods);
  SendResponse(ConnectionMode::kClose);
}

bool HttpSession::SendResponse(ConnectionMode connection) {
  if (!SerializeResponseHead(response_, connection, request_.request_id, &head_)) {
    context_->LogError(StrCat("invalid response (status ", response_.status,
                              " or a header) from the handler for ", request_.method, ' ',
                              request_.Path()));
    const std::string_view route = response_.route;
    response_ = ErrorModelResponse(500, "InternalServerError", "Internal server error");
    response_.route = route;
    response_.error = "invalid response from the handler";
    SerializeResponseHead(response_, connection, request_.request_id, &head_);
  }
  body_ = ResponseCarriesBody(response_.status, request_.method == "HEAD")
              ? std::string_view(response_.body)
              : std::string_view();
  return Send(connection == ConnectionMode::kClose ? AfterSend::kClose : AfterSend::kNextRequest);
}

void HttpSession::Read() {
  size_t size = kHeaderReadBytes;
  // The header and request deadlines run from the request's first byte;
  // before that the idle deadline applies. (A header that arrived whole in
  // one read gets them here too, for the request deadline to bound its body.)
  if (parser_->got_some() && !header_deadline_set_) StartRequestDeadlines();
  if (parser_->is_header_done()) {
    if (!body_deadline_set_) {
      SetDeadlineAt(
          std::min(Clock::now() + milliseconds(options_.body_timeout_ms), request_deadline_));
      body_deadline_set_ = true;
    }
    const auto remaining = parser_->content_length_remaining();
    if (remaining)
      size = std::clamp<uint64_t>(*remaining, kHeaderReadBytes, kBodyReadBytes);
    else
      size = kBodyReadBytes;
  }
  phase_ = Phase::kReading;
  socket_.async_read_some(
      buffer_.prepare(size),
      [self = shared_from_this()](error_code ec, size_t bytes) { self->OnRead(ec, bytes); });
}

void HttpSession::OnRead(error_code ec, size_t bytes) {
  // Errors include end of stream and a close by the timer or Stop().
  if (ec || phase_ == Phase::kClosed) return Close();
  buffer_.commit(bytes);
  ServeRequests();
}

bool HttpSession::Send(AfterSend after) {
  const std::array<net::const_buffer, 2> buffers{net::buffer(head_),
                                                 net::buffer(body_.data(), body_.size())};
  // Most responses fit the socket's send buffer: a direct non-blocking write
  // saves a round through the event loop.
  error_code ec;
  const size_t written = socket_.write_some(buffers, ec);
  if (ec && ec != net::error::would_block) {
    if (after != AfterSend::kContinueRequest) RecordRequest();
    Close();
    return false;
  }
  if (written == head_.size() + body_.size()) return AfterSent(after);

  boost::beast::buffers_suffix<std::array<net::const_buffer, 2>> rest(buffers);
  rest.consume(written);
  SetDeadline(milliseconds(options_.body_timeout_ms));
  phase_ = Phase::kWriting;
  net::async_write(socket_, rest, [self = shared_from_this(), after](error_code ec, size_t) {
    self->OnWritten(ec, after);
  });
  return false;
}

void HttpSession::OnWritten(error_code ec, AfterSend after) {
  if (ec || phase_ == Phase::kClosed) {
    if (after != AfterSend::kContinueRequest) RecordRequest();
    return Close();
  }
  if (AfterSent(after)) ServeRequests();
}

bool HttpSession::AfterSent(AfterSend after) {
  if (after == AfterSend::kContinueRequest) return true;
  RecordRequest();
  response_ = HttpResponse();  // a large body should not outlive its write
  if (after == AfterSend::kClose || stop_requested_) {
    LingeringClose();
    return false;
  }
  NewRequest();
  SetDeadline(milliseconds(options_.idle_timeout_ms));
  return true;
}

void HttpSession::RecordRequest() {
  RequestRecord record;
  record.method = request_.method.empty() ? std::string_view("-") : request_.method;
  // The path only: a query may carry secrets (request_log_internal.h).
  record.path = request_.target.empty() ? std::string_view("-") : request_.Path();
  record.route = response_.route;
  record.request_id = request_.request_id;
  record.status = response_.status;
  record.duration_us = MonotonicMicros() - request_complete_us_;
  record.request_body_bytes = request_.body.size();
  record.response_body_bytes = body_.size();
  record.error = response_.error;
  context_->RecordRequest(record, &log_line_);
}

void HttpSession::LingeringClose() {
  error_code ignored;
  socket_.shutdown(Socket::shutdown_send, ignored);
  // After a complete request with nothing unread, a plain close cannot reset
  // the connection; a client is only likely to send more after a rejection.
  if (parser_->is_done() && buffer_.size() == 0 && socket_.available(ignored) == 0) {
    return Close();
  }
  phase_ = Phase::kLingering;
  SetDeadline(kLingerTime);
  buffer_.clear();
  Drain();
}

void HttpSession::Drain() {
  // Reads into the buffer without committing: the bytes are discarded.
  socket_.async_read_some(buffer_.prepare(kHeaderReadBytes),
                          [self = shared_from_this()](error_code ec, size_t) {
                            if (ec || self->phase_ == Phase::kClosed) return self->Close();
                            self->Drain();
                          });
}

void HttpSession::Close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  closed_.store(true, std::memory_order_release);
  error_code ignored;
  socket_.close(ignored);
  timer_.cancel();
}

void HttpSession::StartRequestDeadlines() {
  const auto now = Clock::now();
  request_deadline_ = now + milliseconds(options_.request_timeout_ms);
  SetDeadlineAt(std::min(now + milliseconds(options_.header_timeout_ms), request_deadline_));
  header_deadline_set_ = true;
}

void HttpSession::SetDeadline(milliseconds timeout) { SetDeadlineAt(Clock::now() + timeout); }

void HttpSession::SetDeadlineAt(Clock::time_point deadline) {
  deadline_ = deadline;
  if (deadline_ < timer_expiry_) ArmTimer(deadline_);
}

void HttpSession::ArmTimer(Clock::time_point expiry) {
  timer_expiry_ = expiry;
  timer_.expires_at(expiry);
  timer_.async_wait([self = shared_from_this()](error_code ec) { self->OnTimer(ec); });
}

void HttpSession::OnTimer(error_code ec) {
  // Aborted: re-armed by SetDeadline, or cancelled by Close.
  if (ec == net::error::operation_aborted || phase_ == Phase::kClosed) return;
  timer_expiry_ = Clock::time_point::max();
  if (deadline_ == Clock::time_point::max()) return;  // none while handling; re-armed after
  if (Clock::now() >= deadline_) return Close();
  ArmTimer(deadline_);
}

}  // namespace skade::rest::http_internal
