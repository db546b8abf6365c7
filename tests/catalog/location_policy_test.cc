#include "skade/catalog/location_policy.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "skade/util/strings.h"
#include "testing/bucket_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

TEST(LocationPolicyTest, DefaultsToTheWarehouse) {
  LocationPolicy policy("file:///data/wh", {}, io::NewLocalFileIO());
  EXPECT_THAT(policy.Check("file:///data/wh"), IsOk());
  EXPECT_THAT(policy.Check("file:///data/wh/ns/t"), IsOk());
  EXPECT_THAT(policy.Check("file:/data/wh/ns/t/"), IsOk());
  EXPECT_THAT(policy.Check("/data/wh//ns/t"), IsOk());
  EXPECT_THAT(policy.Check("file:///data/wh2/t"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("file:///etc"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("file:///data/wh/../etc"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(policy.Check("s3://bucket/wh"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(policy.Check("relative/path"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocationPolicyTest, ExplicitRootsAndAnywhere) {
  LocationPolicy policy("file:///data/wh", {"file:///data/wh", "/scratch/"}, io::NewLocalFileIO());
  EXPECT_THAT(policy.Check("file:///scratch/t"), IsOk());
  EXPECT_THAT(policy.Check("file:///scratchy/t"), IsError(ErrorKind::kForbidden));
  LocationPolicy anywhere("file:///data/wh", {"*"}, io::NewLocalFileIO());
  EXPECT_THAT(anywhere.Check("file:///tmp/x"), IsOk());
  EXPECT_THAT(anywhere.Check("file:///tmp/../x"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocationPolicyTest, TheWarehouseIsAlwaysAllowed) {
  // Regression: with --allow-location and the default relative warehouse,
  // every default table location was refused.
  LocationPolicy policy("file:///data/wh", {"/scratch"}, io::NewLocalFileIO());
  EXPECT_THAT(policy.Check("file:///data/wh/ns/t"), IsOk());
  EXPECT_THAT(policy.Check("file:///scratch/t"), IsOk());
}

TEST(LocationPolicyTest, RelativeRootsAreTakenFromTheWorkingDirectory) {
  std::string cwd = std::filesystem::current_path().string();
  LocationPolicy policy("file:///data/wh", {"./rel/root"}, io::NewLocalFileIO());
  EXPECT_THAT(policy.Check("file://" + cwd + "/rel/root/t"), IsOk());
  EXPECT_THAT(policy.Check("file://" + cwd + "/rel/other"), IsError(ErrorKind::kForbidden));
}

TEST(LocationPolicyTest, TheStoreDirectoryIsNeverAllowed) {
  LocationPolicy policy("file:///data/wh", {"*"}, io::NewLocalFileIO());
  EXPECT_THAT(policy.Check("file:///data/wh/.skade"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("file:///data/wh/.skade/catalog/data.mdb"),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("file:///data/wh/.skadex/t"), IsOk());
}

TEST(LocationPolicyTest, ALocationTheFileIOCannotWriteIsBadInputEvenAnywhere) {
  LocationPolicy anywhere("file:///data/wh", {"*", "s3://bucket/x"}, io::NewLocalFileIO());
  EXPECT_THAT(anywhere.Check("s3://bucket/x/t"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(anywhere.Check("file://host/data/wh/t"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(anywhere.Check("file:///data/wh/t"), IsOk());
}

TEST(LocationPolicyTest, ComparesSchemeAuthorityAndPathOfAnyStorage) {
  auto io = std::make_shared<testing::BucketFileIO>();
  LocationPolicy policy("s3://bucket/wh/", {"s3://bucket/shared"}, io);
  EXPECT_THAT(policy.Check("s3://bucket/wh/ns/t"), IsOk());
  EXPECT_THAT(policy.Check("s3://bucket/shared/t"), IsOk());
  EXPECT_THAT(policy.Check("s3://bucket/wh2/t"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("s3://bucket/sharedx"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("s3://bucket/wh/.skade/catalog"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("s3://bucket/wh/../x"), IsError(ErrorKind::kInvalidArgument));
  // What the FileIO cannot address is bad input, not merely forbidden.
  EXPECT_THAT(policy.Check("s3://other/wh/t"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(policy.Check("/wh/t"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(policy.warehouse_directory().ToString(), "s3://bucket/wh");
  EXPECT_EQ(policy.reserved_directory().ToString(), "s3://bucket/wh/.skade");
}

TEST(LocationPolicyTest, RootsAreAlsoAllowedAsTheFileIOResolvesThem) {
  auto io = std::make_shared<testing::BucketFileIO>();
  io->Alias("s3://bucket/alias", "s3://bucket/real");
  LocationPolicy policy("s3://bucket/wh", {"s3://bucket/alias"}, io);
  EXPECT_THAT(policy.Check("s3://bucket/alias/t"), IsOk());
  EXPECT_THAT(policy.Check("s3://bucket/real/t"), IsOk());
  EXPECT_THAT(policy.Check("s3://bucket/other/t"), IsError(ErrorKind::kForbidden));
}

TEST(LocationPolicyTest, ALocalRootIsAlsoAllowedThroughItsRealPath) {
  testing::TempDir dir;
  std::string real = std::filesystem::canonical(dir.path()).string();
  std::filesystem::create_directories(real + "/real");
  std::filesystem::create_directory_symlink(real + "/real", real + "/link");
  LocationPolicy policy("file:///data/wh", {real + "/link"}, io::NewLocalFileIO());
  EXPECT_THAT(policy.Check("file://" + real + "/link/t"), IsOk());
  EXPECT_THAT(policy.Check("file://" + real + "/real/t"), IsOk());
  EXPECT_THAT(policy.Check("file://" + real + "/t"), IsError(ErrorKind::kForbidden));
}

// Regression: a table at `…/t1#x` or `…/t1?x` was accepted, and PyIceberg
// (urlparse) wrote its data file, manifest and manifest list all to `…/t1`,
// the root of a table beside it, each over the last. Clients cut a URI at
// both, on every storage; what they would not cut is the policy's to judge.
TEST(LocationPolicyTest, ATableRootWithAFragmentOrQueryIsBadInput) {
  LocationPolicy local("file:///data/wh", {"*"}, io::NewLocalFileIO());
  LocationPolicy bucket("s3://bucket/wh", {}, std::make_shared<testing::BucketFileIO>());
  for (const std::string& root :
       {std::string("file:///data/wh/ns/t1#x"), std::string("/data/wh/ns/t1?x"),
        std::string("s3://bucket/wh/ns/t1#x"), std::string("s3://bucket/wh/ns/t1?x=1"),
        std::string("s3://bucket/wh/ns/#/t")}) {
    const LocationPolicy& policy = root.starts_with("s3") ? bucket : local;
    EXPECT_THAT(policy.Check(root), IsOk()) << root;  // any other location may hold one
    auto checked = policy.CheckTableRoot(root);
    EXPECT_THAT(checked, IsError(ErrorKind::kInvalidArgument)) << root;
    if (!checked) {
      const char character = root[root.find_first_of("#?")];
      EXPECT_NE(checked.error().message.find(StrCat("'", character, "'")), std::string::npos)
          << checked.error().message;
      EXPECT_NE(checked.error().message.find(character == '#' ? "fragment" : "query"),
                std::string::npos)
          << checked.error().message;
    }
  }
  // Encoded, as default locations have them; and otherwise as Check.
  EXPECT_THAT(bucket.CheckTableRoot("s3://bucket/wh/ns/t1%23x%3F"), IsOk());
  EXPECT_THAT(local.CheckTableRoot("file:///elsewhere/t"), IsOk());
  EXPECT_THAT(bucket.CheckTableRoot("s3://bucket/elsewhere/t"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(bucket.CheckTableRoot("file:///data/wh/t"), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::catalog
