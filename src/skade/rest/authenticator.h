// Authentication for the REST server.
//
// Mode kNone accepts every request (the default, meant for loopback). Mode
// kToken requires `Authorization: Bearer <token>` on every route except
// POST /v1/oauth/tokens, which implements the OAuth2 client-credentials grant
// for configured clients (and the token-exchange grant Java clients use to
// refresh a token). Tokens are random, kept in memory, and expire after
// `token_ttl_seconds`. A client configured read-only gets 403 on writes.
// Secrets are compared in constant time and never logged. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "skade/rest/http/http_message.h"
#include "skade/util/result.h"

namespace skade::rest {

struct OAuthClient {
  std::string id;
  std::string secret;
  bool read_only = false;
};

struct AuthOptions {
  enum class Mode { kNone, kToken };
  Mode mode = Mode::kNone;
  std::vector<OAuthClient> clients;
  int token_ttl_seconds = 3600;
};

/// Parses "id:secret" or "id:secret:ro".
Result<OAuthClient> ParseOAuthClient(std::string_view text);

struct Principal {
  std::string client_id;  // empty when authentication is off
  bool read_only = false;
};

class Authenticator {
 public:
  explicit Authenticator(AuthOptions options) : options_(std::move(options)) {}

  bool enabled() const { return options_.mode == AuthOptions::Mode::kToken; }

  /// The caller of `request`, or kNotAuthorized (missing, unknown or expired token).
  Result<Principal> Authenticate(const HttpRequest& request);

  /// Handles POST /v1/oauth/tokens (form-encoded). Errors use the OAuth2
  /// error shape `{"error": …, "error_description": …}` (400/401).
  HttpResponse IssueToken(const HttpRequest& request);

 private:
  struct IssuedToken {
    std::string client_id;
    bool read_only = false;
    std::chrono::steady_clock::time_point expires;
  };

  HttpResponse Issue(const std::string& client_id, bool read_only);

  AuthOptions options_;
  std::shared_mutex mutex_;
  std::map<std::string, IssuedToken> tokens_;
};

}  // namespace skade::rest
