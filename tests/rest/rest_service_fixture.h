// A CatalogService over a fresh EmbeddedCatalog in a temporary directory, for
// the REST tests: requests straight into CatalogService::Handle, and checks of
// ErrorModel bodies. rest_over_http_test.cc puts the same service behind a
// real HttpServer.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/rest/authenticator.h"
#include "skade/rest/catalog_service.h"
#include "skade/rest/http/http_server.h"
#include "skade/util/json_reader.h"
#include "testing/temp_dir.h"

namespace skade::testing {

/// A one-column schema for CreateTable bodies.
inline constexpr char kSchema[] =
    R"({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]})";

class RestServiceTest : public ::testing::Test {
 protected:
  using CatalogWrapper =
      std::function<std::shared_ptr<catalog::Catalog>(std::shared_ptr<catalog::Catalog>)>;

  /// Opens the catalog (no durability) and the service over it; call from
  /// SetUp (ASSERTs). Calling it again reopens the same warehouse. With
  /// `wrap`, the service runs over what it makes of the catalog (tests that
  /// watch or fail the catalog's calls). Scan planning reads through the
  /// catalog's FileIO unless `scan_planning` names one.
  void OpenService(rest::AuthOptions auth = {}, rest::IdempotencyOptions idempotency = {},
                   const CatalogWrapper& wrap = nullptr, rest::StorageAccess storage = {},
                   rest::ScanPlanningOptions scan_planning = {}) {
    service_.reset();
    catalog_.reset();
    catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir_.path();
    options.durability = store::Durability::kNone;
    options.store_map_size = 1ull << 30;
    auto opened = catalog::EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened);
    catalog_ = *opened;
    if (!scan_planning.io) scan_planning.io = catalog_->file_io_ptr();
    if (!scan_planning.file_policy) {
      scan_planning.file_policy =
          std::shared_ptr<const catalog::LocationPolicy>(catalog_, &catalog_->location_policy());
    }
    service_ = std::make_shared<rest::CatalogService>(
        wrap ? wrap(catalog_) : catalog_, std::make_shared<rest::Authenticator>(std::move(auth)),
        std::move(idempotency), std::move(storage), std::move(scan_planning));
  }

  /// OpenService with token authentication and two clients: "writer"
  /// (secret "w-secret") and the read-only "reader" (secret "r-secret").
  void OpenServiceWithWriterAndReader() {
    rest::AuthOptions auth;
    auth.mode = rest::AuthOptions::Mode::kToken;
    auth.clients = {{"writer", "w-secret", false}, {"reader", "r-secret", true}};
    OpenService(std::move(auth));
  }

  /// An access token for client `id` (client-credentials grant, in-process).
  std::string Token(const std::string& id, const std::string& secret) {
    auto response =
        Call("POST", "/v1/oauth/tokens",
             "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret,
             {{"content-type", "application/x-www-form-urlencoded"}});
    EXPECT_EQ(response.status, 200) << response.body;
    return std::string(*json::GetString(Body(response), "access_token"));
  }

  /// Handles one request in-process.
  rest::HttpResponse Call(const std::string& method, const std::string& target,
                          const std::string& body = "",
                          std::vector<std::pair<std::string, std::string>> headers = {}) {
    rest::HttpRequest request;
    request.method = method;
    request.target = target;
    request.body = body;
    request.headers = std::move(headers);
    return service_->Handle(request);
  }

  /// A server over service_ as `skade serve` dispatches: one I/O thread, a
  /// pool of two for what MayBlock sends there, any free port, no request log.
  rest::HttpServerOptions OneIoThreadServerOptions() const {
    rest::HttpServerOptions http;
    http.port = 0;
    http.threads = 1;
    http.pool_threads = 2;
    http.log_requests = false;
    http.may_block = [service = service_](const rest::HttpRequest& r) {
      return service->MayBlock(r);
    };
    return http;
  }

  /// The ErrorModel `type` of an error response (an HttpResponse or a parsed
  /// one from a socket), after checking the body is strictly valid JSON with
  /// the response's status as `code` and a `message`.
  template <typename Response>
  std::string ErrorType(const Response& response) {
    auto element = json::Parse(parser_, response.body);
    EXPECT_TRUE(element) << "not valid JSON/UTF-8: " << response.body;
    if (!element) return "<not json>";
    auto error = json::GetObject(*json::AsObject(*element, "body"), "error");
    if (!error) return "<no error>";
    EXPECT_EQ(*json::GetInt64(*error, "code"), response.status);
    EXPECT_TRUE(json::GetString(*error, "message"));
    return std::string(*json::GetString(*error, "type"));
  }

  /// The JSON object body of a response.
  template <typename Response>
  json::Object Body(const Response& response) {
    auto element = json::Parse(parser_, response.body);
    EXPECT_TRUE(element) << response.body;
    return *json::AsObject(*element, "body");
  }

  TempDir dir_;
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  std::shared_ptr<rest::CatalogService> service_;
  simdjson::dom::parser parser_;
};

}  // namespace skade::testing
