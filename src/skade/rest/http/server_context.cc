#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "skade/rest/http/error_model.h"
#include "skade/rest/http/http_session_internal.h"
#include "skade/rest/http/request_log_internal.h"
#include "skade/rest/http/server_context_internal.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"

namespace skade::rest::http_internal {

namespace {

// One log line per this many requests refused because the pool was full.
constexpr uint64_t kOverloadLogInterval = 1000;

}  // namespace

ServerContext::ServerContext(HttpServerOptions options, HttpHandler handler, int max_connections)
    : options_(std::move(options)),
      handler_(std::move(handler)),
      max_connections_(max_connections),
      pool_(options_.pool_threads, options_.pool_queue_limit) {}

HttpResponse ServerContext::Handle(const HttpRequest& request) const {
  std::string cause;
  try {
    return handler_(request);
  } catch (const std::exception& e) {
    cause = StrCat("handler threw: ", e.what());
  } catch (...) {
    cause = "handler threw";
  }
  LogError(StrCat(cause, " on ", request.method, ' ', request.Path()));
  // The client learns nothing of the exception; the request log does.
  HttpResponse response = ErrorModelResponse(500, "InternalServerError", "Internal server error");
  response.error = std::move(cause);
  return response;
}

std::optional<HttpResponse> ServerContext::RefuseBeforeBody(const HttpRequest& request) const {
  if (!options_.refuse_before_body) return std::nullopt;
  try {
    return options_.refuse_before_body(request);
  } catch (...) {
    return std::nullopt;  // the handler decides, once the body is in
  }
}

bool ServerContext::MayBlock(const HttpRequest& request) const {
  if (!options_.may_block) return !IsSafeMethod(request.method);
  try {
    return options_.may_block(request);
  } catch (...) {
    // Not knowing, keep it off the I/O threads.
    return true;
  }
}

bool ServerContext::RunOnPool(std::function<void()> work, std::function<void()> then) {
  if (pool_.TrySubmit(std::move(work), std::move(then))) return true;
  const uint64_t refused = pool_refusals_.fetch_add(1, std::memory_order_relaxed);
  if (refused % kOverloadLogInterval == 0 && !stopping()) {
    LogError(StrCat("handler pool full (", options_.pool_threads, " threads, ",
                    options_.pool_queue_limit, " queued); answered 503 to ", refused + 1,
                    " request(s) so far"));
  }
  return false;
}

bool ServerContext::AdmitConnection() {
  std::lock_guard lock(mutex_);
  if (connections_ >= max_connections_) return false;
  ++connections_;
  return true;
}

void ServerContext::ReleaseConnection() {
  std::lock_guard lock(mutex_);
  if (--connections_ == 0) no_connections_.notify_all();
}

bool ServerContext::WaitForNoConnections(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return no_connections_.wait_until(lock, deadline, [this] { return connections_ == 0; });
}

bool ServerContext::Register(HttpSession* session) {
  std::lock_guard lock(mutex_);
  if (stopping()) return false;
  sessions_.insert(session);
  return true;
}

void ServerContext::Unregister(HttpSession* session) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session);
}

std::vector<std::shared_ptr<HttpSession>> ServerContext::LiveSessions() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<HttpSession>> live;
  live.reserve(sessions_.size());
  for (HttpSession* session : sessions_) {
    // Empty for a session whose destructor is waiting for our lock.
    if (auto shared = session->weak_from_this().lock()) live.push_back(std::move(shared));
  }
  return live;
}

void ServerContext::Stop() {
  {
    // Setting the flag under the lock means every session either registered
    // before (and is in the snapshot below) or sees it and does not register.
    std::lock_guard lock(mutex_);
    stopping_.store(true, std::memory_order_relaxed);
  }
  // Outside the lock: dropping the last reference runs ~HttpSession, which
  // unregisters.
  for (const auto& session : LiveSessions()) session->Stop();
}

size_t ServerContext::CloseAll() {
  const auto live = LiveSessions();
  for (const auto& session : live) session->Abort();
  return live.size();
}

int ServerContext::open_connections() {
  std::lock_guard lock(mutex_);
  return connections_;
}

void ServerContext::RecordRequest(const RequestRecord& record, std::string* scratch) const {
  NotifyRequest(record);
  if (!options_.log_requests) return;
  FormatRequestLogLine(record, options_.log_format, NowMillis(), scratch);
  Write(*scratch);
}

void ServerContext::NotifyRequest(const RequestRecord& record) const {
  if (!options_.on_request) return;
  try {
    options_.on_request(record);
  } catch (const std::exception& e) {
    LogError(StrCat("on_request threw: ", e.what()));
  } catch (...) {
    LogError("on_request threw");
  }
}

void ServerContext::LogInfo(std::string_view line) const { Log("INFO", line); }

void ServerContext::LogError(std::string_view line) const { Log("ERROR", line); }

void ServerContext::Log(std::string_view level, std::string_view line) const {
  Write(FormatLogLine(level, line, options_.log_format, NowMillis()));
}

void ServerContext::Write(std::string_view line) const {
  if (options_.log_sink) {
    options_.log_sink(line);
    return;
  }
  // One fprintf per line: stderr is unbuffered and glibc formats the whole
  // call before one write(2), so lines from different threads do not mix.
  std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
}

}  // namespace skade::rest::http_internal
