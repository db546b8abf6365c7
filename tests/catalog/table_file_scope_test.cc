// TableFileScope on URIs: the table's roots, the policy, and the FileIO's
// resolution of a file's directory.
#include "skade/catalog/table_file_scope.h"

#include <gtest/gtest.h>

#include "skade/spec/table_properties.h"
#include "testing/bucket_file_io.h"
#include "testing/matchers.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

class TableFileScopeTest : public ::testing::Test {
 protected:
  TableFileScopeTest() : io_(std::make_shared<testing::BucketFileIO>()) {
    metadata_.location = "s3://bucket/wh/ns/t/";
  }

  std::shared_ptr<testing::BucketFileIO> io_;
  spec::TableMetadata metadata_;
};

TEST_F(TableFileScopeTest, OwnsWhatLiesStrictlyUnderTheTableLocation) {
  LocationPolicy policy("s3://bucket/wh", {}, io_);
  TableFileScope scope(metadata_, policy);
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/data/f.parquet"), IsOk());
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/metadata/v1.metadata.json"), IsOk());
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t2/f"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/other/f"), IsError(ErrorKind::kForbidden));
  // Another scheme or authority is never the table's, nor is bad input.
  EXPECT_THAT(scope.Check("gs://bucket/wh/ns/t/f"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.Check("s3://other/wh/ns/t/f"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/../u/f"), IsError(ErrorKind::kForbidden));
  ASSERT_EQ(scope.roots().size(), 1u);
  EXPECT_EQ(scope.roots()[0].ToString(), "s3://bucket/wh/ns/t");
}

TEST_F(TableFileScopeTest, AlsoOwnsTheDataAndMetadataPaths) {
  metadata_.properties[spec::kDataPath] = "s3://bucket/wh/data/t";
  metadata_.properties[spec::kMetadataPath] = "s3://bucket/elsewhere/t";
  LocationPolicy policy("s3://bucket/wh", {}, io_);
  TableFileScope scope(metadata_, policy);
  EXPECT_THAT(scope.Check("s3://bucket/wh/data/t/f.parquet"), IsOk());
  // Under a table root but outside the allowed locations.
  EXPECT_THAT(scope.Check("s3://bucket/elsewhere/t/v1.metadata.json"),
              IsError(ErrorKind::kForbidden));
}

TEST_F(TableFileScopeTest, NeverOwnsTheWarehouseOrTheStore) {
  metadata_.location = "s3://bucket/wh";
  LocationPolicy policy("s3://bucket/wh", {}, io_);
  TableFileScope scope(metadata_, policy);
  EXPECT_TRUE(scope.roots().empty());
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/f"), IsError(ErrorKind::kForbidden));
}

TEST_F(TableFileScopeTest, AFileWhoseDirectoryResolvesOutsideIsNotOwned) {
  io_->Alias("s3://bucket/wh/ns/t/link", "s3://bucket/wh/ns/victim");
  LocationPolicy policy("s3://bucket/wh", {}, io_);
  TableFileScope scope(metadata_, policy);
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/link/f"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/data/f"), IsOk());
  EXPECT_THAT(scope.CheckRead("s3://bucket/wh/ns/t/link/f"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.CheckRead("s3://bucket/wh/ns/t/data/f"), IsOk());
}

// A file that is itself a link: a delete removes the link (in scope), a
// read would follow it (out of scope).
TEST_F(TableFileScopeTest, AReadDoesNotFollowTheFilesOwnLinkOutside) {
  io_->Alias("s3://bucket/wh/ns/t/metadata/list.avro", "s3://bucket/outside/list.avro");
  LocationPolicy policy("s3://bucket/wh", {}, io_);
  TableFileScope scope(metadata_, policy);
  EXPECT_THAT(scope.Check("s3://bucket/wh/ns/t/metadata/list.avro"), IsOk());
  EXPECT_THAT(scope.CheckRead("s3://bucket/wh/ns/t/metadata/list.avro"),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(scope.CheckRead("s3://bucket/wh/ns/t/metadata/other.avro"), IsOk());
  EXPECT_THAT(scope.CheckRead("s3://bucket/wh/ns/u/metadata/x.avro"),
              IsError(ErrorKind::kForbidden));
}

}  // namespace
}  // namespace skade::catalog
