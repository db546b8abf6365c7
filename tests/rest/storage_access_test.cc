// What the server tells clients about the warehouse's storage: settings in
// /v1/config and every LoadTableResult, credentials only to a client that
// asks for them (X-Iceberg-Access-Delegation), and the loadCredentials route.
#include <gtest/gtest.h>

#include <atomic>

#include "http/test_client.h"
#include "rest/rest_service_fixture.h"
#include "skade/rest/http/http_server.h"
#include "skade/util/strings.h"
#include "testing/gate.h"

namespace skade::rest {
namespace {

class StorageAccessTest : public testing::RestServiceTest {
 protected:
  void SetUp() override {
    StorageAccess storage;
    storage.client_properties = {{"s3.endpoint", "http://127.0.0.1:9000"},
                                 {"s3.path-style-access", "true"}};
    storage.vendor = [this](const std::vector<std::string>& locations,
                            bool read_only) -> Result<StorageProperties> {
      ++vended_;
      if (on_vend_) on_vend_();
      const std::string& location = locations.front();
      last_location_ = location;
      // As the STS vendor refuses a location its policy cannot hold.
      if (location.find("refused") != std::string::npos) {
        return MakeError(ErrorKind::kForbidden, "Cannot vend credentials for ", location);
      }
      if (read_only) return StorageProperties{};  // as the static vendor: nothing for readers
      return StorageProperties{{"s3.access-key-id", "id"}, {"s3.secret-access-key", "secret"}};
    };
    OpenService(auth_, {}, nullptr, std::move(storage));
    ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    auto created = Call("POST", "/v1/namespaces/n/tables",
                        StrCat(R"({"name":"t","schema":)", testing::kSchema, "}"));
    ASSERT_EQ(created.status, 200) << created.body;
    EXPECT_EQ(created.body.find("secret"), std::string::npos);
  }

