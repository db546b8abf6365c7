#include <cstdio>
#include <utility>
#include <vector>

#include "skade/rest/http/http_session_internal.h"
#include "skade/rest/http/server_context_internal.h"
#include "skade/util/strings.h"

namespace skade::rest::http_internal {

ServerContext::ServerContext(HttpServerOptions options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

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

void ServerContext::Stop() {
  std::vector<std::shared_ptr<HttpSession>> live;
  {
    // Setting the flag under the lock means no session registers after the
    // snapshot below without seeing it.
    std::lock_guard lock(mutex_);
    stopping_.store(true, std::memory_order_relaxed);
    live.reserve(sessions_.size());
    for (HttpSession* session : sessions_) {
      // Empty for a session whose destructor is waiting for our lock.
      if (auto shared = session->weak_from_this().lock()) live.push_back(std::move(shared));
    }
  }
  // Outside the lock: dropping the last reference runs ~HttpSession, which
  // unregisters.
  for (const auto& session : live) session->Stop();
}

void ServerContext::LogInfo(std::string_view line) const { Log("INFO", line); }

void ServerContext::LogError(std::string_view line) const { Log("ERROR", line); }

void ServerContext::Log(std::string_view level, std::string_view line) const {
  if (options_.log_sink) {
    options_.log_sink(StrCat(level, " http ", line));
    return;
  }
  // One fprintf per line: stderr is unbuffered and glibc formats the whole
  // call before one write(2), so lines from different threads do not mix.
  std::fprintf(stderr, "%.*s http %.*s\n", static_cast<int>(level.size()), level.data(),
               static_cast<int>(line.size()), line.data());
}

}  // namespace skade::rest::http_internal
