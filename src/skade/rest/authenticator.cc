#include "skade/rest/authenticator.h"

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

std::string NewToken() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 4; ++i) {
    uint64_t bits = RandomU64();
    for (int k = 0; k < 16; ++k, bits >>= 4) token.push_back(kHex[bits & 0xF]);
  }
  return token;
}

HttpResponse OAuthError(int status, std::string_view error, std::string_view description) {
  JsonWriter writer;
  writer.StartObject();
  writer.Field("error", error);
  writer.Field("error_description", description);
  writer.EndObject();
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = writer.Take();
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

Result<Principal> Authenticator::Authenticate(const HttpRequest& request) {
  if (!enabled()) return Principal{};
  std::string_view header = request.Header("authorization");
  std::string_view token = header;
  if (!ConsumePrefix(&token, "Bearer ") && !ConsumePrefix(&token, "bearer ")) {
    return MakeError(ErrorKind::kNotAuthorized, "Not authorized: missing bearer token");
  }
  token = StripWhitespace(token);
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = tokens_.find(std::string(token));
  if (it == tokens_.end()) {
    return MakeError(ErrorKind::kNotAuthorized, "Not authorized: unknown or revoked token");
  }
  if (it->second.expires <= std::chrono::steady_clock::now()) {
    return MakeError(ErrorKind::kNotAuthorized, "Not authorized: token expired");
  }
  return Principal{it->second.client_id, it->second.read_only};
}

HttpResponse Authenticator::Issue(const std::string& client_id, bool read_only) {
  std::string token = NewToken();
  auto now = std::chrono::steady_clock::now();
  {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    std::erase_if(tokens_, [&](const auto& entry) { return entry.second.expires <= now; });
    tokens_[token] = {client_id, read_only, now + std::chrono::seconds(options_.token_ttl_seconds)};
  }
  JsonWriter writer;
  writer.StartObject();
  writer.Field("access_token", token);
  writer.Field("token_type", "bearer");
  writer.Field("expires_in", static_cast<int64_t>(options_.token_ttl_seconds));
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
    if (id.empty() && ConsumePrefix(&basic, "Basic ")) {
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
    for (const auto& client : options_.clients) {
      if (ConstantTimeEquals(client.id, id) && ConstantTimeEquals(client.secret, secret)) {
        return Issue(client.id, client.read_only);
      }
    }
    return OAuthError(401, "invalid_client", "Unknown client or wrong secret");
  }
  if (grant == "urn:ietf:params:oauth:grant-type:token-exchange") {
    // Refresh: a still-valid token is exchanged for a new one with the same rights.
    HttpRequest probe;
    probe.headers.emplace_back("authorization", "Bearer " + form["subject_token"]);
    auto principal = Authenticate(probe);
    if (!principal) return OAuthError(401, "invalid_grant", principal.error().message);
    return Issue(principal->client_id, principal->read_only);
  }
  return OAuthError(400, "unsupported_grant_type", StrCat("Unsupported grant_type: '", grant, "'"));
}

}  // namespace skade::rest
