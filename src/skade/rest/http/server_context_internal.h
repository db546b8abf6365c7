// What an HttpServer shares with its sessions: configuration, handler,
// logging, and the set of live sessions that a shutdown must reach.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include "skade/rest/http/http_server.h"

namespace skade::rest::http_internal {

class HttpSession;

/// Owned by the server and outlives every session (the server destroys its
/// io_context, and with it every session, first). Thread-safe.
class ServerContext {
 public:
  ServerContext(HttpServerOptions options, HttpHandler handler);

  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }

  /// True once Stop() began; responses then say "Connection: close".
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

  /// Adds a session so that Stop() reaches it. False once stopping: the
  /// caller must then drop the connection.
  bool Register(HttpSession* session);
  /// Called by the session's destructor.
  void Unregister(HttpSession* session);

  /// Sets stopping() and asks every registered session to stop
  /// (HttpSession::Stop()).
  void Stop();

  /// "INFO http <line>" to the log sink or stderr.
  void LogInfo(std::string_view line) const;
  /// "ERROR http <line>" to the log sink or stderr; not subject to
  /// options().log_requests.
  void LogError(std::string_view line) const;

 private:
  void Log(std::string_view level, std::string_view line) const;

  const HttpServerOptions options_;
  const HttpHandler handler_;
  std::atomic<bool> stopping_{false};

  std::mutex mutex_;
  std::unordered_set<HttpSession*> sessions_;  // guarded by mutex_
};

}  // namespace skade::rest::http_internal
