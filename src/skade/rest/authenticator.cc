#include "skade/rest/authenticator.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "skade/rest/http/utf8.h"
#include "skade/rest/request_target.h"
#include "skade/util/json_writer.h"
#include "skade/util/random.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

// Compares without an early exit, so timing does not reveal how much of a
// secret matched.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char other = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(a[i]) ^ other;
  }
  return diff == 0;
}

constexpr size_t kTokenBytes = 32;  // 256 bits

Result<std::string> NewToken() { return SecureRandomHex(kTokenBytes); }

HttpResponse OAuthError(int status, std::string_view error, std::string_view description) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("error", error);
  // Descriptions may quote client input (a grant type, a client id).
  writer.Field("error_description", ToValidUtf8(description));
  writer.EndObject();
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = writer.Take();
  response.error = StrCat(error, ": ", description);  // for the request log; never the secret
  return response;
}

std::map<std::string, std::string> ParseForm(std::string_view body) {
  std::map<std::string, std::string> form;
  for (const auto& pair : Split(body, '&')) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos) continue;
    auto key = PercentDecode(std::string_view(pair).substr(0, eq), true);
    auto value = PercentDecode(std::string_view(pair).substr(eq + 1), true);
    if (key && value) form[*key] = *value;
  }
  return form;
}

// Decodes RFC 4648 base64 (for HTTP Basic client authentication).
std::string Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v = value(c);
    if (v < 0) break;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace

Result<OAuthClient> ParseOAuthClient(std::string_view text) {
  auto parts = Split(text, ':');
  if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty() ||
      (parts.size() == 3 && parts[2] != "ro" && parts[2] != "rw")) {
    return InvalidArgument("Invalid OAuth client '", parts.empty() ? "" : parts[0],
                           ":…': expected ID:SECRET or ID:SECRET:ro");
  }
  return OAuthClient{parts[0], parts[1], parts.size() == 3 && parts[2] == "ro"};
}

Result<std::vector<OAuthClient>> ParseOAuthClientList(std::string_view text, bool commas_separate) {
  std::vector<OAuthClient> clients;
  for (const auto& line : Split(text, '\n')) {
    std::vector<std::string> entries =
        commas_separate ? Split(line, ',') : std::vector<std::string>{line};
    for (const auto& entry : entries) {
      std::string_view item = StripWhitespace(entry);
      if (item.empty() || item.front() == '#') continue;
      SKADE_ASSIGN_OR_RAISE(auto client, ParseOAuthClient(item));
      clients.push_back(std::move(client));
    }
  }
  return clients;
}

Authenticator::Authenticator(AuthOptions options) : options_(std::move(options)) {
  if (!SecureRandomBytes(key_.data(), key_.size())) std::abort();
}

Authenticator::Clock::time_point Authenticator::Now() const {
  return options_.clock ? options_.clock() : Clock::now();
}

Authenticator::Digest Authenticator::DigestOf(std::string_view token) const {
  // Its time depends on the token's length only, never on its content.
  const XXH128_hash_t hash =
      XXH3_128bits_withSecret(token.data(), token.size(), key_.data(), key_.size());
  Digest digest;
  std::memcpy(digest.data(), &hash.low64, 8);
  std::memcpy(digest.data() + 8, &hash.high64, 8);
  return digest;
}

Result<Authenticator::IssuedToken> Authenticator::Find(std::string_view token) {
  const Digest digest = DigestOf(token);
  uint64_t slot;
  std::memcpy(&slot, digest.data(), sizeof(slot));
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = tokens_.find(slot);
  // The slot is a keyed hash the client cannot steer, and the full digest is
  // compared without an early exit: no timing reveals a partial match.
  if (it == tokens_.end() ||
      !ConstantTimeEquals(
          std::string_view(reinterpret_cast<const char*>(it->second.digest.data()), 16),
          std::string_view(reinterpret_cast<const char*>(digest.data()), 16))) {
    return MakeError(ErrorKind::kNotAuthorized, "Not authorized: unknown or revoked token");
  }
  if (it->second.expires <= Now()) {
    return MakeError(ErrorKind::kNotAuthorized, "Not authorized: token expired");
  }
  return it->second;
}

Result<Principal> Authenticator::Authenticate(const HttpRequest& request) {
  if (!enabled()) return Principal{};
  std::string_view header = request.Header("authorization");
  // The scheme is case-insensitive (RFC 9110 §11.1): "BEARER" is "Bearer".
  if (!ConsumePrefixIgnoringCase(&header, "Bearer ")) {
    return MakeError(ErrorKind::kNotAuthorized, "Not authorized: missing bearer token");
  }
  SKADE_ASSIGN_OR_RAISE(auto issued, Find(StripWhitespace(header)));
  return Principal{std::move(issued.client_id), issued.read_only};
}

