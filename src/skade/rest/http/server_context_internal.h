// What an HttpServer shares with its sessions: configuration, the handler and
// the pool that runs it for requests that may block, logging, the set of live
// sessions that a shutdown must reach, and the count of open connections that
// the connection limit and the shutdown drain use.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "skade/rest/http/handler_pool_internal.h"
#include "skade/rest/http/http_server.h"

namespace skade::rest::http_internal {

class HttpSession;

/// Owned by the server and outlives every session (the server destroys its
/// io_context, and with it every session, first). Thread-safe.
class ServerContext {
 public:
  /// At most `max_connections` connections are admitted at once.
  ServerContext(HttpServerOptions options, HttpHandler handler, int max_connections);

  const HttpServerOptions& options() const { return options_; }

  /// Calls the handler; its exceptions are logged and answered with a 500
  /// that reveals nothing of them.
  HttpResponse Handle(const HttpRequest& request) const;

  /// options().may_block, or its default: every method that is not safe.
  bool MayBlock(const HttpRequest& request) const;
  /// options().refuse_before_body's answer (none if it is empty or throws).
  std::optional<HttpResponse> RefuseBeforeBody(const HttpRequest& request) const;

  /// Starts the handler pool's threads (HandlerPool::Start()).
  Status StartPool() { return pool_.Start(); }
  /// Hands a task to the handler pool (HandlerPool::TrySubmit); false if the
  /// pool is full (then every kOverloadLogInterval-th refusal is logged) or
  /// stopped.
  bool RunOnPool(std::function<void()> work, std::function<void()> then);
  /// Runs what the pool has accepted and joins its threads
  /// (HandlerPool::Stop()).
  void StopPool() { pool_.Stop(); }
  size_t pool_pending() const { return pool_.pending(); }

  /// True once Stop() began; responses then say "Connection: close".
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

  /// Adds a session so that Stop() reaches it. False once stopping: the
  /// caller must then drop the connection.
  bool Register(HttpSession* session);
  /// Called by the session's destructor.
  void Unregister(HttpSession* session);

  /// Counts an accepted connection, unless `max_connections` are open: then
  /// false, and the caller must turn it away. Each admitted connection is
  /// released by its session's destructor.
  bool AdmitConnection();
  void ReleaseConnection();
  int max_connections() const { return max_connections_; }
  /// Admitted connections not yet released.
  int open_connections();

  /// Sets stopping() and asks every registered session to stop
  /// (HttpSession::Stop()).
  void Stop();

  /// Waits until no admitted connection is left or `deadline` passes; true
  /// for the former.
  bool WaitForNoConnections(std::chrono::steady_clock::time_point deadline);

  /// Closes every registered session's connection now (HttpSession::Close()),
  /// whatever it is doing; returns how many it asked.
  size_t CloseAll();

  /// For an answered request: calls options().on_request (an exception it
  /// throws is logged) and, if options().log_requests, logs the request's
  /// line, formatted in `*scratch` (the caller's buffer, reused).
  void RecordRequest(const RequestRecord& record, std::string* scratch) const;
  /// Calls options().on_request only: for what is counted but not logged one
  /// by one (connections turned away at the limit).
  void NotifyRequest(const RequestRecord& record) const;

  /// An "INFO" notice (FormatLogLine) to the log sink or stderr.
  void LogInfo(std::string_view line) const;
  /// An "ERROR" notice to the log sink or stderr; not subject to
  /// options().log_requests.
  void LogError(std::string_view line) const;

 private:
  void Log(std::string_view level, std::string_view line) const;
  // One complete line, without its newline, to the sink or stderr.
  void Write(std::string_view line) const;
  // The registered sessions that are still alive; takes mutex_.
  std::vector<std::shared_ptr<HttpSession>> LiveSessions();

  const HttpServerOptions options_;
  const HttpHandler handler_;
  const int max_connections_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> pool_refusals_{0};  // requests a full pool turned away
  // Stopped by the server's Shutdown(), before the io_context its tasks post
  // to is destroyed.
  HandlerPool pool_;

  std::mutex mutex_;
  std::condition_variable no_connections_;     // signalled when connections_ drops to 0
  std::unordered_set<HttpSession*> sessions_;  // guarded by mutex_
  int connections_ = 0;                        // guarded by mutex_; admitted, not released
};

}  // namespace skade::rest::http_internal
