// Authentication for the REST server.
//
// Mode kNone accepts every request (the default, meant for loopback). Mode
// kToken requires `Authorization: Bearer <token>` on every route except
// POST /v1/oauth/tokens, which implements the OAuth2 client-credentials grant
// for configured clients (and the token-exchange grant Java clients use to
// refresh a token). A client configured read-only gets 403 on writes.
//
// Tokens are 256 bits from the kernel's CSPRNG. The server keeps only a keyed
// hash of each (key random per process), and finds a token by that hash and
// then compares the whole hash in constant time, so neither a memory dump nor
// the time a lookup takes tells anything about a live token. A token expires
// `token_ttl_seconds` after it is issued; refreshing (token exchange) never
// extends it past `max_token_lifetime_seconds` after the client-credentials
// grant it descends from, so a leaked token dies even if refreshed. At most
// `max_tokens` are kept, each configured client holding at most its share
// (max_tokens ÷ clients): expired ones are dropped and a client at its share
// that asks for another loses its own token that would expire first — never
// another client's, so no client can log the others out. Secrets are
// compared in constant time and never logged. Thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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
  /// No token outlives its client-credentials grant by more than this.
  int max_token_lifetime_seconds = 24 * 3600;
  /// Live tokens kept in memory (at least 1).
  size_t max_tokens = 100'000;
  /// The time; steady_clock::now when empty. Tests inject a fake.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

/// Parses "id:secret" or "id:secret:ro". The error never contains the secret.
Result<OAuthClient> ParseOAuthClient(std::string_view text);

/// Parses a list of clients, one per line (and with `commas_separate`, also
/// separated by commas, as in the SKADE_OAUTH_CLIENTS variable). Surrounding
/// whitespace is ignored, and so are empty lines and lines starting with '#'.
Result<std::vector<OAuthClient>> ParseOAuthClientList(std::string_view text, bool commas_separate);

struct Principal {
  std::string client_id;  // empty when authentication is off
  bool read_only = false;
};

class Authenticator {
 public:
  /// Draws the per-process hash key from the CSPRNG (aborts if the kernel
  /// cannot provide one, which Linux since 3.17 always can).
  explicit Authenticator(AuthOptions options);

  bool enabled() const { return options_.mode == AuthOptions::Mode::kToken; }

  /// The caller of `request`, or kNotAuthorized (missing, unknown or expired token).
  Result<Principal> Authenticate(const HttpRequest& request);

  /// Handles POST /v1/oauth/tokens (form-encoded). Errors use the OAuth2
  /// error shape `{"error": …, "error_description": …}` (400/401; 500 if no
  /// random bytes could be had).
  HttpResponse IssueToken(const HttpRequest& request);

  /// Tokens currently kept (expired ones may linger until the next issue).
  size_t token_count();

 private:
  using Clock = std::chrono::steady_clock;
  // 128-bit keyed hash of a token (XXH3 with the secret key_).
  using Digest = std::array<unsigned char, 16>;

  struct IssuedToken {
    Digest digest;
    std::string client_id;
    bool read_only = false;
    Clock::time_point granted;  // of the client-credentials grant it descends from
    Clock::time_point expires;
  };

  Clock::time_point Now() const;
  Digest DigestOf(std::string_view token) const;
  // A copy of the live token `token`, or kNotAuthorized.
  Result<IssuedToken> Find(std::string_view token);
  HttpResponse Issue(const std::string& client_id, bool read_only, Clock::time_point granted);
  // Drops expired tokens and, while `client_id` holds its share, its token
  // expiring first. Needs mutex_ held exclusively.
  void MakeRoomLocked(const std::string& client_id, Clock::time_point now);
  // Forgets the token in `slot` that expires at `expires`. Needs mutex_ held
  // exclusively.
  void DropLocked(Clock::time_point expires, uint64_t slot);

  const AuthOptions options_;
  std::array<unsigned char, 192> key_;  // XXH3 needs a secret of at least 136 bytes

  std::shared_mutex mutex_;
  // Keyed by the digest's first 64 bits; the entry holds the full digest.
  std::unordered_map<uint64_t, IssuedToken> tokens_;         // guarded by mutex_
  std::set<std::pair<Clock::time_point, uint64_t>> expiry_;  // guarded by mutex_; same tokens
  // The same tokens by client (guarded by mutex_).
  std::unordered_map<std::string, std::set<std::pair<Clock::time_point, uint64_t>>> client_expiry_;
};

}  // namespace skade::rest
