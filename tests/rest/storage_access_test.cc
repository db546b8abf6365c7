// What the server tells clients about the warehouse's storage: settings in
// /v1/config and every LoadTableResult, credentials only to a client that
// asks for them (X-Iceberg-Access-Delegation), and the loadCredentials route.
#include <gtest/gtest.h>

#include <atomic>

#include "rest/rest_service_fixture.h"
#include "skade/util/strings.h"

namespace skade::rest {
namespace {

class StorageAccessTest : public testing::RestServiceTest {
 protected:
  void SetUp() override {
    StorageAccess storage;
    storage.client_properties = {{"s3.endpoint", "http://127.0.0.1:9000"},
                                 {"s3.path-style-access", "true"}};
    storage.vendor = [this](const std::string& location,
                            bool read_only) -> Result<StorageProperties> {
      ++vended_;
      last_location_ = location;
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

// A read-only client never gets write access to storage that the REST API
// would refuse it.
class ReadOnlyStorageAccessTest : public StorageAccessTest {
 protected:
  void SetUp() override {
    auth_.mode = rest::AuthOptions::Mode::kToken;
    auth_.clients = {{"writer", "w-secret", false}, {"reader", "r-secret", true}};
    StorageAccess storage;
    storage.vendor = [this](const std::string&, bool read_only) -> Result<StorageProperties> {
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
