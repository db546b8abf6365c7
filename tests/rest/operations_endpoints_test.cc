// GET /health/live, /health/ready and /metrics through CatalogService: they
// are public (metrics unless --metrics-auth token), never advertised in
// /v1/config, readiness fails with the check that failed when the store or
// the warehouse goes away or the server shuts down, and the metrics move
// with real commits.
#include "skade/rest/operations_endpoints.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "skade/catalog/embedded_catalog.h"
#include "skade/rest/catalog_service.h"
#include "skade/rest/readiness_probe.h"
#include "skade/rest/routes.h"
#include "skade/rest/server_metrics.h"
#include "skade/util/json_reader.h"
#include "testing/temp_dir.h"

namespace skade::rest {
namespace {

constexpr char kSchema[] =
    R"({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]})";

class OperationsEndpointsTest : public ::testing::Test {
 protected:
  // The warehouse and the store in separate directories, so either can go
  // away alone. The probe runs only when the test refreshes it.
  void Open(MetricsAuth metrics_auth, bool with_token_auth) {
    catalog::EmbeddedCatalogOptions options;
    options.warehouse = warehouse_;
    options.store = store_;
    options.durability = store::Durability::kNone;
    options.store_map_size = 1ull << 30;
    std::filesystem::create_directories(warehouse_);
    auto opened = catalog::EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
    registry_ = std::make_shared<metrics::Registry>();
    cache::ManifestCacheOptions cache;
    manifest_cache_ = std::make_shared<cache::ManifestCache>(cache);
    ASSERT_TRUE(RegisterCatalogMetrics(*registry_, *catalog_, manifest_cache_.get()));
    ReadinessOptions probe;
    probe.interval_ms = 3'600'000;
    probe.stale_after_ms = 3'600'000;
    auto readiness = ReadinessProbe::Start(CatalogReadinessChecks(catalog_), probe);
    ASSERT_TRUE(readiness);
    readiness_ = std::move(*readiness);
    ASSERT_TRUE(RegisterReadinessMetrics(*registry_, *readiness_));
    AuthOptions auth;
    if (with_token_auth) {
      auth.mode = AuthOptions::Mode::kToken;
      auth.clients = {{"writer", "w-secret", false}};
    }
    ScanPlanningOptions scan_planning;
    scan_planning.io = catalog_->file_io_ptr();
    scan_planning.file_policy =
        std::shared_ptr<const catalog::LocationPolicy>(catalog_, &catalog_->location_policy());
    scan_planning.manifest_cache = manifest_cache_;
    service_ = std::make_shared<CatalogService>(
        catalog_, std::make_shared<Authenticator>(std::move(auth)), IdempotencyOptions{},
        StorageAccess{}, std::move(scan_planning),
        std::make_shared<OperationsEndpoints>(registry_, readiness_, metrics_auth));
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "", const std::string& token = "") {
    HttpRequest request;
    request.method = method;
    request.target = target;
    request.body = body;
    if (!token.empty()) request.headers.emplace_back("authorization", "Bearer " + token);
    return service_->Handle(request);
  }

  std::string Token() {
    auto response = Call("POST", "/v1/oauth/tokens",
                         "grant_type=client_credentials&client_id=writer&client_secret=w-secret");
    EXPECT_EQ(response.status, 200) << response.body;
    auto element = json::Parse(parser_, response.body);
    EXPECT_TRUE(element);
    return std::string(*json::GetString(*json::AsObject(*element, "token"), "access_token"));
  }

  static std::string Header(const HttpResponse& response, std::string_view name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return "";
  }

  // The failed checks of a /health/ready body, "name: message" each (the
  // name alone when the body says no more).
  std::vector<std::string> FailedChecks(const HttpResponse& response) {
    std::vector<std::string> failed;
    auto element = json::Parse(parser_, response.body);
    EXPECT_TRUE(element) << response.body;
    if (!element) return failed;
    auto body = *json::AsObject(*element, "body");
    auto checks = json::GetArray(body, "checks");
    EXPECT_TRUE(checks);
    for (auto check : *checks) {
      auto object = *json::AsObject(check, "check");
      if (*json::GetString(object, "status") == "ok") continue;
      auto message = json::GetString(object, "message");
      failed.push_back(
          StrCat(*json::GetString(object, "name"), message ? ": " : "", message ? *message : ""));
    }
    return failed;
  }

