// libFuzzer target: arbitrary REST requests against a real catalog. The input
// is "METHOD TARGET\nBODY"; the service must answer every one without a 5xx
// from bad input.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "skade/catalog/embedded_catalog.h"
#include "skade/rest/catalog_service.h"

namespace {

skade::rest::CatalogService& Service() {
  static skade::rest::CatalogService* service = [] {
    std::string dir = (std::filesystem::temp_directory_path() / "skade-rest-fuzz").string();
    std::filesystem::remove_all(dir);
    skade::catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir;
    options.durability = skade::store::Durability::kNone;
    options.store_map_size = 1ull << 30;
    auto catalog = skade::catalog::EmbeddedCatalog::Open(options);
    if (!catalog) std::abort();
    (void)(*catalog)->CreateNamespace({"ns"}, {});
    return new skade::rest::CatalogService(
        *catalog, std::make_shared<skade::rest::Authenticator>(skade::rest::AuthOptions{}));
  }();
  return *service;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t space = input.find(' ');
  size_t newline = input.find('\n');
  if (space == std::string_view::npos || newline == std::string_view::npos || newline < space) {
    return 0;
  }
  // Explicit table locations are honoured as given, so a fuzzer could make
  // the server create directories anywhere it may write; keep them out.
  if (input.find("location") != std::string_view::npos) return 0;
  skade::rest::HttpRequest request;
  request.method = std::string(input.substr(0, space));
  request.target = std::string(input.substr(space + 1, newline - space - 1));
  request.body = std::string(input.substr(newline + 1));
  auto response = Service().Handle(request);
  // Bad input is a 4xx; only real server faults may be 5xx (501/503 are not faults).
  if (response.status == 500) std::abort();
  return 0;
}
