#include "skade/catalog/location_policy.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/matchers.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

TEST(LocationPolicyTest, DefaultsToTheWarehouse) {
  LocationPolicy policy("file:///data/wh", {});
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
  LocationPolicy policy("file:///data/wh", {"file:///data/wh", "/scratch/"});
  EXPECT_THAT(policy.Check("file:///scratch/t"), IsOk());
  EXPECT_THAT(policy.Check("file:///scratchy/t"), IsError(ErrorKind::kForbidden));
  LocationPolicy anywhere("file:///data/wh", {"*"});
  EXPECT_THAT(anywhere.Check("file:///tmp/x"), IsOk());
  EXPECT_THAT(anywhere.Check("file:///tmp/../x"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocationPolicyTest, TheWarehouseIsAlwaysAllowed) {
  // Regression: with --allow-location and the default relative warehouse,
  // every default table location was refused.
  LocationPolicy policy("file:///data/wh", {"/scratch"});
  EXPECT_THAT(policy.Check("file:///data/wh/ns/t"), IsOk());
  EXPECT_THAT(policy.Check("file:///scratch/t"), IsOk());
}

TEST(LocationPolicyTest, RelativeRootsAreTakenFromTheWorkingDirectory) {
  std::string cwd = std::filesystem::current_path().string();
  LocationPolicy policy("file:///data/wh", {"./rel/root"});
  EXPECT_THAT(policy.Check("file://" + cwd + "/rel/root/t"), IsOk());
  EXPECT_THAT(policy.Check("file://" + cwd + "/rel/other"), IsError(ErrorKind::kForbidden));
}

TEST(LocationPolicyTest, TheStoreDirectoryIsNeverAllowed) {
  LocationPolicy policy("file:///data/wh", {"*"});
  EXPECT_THAT(policy.Check("file:///data/wh/.skade"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("file:///data/wh/.skade/catalog/data.mdb"),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(policy.Check("file:///data/wh/.skadex/t"), IsOk());
}

}  // namespace
}  // namespace skade::catalog