  testing::TempDir dir_;
  std::string warehouse_ = dir_.Sub("warehouse");
  std::string store_ = dir_.Sub("store");
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  std::shared_ptr<metrics::Registry> registry_;
  std::shared_ptr<cache::ManifestCache> manifest_cache_;
  std::shared_ptr<ReadinessProbe> readiness_;
  std::shared_ptr<CatalogService> service_;
  simdjson::dom::parser parser_;
};

TEST_F(OperationsEndpointsTest, HealthIsPublicUnderTokenAuth) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/true);
  auto live = Call("GET", "/health/live");
  EXPECT_EQ(live.status, 200);
  EXPECT_EQ(live.body, R"({"status":"live"})");
  EXPECT_EQ(Header(live, "Cache-Control"), "no-store");
  auto ready = Call("GET", "/health/ready");
  EXPECT_EQ(ready.status, 200) << ready.body;
  EXPECT_TRUE(FailedChecks(ready).empty()) << ready.body;
  EXPECT_NE(ready.body.find(R"("status":"ready")"), std::string::npos) << ready.body;
  // The API itself still needs a token.
  EXPECT_EQ(Call("GET", "/v1/namespaces").status, 401);
}

TEST_F(OperationsEndpointsTest, MetricsArePublicByDefault) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/true);
  auto metrics = Call("GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(Header(metrics, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics.body.find("# TYPE skade_commits_total counter\n"), std::string::npos);
}

TEST_F(OperationsEndpointsTest, MetricsNeedATokenWhenAsked) {
  Open(MetricsAuth::kToken, /*with_token_auth=*/true);
  auto refused = Call("GET", "/metrics");
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(Header(refused, "WWW-Authenticate"), "Bearer");
  EXPECT_EQ(Call("GET", "/metrics", "", "not-a-token").status, 401);
  auto allowed = Call("GET", "/metrics", "", Token());
  EXPECT_EQ(allowed.status, 200);
  EXPECT_NE(allowed.body.find("skade_ready 1\n"), std::string::npos) << allowed.body;
  // Health stays public.
  EXPECT_EQ(Call("GET", "/health/ready").status, 200);
}

TEST_F(OperationsEndpointsTest, OnlyGetIsAllowed) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/false);
  EXPECT_EQ(Call("POST", "/health/live").status, 405);
  EXPECT_EQ(Call("DELETE", "/metrics").status, 405);
  EXPECT_EQ(Call("GET", "/health").status, 404);
  EXPECT_EQ(Call("GET", "/v1/health/live").status, 404);
}

TEST_F(OperationsEndpointsTest, NotAdvertisedInConfig) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/false);
  auto config = Call("GET", "/v1/config");
  ASSERT_EQ(config.status, 200);
  EXPECT_EQ(config.body.find("health"), std::string::npos) << config.body;
  EXPECT_EQ(config.body.find("GET /metrics"), std::string::npos) << config.body;
  for (const std::string& endpoint : AdvertisedEndpoints()) {
    EXPECT_EQ(endpoint.find("health"), std::string::npos) << endpoint;
    EXPECT_NE(endpoint, "GET /metrics");
  }
}

TEST_F(OperationsEndpointsTest, NotReadyOnceTheWarehouseRootIsGone) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/false);
  std::filesystem::remove_all(warehouse_);
  // The answer is the last round's until the probe runs again.
  EXPECT_EQ(Call("GET", "/health/ready").status, 200);
  readiness_->Refresh();
  auto ready = Call("GET", "/health/ready");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(Header(ready, "Retry-After"), "1");
  auto failed = FailedChecks(ready);
  ASSERT_EQ(failed.size(), 1u) << ready.body;
  EXPECT_TRUE(failed[0].starts_with("warehouse: Warehouse root ")) << failed[0];
  EXPECT_EQ(Call("GET", "/health/live").status, 200);
  EXPECT_NE(Call("GET", "/metrics").body.find("skade_ready 0\n"), std::string::npos);
  // Back once it is back.
  std::filesystem::create_directories(warehouse_);
  readiness_->Refresh();
  EXPECT_EQ(Call("GET", "/health/ready").status, 200);
}