size_t Authenticator::token_count() {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return tokens_.size();
}

void Authenticator::DropLocked(Clock::time_point expires, uint64_t slot) {
  if (auto token = tokens_.find(slot); token != tokens_.end()) {
    if (auto client = client_expiry_.find(token->second.client_id);
        client != client_expiry_.end()) {
      client->second.erase({expires, slot});
      if (client->second.empty()) client_expiry_.erase(client);
    }
    tokens_.erase(token);
  }
  expiry_.erase({expires, slot});
}

void Authenticator::MakeRoomLocked(const std::string& client_id, Clock::time_point now) {
  while (!expiry_.empty() && expiry_.begin()->first <= now) {
    const auto [expires, slot] = *expiry_.begin();
    DropLocked(expires, slot);
  }
  const size_t share = std::max<size_t>(
      std::max<size_t>(options_.max_tokens, 1) / std::max<size_t>(options_.clients.size(), 1), 1);
  for (auto own = client_expiry_.find(client_id);
       own != client_expiry_.end() && own->second.size() >= share;
       own = client_expiry_.find(client_id)) {
    const auto [expires, slot] = *own->second.begin();
    DropLocked(expires, slot);
  }
}

HttpResponse Authenticator::Issue(const std::string& client_id, bool read_only,
                                  Clock::time_point granted) {
  const auto now = Now();
  const auto expires =
      std::min(now + std::chrono::seconds(options_.token_ttl_seconds),
               granted + std::chrono::seconds(options_.max_token_lifetime_seconds));
  std::string token;
  for (;;) {
    auto made = NewToken();
    if (!made) return OAuthError(500, "server_error", "Cannot make a token");
    const Digest digest = DigestOf(*made);
    uint64_t slot;
    std::memcpy(&slot, digest.data(), sizeof(slot));
    std::unique_lock<std::shared_mutex> lock(mutex_);
    MakeRoomLocked(client_id, now);
    // A 64-bit slot collision is astronomically unlikely; draw again then.
    if (tokens_.try_emplace(slot, IssuedToken{digest, client_id, read_only, granted, expires})
            .second) {
      expiry_.emplace(expires, slot);
      client_expiry_[client_id].emplace(expires, slot);
      token = std::move(*made);
      break;
    }
  }
  const int64_t expires_in =
      std::chrono::duration_cast<std::chrono::seconds>(expires - now).count();
  JsonWriter writer;
  writer.StartObject();
  writer.Field("access_token", token);
  writer.Field("token_type", "bearer");
  writer.Field("expires_in", expires_in);
  writer.Field("issued_token_type", "urn:ietf:params:oauth:token-type:access_token");
  writer.EndObject();
  HttpResponse response;
  response.headers.emplace_back("Content-Type", "application/json");
  response.headers.emplace_back("Cache-Control", "no-store");
  response.body = writer.Take();
  return response;
}

HttpResponse Authenticator::IssueToken(const HttpRequest& request) {
  if (!enabled()) {
    return OAuthError(400, "unsupported_grant_type",
                      "Authentication is off on this server; no token is needed");
  }
  auto form = ParseForm(request.body);
  const std::string grant = form["grant_type"];
  if (grant == "client_credentials") {
    std::string id = form["client_id"];
    std::string secret = form["client_secret"];
    std::string_view basic = request.Header("authorization");
    if (id.empty() && ConsumePrefixIgnoringCase(&basic, "Basic ")) {
      std::string decoded = Base64Decode(StripWhitespace(basic));
      size_t colon = decoded.find(':');
      if (colon != std::string::npos) {
        id = decoded.substr(0, colon);
        secret = decoded.substr(colon + 1);
      }
    }
    if (id.empty() || secret.empty()) {
      return OAuthError(400, "invalid_request", "client_id and client_secret are required");
    }
    // Every client is compared, so the time does not tell which one matched.
    const OAuthClient* match = nullptr;
    for (const auto& client : options_.clients) {
      const bool id_equal = ConstantTimeEquals(client.id, id);
      const bool secret_equal = ConstantTimeEquals(client.secret, secret);
      if (id_equal && secret_equal && match == nullptr) match = &client;
    }
    if (match) return Issue(match->id, match->read_only, Now());
    return OAuthError(401, "invalid_client", "Unknown client or wrong secret");
  }
  if (grant == "urn:ietf:params:oauth:grant-type:token-exchange") {
    // Refresh: a still-valid token is exchanged for a new one with the same
    // rights and the same grant time, which bounds its lifetime.
    auto subject = Find(form["subject_token"]);
    if (!subject) return OAuthError(401, "invalid_grant", subject.error().message);
    return Issue(subject->client_id, subject->read_only, subject->granted);
  }
  return OAuthError(400, "unsupported_grant_type", StrCat("Unsupported grant_type: '", grant, "'"));
}

}  // namespace skade::rest
