// Vended credentials from a real MinIO's STS: limited to the table's
// location, and to reading it for a read-only client.
#include "skade/s3/credential_vendor.h"

#include <gtest/gtest.h>

#include "s3/s3_environment.h"
#include "skade/s3/s3_file_io.h"
#include "testing/matchers.h"

namespace skade::s3 {
namespace {

using testing::IsError;
using testing::IsOk;
using testing::NewBucket;
using testing::S3Environment;

// A FileIO that signs with `vended` (what a client would build from them).
std::shared_ptr<io::FileIO> ClientIO(const std::map<std::string, std::string>& vended) {
  auto properties = S3Environment::server().Properties();
  for (const auto& [key, value] : vended) properties[key] = value;
  return *NewS3FileIO(properties);
}

TEST(CredentialVendorTest, StsCredentialsReachOnlyTheirTableAndReadersOnlyRead) {
  std::string bucket = NewBucket();
  std::string table = "s3://" + bucket + "/wh/n/t", other = "s3://" + bucket + "/wh/n/u";
  auto admin = *NewS3FileIO(S3Environment::server().Properties());
  ASSERT_THAT(admin->WriteFile(table + "/metadata/a.json", "a", true), IsOk());
  ASSERT_THAT(admin->WriteFile(other + "/metadata/b.json", "b", true), IsOk());
  auto vendor =
      MakeCredentialVendor(S3Environment::server().Properties(), {VendingMode::kSts, 900, ""});
  ASSERT_TRUE(vendor) << vendor.error().ToString();

  auto writer_keys = (*vendor)({table}, false);
  ASSERT_TRUE(writer_keys) << writer_keys.error().ToString();
  ASSERT_TRUE(writer_keys->contains("s3.session-token"));
  EXPECT_NE(writer_keys->at("s3.access-key-id"), testing::MinioServer::kAccessKey);
  auto writer = ClientIO(*writer_keys);
  EXPECT_EQ(*writer->ReadFile(table + "/metadata/a.json"), "a");
  EXPECT_THAT(writer->WriteFile(table + "/data/f.parquet", "x", true), IsOk());
  EXPECT_THAT(writer->ReadFile(other + "/metadata/b.json"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(writer->WriteFile(other + "/data/f.parquet", "x", true),
              IsError(ErrorKind::kForbidden));

  auto reader_keys = (*vendor)({table}, true);
  ASSERT_TRUE(reader_keys) << reader_keys.error().ToString();
  EXPECT_NE(reader_keys->at("s3.access-key-id"), writer_keys->at("s3.access-key-id"));
  auto reader = ClientIO(*reader_keys);
  EXPECT_EQ(*reader->ReadFile(table + "/metadata/a.json"), "a");
  EXPECT_THAT(reader->WriteFile(table + "/data/g.parquet", "x", true),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(reader->ReadFile(other + "/metadata/b.json"), IsError(ErrorKind::kForbidden));
}

// Regression (review): keys were vended for the table's location only, though
// a table may keep its data and metadata elsewhere in the allowed roots
// (`write.data.path`, `write.metadata.path`): a writer with vended keys was
// denied its own data path. One session policy reaches every root — in other
// buckets too — and nothing beside them; a reader's only reads.
TEST(CredentialVendorTest, StsCredentialsReachEveryRootOfTheTable) {
  std::string bucket = NewBucket(), other_bucket = NewBucket();
  std::string table = "s3://" + bucket + "/wh/n/t", data = "s3://" + bucket + "/wh/n/t-data",
              metadata = "s3://" + other_bucket + "/meta/t";
  std::string sibling = "s3://" + bucket + "/wh/n/t-data2";
  auto admin = *NewS3FileIO(S3Environment::server().Properties());
  for (const std::string& root : {table, data, metadata, sibling}) {
    ASSERT_THAT(admin->WriteFile(root + "/a.json", "a", true), IsOk());
  }
  auto vendor =
      MakeCredentialVendor(S3Environment::server().Properties(), {VendingMode::kSts, 900, ""});
  ASSERT_TRUE(vendor) << vendor.error().ToString();

  auto writer_keys = (*vendor)({table, data, metadata}, false);
  ASSERT_TRUE(writer_keys) << writer_keys.error().ToString();
  auto writer = ClientIO(*writer_keys);
  for (const std::string& root : {table, data, metadata}) {
    EXPECT_EQ(*writer->ReadFile(root + "/a.json"), "a") << root;
    EXPECT_THAT(writer->WriteFile(root + "/f.parquet", "x", true), IsOk()) << root;
    auto listed = writer->ListDirectory(root);
    EXPECT_TRUE(listed) << root << ": " << listed.error().ToString();
  }
  EXPECT_THAT(writer->ReadFile(sibling + "/a.json"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(writer->WriteFile(sibling + "/f.parquet", "x", true), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(writer->WriteFile("s3://" + other_bucket + "/meta/t2/f", "x", true),
              IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(writer->ListDirectory(sibling));

  auto reader_keys = (*vendor)({table, data, metadata}, true);
  ASSERT_TRUE(reader_keys) << reader_keys.error().ToString();
  auto reader = ClientIO(*reader_keys);
  for (const std::string& root : {table, data, metadata}) {
    EXPECT_EQ(*reader->ReadFile(root + "/a.json"), "a") << root;
    EXPECT_THAT(reader->WriteFile(root + "/g.parquet", "x", true), IsError(ErrorKind::kForbidden))
        << root;
  }
  EXPECT_THAT(reader->ReadFile(sibling + "/a.json"), IsError(ErrorKind::kForbidden));

  // Any root with a wildcard refuses the whole set.
  EXPECT_THAT((*vendor)({table, data + "*"}, false), IsError(ErrorKind::kForbidden));
}

// Regression: a location of ~550 bytes or more made a session policy (its
// prefix three times) longer than STS's 2,048 characters: every vend was a
// 500, for good. It is refused before STS is asked, as a client's choice.
TEST(CredentialVendorTest, LocationTooLongForASessionPolicyIsRefused) {
  std::string bucket = NewBucket();
  auto vendor =
      MakeCredentialVendor(S3Environment::server().Properties(), {VendingMode::kSts, 900, ""});
  ASSERT_TRUE(vendor) << vendor.error().ToString();
  std::string longest_fit = "s3://" + bucket + "/wh/n/" + std::string(300, 't');
  EXPECT_THAT((*vendor)({longest_fit}, false), IsOk());
  std::string too_long = "s3://" + bucket + "/wh/n/" + std::string(600, 't');
  for (bool read_only : {false, true}) {
    auto vended = (*vendor)({too_long}, read_only);
    EXPECT_THAT(vended, IsError(ErrorKind::kForbidden));
    if (!vended) {
      EXPECT_NE(vended.error().message.find("2048"), std::string::npos);
    }
  }
}

TEST(CredentialVendorTest, StaticCredentialsGoOnlyToWriters) {
  auto vendor =
      MakeCredentialVendor(S3Environment::server().Properties(), {VendingMode::kStatic, 3600, ""});
  ASSERT_TRUE(vendor);
  auto writer = (*vendor)({"s3://b/t"}, false);
  ASSERT_TRUE(writer);
  EXPECT_EQ(writer->at("s3.access-key-id"), testing::MinioServer::kAccessKey);
  auto reader = (*vendor)({"s3://b/t"}, true);
  ASSERT_TRUE(reader);
  EXPECT_TRUE(reader->empty());
  EXPECT_FALSE(*MakeCredentialVendor(S3Environment::server().Properties(), {}));  // none
}

}  // namespace
}  // namespace skade::s3