// Health is public, but why a check failed names the warehouse: only a
// client with a token is told.
TEST_F(OperationsEndpointsTest, WhyNotReadyIsForClientsOnly) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/true);
  std::filesystem::remove_all(warehouse_);
  readiness_->Refresh();
  auto anonymous = Call("GET", "/health/ready");
  EXPECT_EQ(anonymous.status, 503);
  EXPECT_EQ(FailedChecks(anonymous), std::vector<std::string>{"warehouse"}) << anonymous.body;
  EXPECT_EQ(anonymous.body.find(warehouse_), std::string::npos) << anonymous.body;
  EXPECT_EQ(FailedChecks(Call("GET", "/health/ready", "", "not-a-token")),
            std::vector<std::string>{"warehouse"});
  auto client = Call("GET", "/health/ready", "", Token());
  EXPECT_EQ(client.status, 503);
  auto failed = FailedChecks(client);
  ASSERT_EQ(failed.size(), 1u) << client.body;
  EXPECT_TRUE(failed[0].starts_with("warehouse: Warehouse root ")) << failed[0];
}

TEST_F(OperationsEndpointsTest, NotReadyOnceTheStoreFileIsGone) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/false);
  std::filesystem::remove(store_ + "/data.mdb");
  readiness_->Refresh();
  auto ready = Call("GET", "/health/ready");
  EXPECT_EQ(ready.status, 503);
  auto failed = FailedChecks(ready);
  ASSERT_EQ(failed.size(), 1u) << ready.body;
  EXPECT_TRUE(failed[0].starts_with("store: Catalog store file ")) << failed[0];
}

TEST_F(OperationsEndpointsTest, NotReadyWhileShuttingDown) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/false);
  readiness_->BeginShutdown();
  auto ready = Call("GET", "/health/ready");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(FailedChecks(ready), std::vector<std::string>{"shutdown: the server is shutting down"});
  EXPECT_EQ(Call("GET", "/health/live").status, 200);
}

// Commits through the REST API move the commit counters: a commit that
// lands is one logical and one physical commit, a failed requirement a
// conflict.
TEST_F(OperationsEndpointsTest, MetricsCountCommitsAndConflicts) {
  Open(MetricsAuth::kNone, /*with_token_auth=*/false);
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
  ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables",
                 std::string(R"({"name":"t","schema":)") + kSchema + "}")
                .status,
            200);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Call("POST", "/v1/namespaces/n/tables/t",
                   R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"k":")" +
                       std::to_string(i) + R"("}}]})")
                  .status,
              200);
  }
  EXPECT_EQ(Call("POST", "/v1/namespaces/n/tables/t",
                 R"({"requirements":[{"type":"assert-current-schema-id","current-schema-id":7}],
                     "updates":[{"action":"set-properties","updates":{"a":"b"}}]})")
                .status,
            409);
  const std::string body = Call("GET", "/metrics").body;
  for (const char* line : {
           "skade_commits_total{kind=\"logical\"} 3\n",
           "skade_commits_total{kind=\"physical\"} 3\n",
           "skade_commit_conflicts_total 1\n",
           "skade_commit_batch_size_bucket{le=\"1\"} 3\n",
           "skade_commit_batch_size_count 3\n",
           "skade_commits_queued 0\n",
           "skade_ready 1\n",
           "skade_cache_capacity_bytes{cache=\"manifest\"} ",
           "skade_cache_hits_total{cache=\"metadata\"} ",
           "skade_store_map_size_bytes 1073741824\n",
           "skade_build_info{version=\"",
       }) {
    EXPECT_NE(body.find(line), std::string::npos) << line << "\n" << body;
  }
  // Every commit of the table (the create and the three) is in the log.
  EXPECT_NE(body.find("skade_commit_log_last_sequence 4\n"), std::string::npos) << body;
}

}  // namespace
}  // namespace skade::rest
