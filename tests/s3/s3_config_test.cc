#include "skade/s3/s3_config.h"

#include <gtest/gtest.h>

#include "skade/s3/credential_vendor.h"
#include "testing/matchers.h"

namespace skade::s3 {
namespace {

using testing::IsError;

TEST(S3ConfigTest, AnEndpointMeansPathStyle) {
  auto config = S3Config::FromProperties({{"s3.endpoint", "http://127.0.0.1:9000/"}});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->endpoint_scheme, "http");
  EXPECT_EQ(config->endpoint_host, "127.0.0.1:9000");
  EXPECT_TRUE(config->path_style);
  EXPECT_EQ(config->HostFor("b"), "127.0.0.1:9000");
  EXPECT_EQ(config->PathPrefixFor("b"), "/b");
}

TEST(S3ConfigTest, AwsIsVirtualHostedByDefault) {
  auto config = S3Config::FromProperties({{"s3.region", "eu-west-1"}});
  ASSERT_TRUE(config);
  EXPECT_FALSE(config->path_style);
  EXPECT_EQ(config->HostFor("b"), "b.s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(config->EndpointUrl(), "https://s3.eu-west-1.amazonaws.com");
}

TEST(S3ConfigTest, RejectsBadValuesNamingTheKey) {
  EXPECT_THAT(S3Config::FromProperties({{"s3.endpoint", "ftp://x"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(S3Config::FromProperties({{"s3.endpoint", "http://a b"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(S3Config::FromProperties({{"s3.path-style-access", "yes"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(S3Config::FromProperties({{"s3.multipart.parts-in-flight", "0"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(S3Config::FromProperties({{"s3.region", "us-east-1\r\nx: y"}}),
              IsError(ErrorKind::kInvalidArgument));
  auto half = S3Config::FromProperties({{"s3.access-key-id", "id"}});
  ASSERT_FALSE(half);
  EXPECT_NE(half.error().message.find("s3.secret-access-key"), std::string::npos);
}

// One operation's bound stays below the REST server's 30 s request timeout
// unless set; a bound under a second would fail a healthy store.
TEST(S3ConfigTest, TheOperationTimeoutDefaultsBelowTheRequestTimeout) {
  EXPECT_EQ(S3Config::FromProperties({})->operation_timeout_ms, 20'000);
  EXPECT_EQ(S3Config::FromProperties({{"s3.operation-timeout-ms", "90000"}})->operation_timeout_ms,
            90'000);
  for (const char* bad : {"0", "999", "-1", "20s", "3600001"}) {
    auto parsed = S3Config::FromProperties({{"s3.operation-timeout-ms", bad}});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("s3.operation-timeout-ms"), std::string::npos);
  }
}

TEST(S3ConfigTest, NeverShowsTheSecret) {
  auto config = S3Config::FromProperties(
      {{"s3.access-key-id", "id"}, {"s3.secret-access-key", "hunter2"}, {"s3.region", "r"}});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->ToString().find("hunter2"), std::string::npos);
  auto clients = ClientProperties(
      {{"s3.access-key-id", "id"}, {"s3.secret-access-key", "hunter2"}, {"s3.region", "r"}});
  ASSERT_TRUE(clients);
  for (const auto& [key, value] : *clients) EXPECT_NE(value, "hunter2") << key;
  EXPECT_EQ(clients->at("client.region"), "r");
  EXPECT_EQ(clients->at("s3.path-style-access"), "false");
}

TEST(S3ConfigTest, ParsesVendingModes) {
  EXPECT_EQ(*ParseVendingMode("sts"), VendingMode::kSts);
  EXPECT_THAT(ParseVendingMode("always"), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::s3
