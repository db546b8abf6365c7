// libFuzzer target: arbitrary REST requests against a real catalog. The input
// is "METHOD TARGET\nBODY"; the service must answer every one without a 5xx
// from bad input, and every error body must be valid JSON (so valid UTF-8).
//
// An input whose first byte is not an ASCII letter runs with token
// authentication on, and that byte picks the credentials the request carries:
// (byte % 4) 0 none, 1 a writer's token, 2 a read-only client's token,
// 3 a token nobody issued. The rest of the input is the request as above, so
// the fuzzer reaches the authorized routes, the OAuth token route, and the
// read-only check, which must never let a read-only client's write succeed.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "skade/catalog/embedded_catalog.h"
#include "skade/rest/catalog_service.h"
#include "skade/util/json_reader.h"

namespace {

using skade::rest::Authenticator;
using skade::rest::AuthOptions;
using skade::rest::CatalogService;
using skade::rest::HttpRequest;
using skade::rest::HttpResponse;

constexpr std::string_view kWriterSecret = "fuzz-writer-secret";
constexpr std::string_view kReaderSecret = "fuzz-reader-secret";

struct Services {
  std::unique_ptr<CatalogService> open;
  std::shared_ptr<Authenticator> auth;
  std::unique_ptr<CatalogService> secured;
};

Services& Get() {
  static Services* services = [] {
    // This process's own warehouse, removed when the fuzzer exits normally
    // (a crash leaves it for the post-mortem).
    static std::string dir =
        (std::filesystem::temp_directory_path() / "skade-rest-fuzz.XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) std::abort();
    std::atexit([] { std::filesystem::remove_all(dir); });
    skade::catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir;
    options.durability = skade::store::Durability::kNone;
    options.store_map_size = 1ull << 30;
    auto catalog = skade::catalog::EmbeddedCatalog::Open(options);
    if (!catalog) std::abort();
    (void)(*catalog)->CreateNamespace({"ns"}, {});
    auto* made = new Services;
    made->open =
        std::make_unique<CatalogService>(*catalog, std::make_shared<Authenticator>(AuthOptions{}));
    AuthOptions auth;
    auth.mode = AuthOptions::Mode::kToken;
    auth.clients = {{"writer", std::string(kWriterSecret), false},
                    {"reader", std::string(kReaderSecret), true}};
    // Small, so that fuzzed grants also exercise eviction.
    auth.max_tokens = 64;
    made->auth = std::make_shared<Authenticator>(std::move(auth));
    made->secured = std::make_unique<CatalogService>(*catalog, made->auth);
    return made;
  }();
  return *services;
}

// A live token of the writer or the reader; issued again when fuzzed grants evicted it.
const std::string& TokenFor(Services& services, bool reader) {
  static std::string tokens[2];
  std::string& token = tokens[reader ? 1 : 0];
  HttpRequest probe;
  probe.headers.emplace_back("authorization", "Bearer " + token);
  if (token.empty() || !services.auth->Authenticate(probe)) {
    HttpRequest grant;
    grant.method = "POST";
    grant.target = "/v1/oauth/tokens";
    grant.body = std::string("grant_type=client_credentials&client_id=") +
                 (reader ? "reader" : "writer") +
                 "&client_secret=" + std::string(reader ? kReaderSecret : kWriterSecret);
    HttpResponse response = services.auth->IssueToken(grant);
    simdjson::dom::parser parser;
    auto element = skade::json::Parse(parser, response.body);
    if (response.status != 200 || !element) std::abort();
    auto object = skade::json::AsObject(*element, "token response");
    if (!object) std::abort();
    auto access = skade::json::GetString(*object, "access_token");
    if (!access) std::abort();
    token = std::string(*access);
  }
  return token;
}

bool IsWrite(std::string_view method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const unsigned char first = static_cast<unsigned char>(input[0]);
  const bool secured = !((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z'));
  const int credentials = secured ? first % 4 : 0;
  if (secured) input.remove_prefix(1);
  size_t space = input.find(' ');
  size_t newline = input.find('\n');
  if (space == std::string_view::npos || newline == std::string_view::npos || newline < space) {
    return 0;
  }
  // Explicit table locations are honoured as given, so a fuzzer could make
  // the server create directories anywhere it may write; keep them out.
  if (input.find("location") != std::string_view::npos) return 0;
  Services& services = Get();
  HttpRequest request;
  request.method = std::string(input.substr(0, space));
  request.target = std::string(input.substr(space + 1, newline - space - 1));
  request.body = std::string(input.substr(newline + 1));
  if (credentials == 1 || credentials == 2) {
    request.headers.emplace_back("authorization", "Bearer " + TokenFor(services, credentials == 2));
  } else if (credentials == 3) {
    request.headers.emplace_back("authorization", "Bearer " + std::string(64, '0'));
  }
  HttpResponse response =
      secured ? services.secured->Handle(request) : services.open->Handle(request);
  // Bad input is a 4xx; only real server faults may be 5xx (501/503 are not faults).
  if (response.status == 500) std::abort();
  // Clients parse error bodies strictly (simdjson also validates UTF-8).
  if (response.status >= 400 && !response.body.empty()) {
    simdjson::dom::parser parser;
    if (!skade::json::Parse(parser, response.body)) std::abort();
  }
  // A read-only client never gets a write through, except report-metrics,
  // skade's batched resolve (a read sent as POST) and its own token requests.
  if (credentials == 2 && IsWrite(request.method) && response.status >= 200 &&
      response.status < 300) {
    std::string_view path = std::string_view(request.target).substr(0, request.target.find('?'));
    const bool metrics = path.ends_with("/metrics");
    const bool resolve = path == "/v1/skade/resolve";
    if (!metrics && !resolve && path != "/v1/oauth/tokens") std::abort();
  }
  return 0;
}
