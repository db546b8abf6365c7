// What an HttpServer shares with its sessions: configuration, handler,
// logging, the set of live sessions that a shutdown must reach, and the count
// of open connections that the connection limit and the shutdown drain use.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

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
  const HttpHandler& handler() const { return handler_; }

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

  /// Sets stopping() and asks every registered session to stop
  /// (HttpSession::Stop()).
  void Stop();

  /// Waits until no admitted connection is left or `deadline` passes; true
  /// for the former.
  bool WaitForNoConnections(std::chrono::steady_clock::time_point deadline);

  /// Closes every registered session's connection now (HttpSession::Close()),
  /// whatever it is doing; returns how many it asked.
  size_t CloseAll();

  /// "INFO http <line>" to the log sink or stderr.
  void LogInfo(std::string_view line) const;
  /// "ERROR http <line>" to the log sink or stderr; not subject to
  /// options().log_requests.
  void LogError(std::string_view line) const;

 private:
  void Log(std::string_view level, std::string_view line) const;
  // The registered sessions that are still alive; takes mutex_.
  std::vector<std::shared_ptr<HttpSession>> LiveSessions();

  const HttpServerOptions options_;
  const HttpHandler handler_;
  const int max_connections_;
  std::atomic<bool> stopping_{false};

  std::mutex mutex_;
  std::condition_variable no_connections_;     // signalled when connections_ drops to 0
  std::unordered_set<HttpSession*> sessions_;  // guarded by mutex_
  int connections_ = 0;                        // guarded by mutex_; admitted, not released
};

}  // namespace skade::rest::http_internal