  rest::AuthOptions auth_;
  static constexpr std::pair<const char*, const char*> kVended{"x-iceberg-access-delegation",
                                                               "vended-credentials"};
  std::atomic<int> vended_{0};
  std::function<void()> on_vend_;  // set before requests that vend
  std::string last_location_;
};

// The response's Cache-Control, or "".
std::string CacheControl(const HttpResponse& response) {
  for (const auto& [name, value] : response.headers) {
    if (name == "Cache-Control") return value;
  }
  return "";
}

TEST_F(StorageAccessTest, ConfigHandsOutTheStorageSettingsButNoSecret) {
  auto config = Call("GET", "/v1/config");
  ASSERT_EQ(config.status, 200);
  auto defaults = *json::GetObject(Body(config), "defaults");
  EXPECT_EQ(*json::GetString(defaults, "s3.endpoint"), "http://127.0.0.1:9000");
  EXPECT_EQ(*json::GetString(defaults, "s3.path-style-access"), "true");
  EXPECT_EQ(config.body.find("secret"), std::string::npos);
  EXPECT_NE(config.body.find("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials"),
            std::string::npos);
}

TEST_F(StorageAccessTest, CredentialsGoOnlyToAClientThatAsks) {
  auto plain = Call("GET", "/v1/namespaces/n/tables/t");
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(*json::GetString(*json::GetObject(Body(plain), "config"), "s3.endpoint"),
            "http://127.0.0.1:9000");
  EXPECT_EQ(plain.body.find("secret"), std::string::npos);
  EXPECT_EQ(vended_.load(), 0);
  EXPECT_EQ(CacheControl(plain), "");

  auto asked = Call("GET", "/v1/namespaces/n/tables/t", "",
                    {{kVended.first, "remote-signing, vended-credentials"}});
  ASSERT_EQ(asked.status, 200);
  auto body = Body(asked);
  EXPECT_EQ(*json::GetString(*json::GetObject(body, "config"), "s3.secret-access-key"), "secret");
  // No cache on the way may keep an answer with credentials (review finding).
  EXPECT_EQ(CacheControl(asked), "no-store");
  auto credentials = *json::GetArray(body, "storage-credentials");
  ASSERT_EQ(credentials.size(), 1u);
  auto location = std::string(*json::GetString(*json::GetObject(body, "metadata"), "location"));
  EXPECT_EQ(*json::GetString(*json::AsObject(credentials.at(0), "c"), "prefix"), location);
  EXPECT_EQ(last_location_, location);
}

TEST_F(StorageAccessTest, LoadCredentialsVendsForTheTable) {
  auto loaded = Call("GET", "/v1/namespaces/n/tables/t/credentials");
  ASSERT_EQ(loaded.status, 200) << loaded.body;
  EXPECT_EQ(CacheControl(loaded), "no-store");
  auto credentials = *json::GetArray(Body(loaded), "storage-credentials");
  ASSERT_EQ(credentials.size(), 1u);
  auto config = *json::GetObject(*json::AsObject(credentials.at(0), "c"), "config");
  EXPECT_EQ(*json::GetString(config, "s3.access-key-id"), "id");
  EXPECT_EQ(ErrorType(Call("GET", "/v1/namespaces/n/tables/missing/credentials")),
            "NoSuchTableException");
}

// Regression: create and register committed the table, then failed to vend
// for its location: the client got an error, and its retry a 409. The
// location is now checked before the commit, so a refusal leaves no table.
TEST_F(StorageAccessTest, ALocationThatCannotBeVendedForLeavesNoTable) {
  const std::string create = StrCat(R"({"name":"refused","schema":)", testing::kSchema, "}");
  auto refused = Call("POST", "/v1/namespaces/n/tables", create, {kVended});
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/refused").status, 404);
  auto retried = Call("POST", "/v1/namespaces/n/tables", create);  // without credentials
  EXPECT_EQ(retried.status, 200) << retried.body;

  // Register: the location is the metadata file's.
  auto metadata_location = std::string(*json::GetString(Body(retried), "metadata-location"));
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/n/tables/refused").status, 204);
  const std::string reg =
      StrCat(R"({"name":"again","metadata-location":")", metadata_location, R"("})");
  auto unregistered = Call("POST", "/v1/namespaces/n/register", reg, {kVended});
  EXPECT_EQ(unregistered.status, 403) << unregistered.body;
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/n/tables/again").status, 404);
  EXPECT_EQ(Call("POST", "/v1/namespaces/n/register", reg).status, 200);

  // A location the vendor accepts is vended for once it exists.
  auto created = Call("POST", "/v1/namespaces/n/tables",
                      StrCat(R"({"name":"fine","schema":)", testing::kSchema, "}"), {kVended});
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(*json::GetString(*json::GetObject(Body(created), "config"), "s3.secret-access-key"),
            "secret");
}

// Regression: loadTable with vended credentials and loadCredentials called
// STS on an I/O thread, so a stalled STS froze every request on it
// (/v1/config, /health/*). As `skade serve` wires it, with one I/O thread:
// both vend on the pool and the I/O thread answers meanwhile.
TEST_F(StorageAccessTest, VendingRunsOnThePoolNotOnAnIoThread) {
  testing::Gate stalled;
  std::atomic<int> waiting{0};
  on_vend_ = [&] {
    ++waiting;
    stalled.Wait();
  };
  HttpServerOptions http = OneIoThreadServerOptions();
  auto server = HttpServer::Start(
      http, [service = service_](const HttpRequest& r) { return service->Handle(r); });
  ASSERT_TRUE(server) << server.error().ToString();
  const std::string vended = "X-Iceberg-Access-Delegation: vended-credentials\r\n";
  testing::TestClient load((*server)->port()), credentials((*server)->port());
  ASSERT_TRUE(load.Send(testing::MakeRequest("GET", "/v1/namespaces/n/tables/t", "", vended)));
  ASSERT_TRUE(credentials.Send(
      testing::MakeRequest("GET", "/v1/namespaces/n/tables/t/credentials", "", "")));
  testing::WaitUntil([&] { return waiting.load() >= 1; });

  testing::TestClient other((*server)->port());
  auto config = other.Exchange(testing::MakeRequest("GET", "/v1/config", "", ""));
  stalled.Open();
  ASSERT_TRUE(config) << "the I/O thread was held by a vending request";
  EXPECT_EQ(config->status, 200);
  for (testing::TestClient* client : {&load, &credentials}) {
    auto response = client->ReadResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200) << response->body;
  }
  EXPECT_EQ(waiting.load(), 2);
}

// A read-only client never gets write access to storage that the REST API
// would refuse it.
class ReadOnlyStorageAccessTest : public StorageAccessTest {
 protected:
  void SetUp() override {
    auth_.mode = rest::AuthOptions::Mode::kToken;
    auth_.clients = {{"writer", "w-secret", false}, {"reader", "r-secret", true}};
    StorageAccess storage;
    storage.vendor = [this](const std::vector<std::string>&,
                            bool read_only) -> Result<StorageProperties> {
      read_only_calls_ += read_only ? 1 : 0;
      if (read_only) return StorageProperties{};
      return StorageProperties{{"s3.access-key-id", "id"}, {"s3.secret-access-key", "secret"}};
    };
    OpenService(auth_, {}, nullptr, std::move(storage));
    writer_ = Token("writer", "w-secret");
    reader_ = Token("reader", "r-secret");
    ASSERT_EQ(As(writer_, "POST", "/v1/namespaces", R"({"namespace":["n"]})").status, 200);
    ASSERT_EQ(As(writer_, "POST", "/v1/namespaces/n/tables",
                 StrCat(R"({"name":"t","schema":)", testing::kSchema, "}"))
                  .status,
              200);
  }

  HttpResponse As(const std::string& token, const std::string& method, const std::string& target) {
    return Call(method, target, "",
                {{"authorization", "Bearer " + token}, {kVended.first, kVended.second}});
  }
  HttpResponse As(const std::string& token, const std::string& method, const std::string& target,
                  const std::string& body) {
    return Call(method, target, body, {{"authorization", "Bearer " + token}});
  }

  int read_only_calls_ = 0;
  std::string writer_, reader_;
};

TEST_F(ReadOnlyStorageAccessTest, AReadOnlyClientGetsNoWriteCredentials) {
  auto as_writer = As(writer_, "GET", "/v1/namespaces/n/tables/t");
  ASSERT_EQ(as_writer.status, 200);
  EXPECT_NE(as_writer.body.find("secret"), std::string::npos);
  auto as_reader = As(reader_, "GET", "/v1/namespaces/n/tables/t");
  ASSERT_EQ(as_reader.status, 200);
  EXPECT_EQ(as_reader.body.find("secret"), std::string::npos);
  EXPECT_EQ(as_reader.body.find("storage-credentials"), std::string::npos);
  auto loaded = As(reader_, "GET", "/v1/namespaces/n/tables/t/credentials");
  ASSERT_EQ(loaded.status, 200);
  EXPECT_EQ(loaded.body, R"({"storage-credentials":[]})");
  EXPECT_EQ(read_only_calls_, 2);
}

TEST_F(StorageAccessTest, WithoutAVendorNothingIsVended) {
  OpenService();
  auto loaded = Call("GET", "/v1/namespaces/n/tables/t/credentials");
  ASSERT_EQ(loaded.status, 200);
  EXPECT_EQ(loaded.body, R"({"storage-credentials":[]})");
  auto asked = Call("GET", "/v1/namespaces/n/tables/t", "", {{kVended.first, kVended.second}});
  ASSERT_EQ(asked.status, 200);
  EXPECT_EQ(asked.body.find("storage-credentials"), std::string::npos);
}

}  // namespace
}  // namespace skade::rest
