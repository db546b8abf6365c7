// The embedded catalog with its warehouse on S3 (a real MinIO) and its store
// on a local directory: what works on local files works there.
#include <gtest/gtest.h>

#include "s3/s3_environment.h"
#include "skade/catalog/embedded_catalog.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;
using testing::NewBucket;
using testing::S3Environment;

class S3CatalogTest : public ::testing::TestWithParam<store::Durability> {
 protected:
  void SetUp() override {
    bucket_ = NewBucket();
    s3::RegisterS3FileIO(io::FileIORegistry::Default());
    Open();
  }

  void Open() {
    catalog_.reset();
    EmbeddedCatalogOptions options;
    options.warehouse = "s3://" + bucket_ + "/warehouse";
    options.store = dir_.Sub("store");
    options.store_map_size = 1ull << 30;
    options.durability = GetParam();
    options.allowed_locations = allowed_;
    options.file_io_properties = S3Environment::server().Properties();
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
    auto io = s3::NewS3FileIO(S3Environment::server().Properties());
    ASSERT_TRUE(io);
    io_ = *io;
  }

  LoadTableResult Create(const std::string& name, const std::string& location = "") {
    CreateTableRequest request;
    request.name = name;
    if (!location.empty()) request.location = location;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    auto created = catalog_->CreateTable({"n"}, request);
    EXPECT_TRUE(created) << created.error().ToString();
    return created ? *created : LoadTableResult{};
  }

  testing::TempDir dir_;
  std::vector<std::string> allowed_;
  std::string bucket_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
  std::shared_ptr<io::FileIO> io_;
};

TEST_P(S3CatalogTest, CreatesCommitsAndReloadsAcrossAReopen) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  auto created = Create("t");
  EXPECT_EQ(created.metadata->location, "s3://" + bucket_ + "/warehouse/n/t");
  EXPECT_TRUE(
      created.metadata_location.starts_with("s3://" + bucket_ + "/warehouse/n/t/metadata/"));
  auto snapshot = testing::FastAppend(*catalog_, {{"n"}, "t"});
  ASSERT_TRUE(snapshot) << snapshot.error().ToString();
  ASSERT_THAT(catalog_->Flush(), IsOk());
  Open();
  auto loaded = catalog_->LoadTable({{"n"}, "t"});
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata->current_snapshot_id, *snapshot);
  EXPECT_TRUE(*io_->Exists(loaded->metadata_location));
  auto at = catalog_->LoadTableAt({{"n"}, "t"}, *snapshot);
  ASSERT_TRUE(at) << at.error().ToString();
  EXPECT_EQ(at->metadata_location, loaded->metadata_location);
}

TEST_P(S3CatalogTest, PurgeDeletesOnlyInsideTheTable) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  auto other = Create("other");
  auto t = Create("t");
  std::string inside = t.metadata->location + "/data/f.parquet";
  std::string beside = "s3://" + bucket_ + "/warehouse/n/t-backup/f.parquet";
  ASSERT_THAT(io_->WriteFile(inside, "x", true), IsOk());
  ASSERT_THAT(io_->WriteFile(beside, "y", true), IsOk());
  ASSERT_THAT(catalog_->DropTable({{"n"}, "t"}, true), IsOk());
  EXPECT_FALSE(*io_->Exists(t.metadata_location));
  EXPECT_TRUE(*io_->Exists(beside));
  EXPECT_TRUE(*io_->Exists(other.metadata_location));
  EXPECT_TRUE(*catalog_->TableExists({{"n"}, "other"}));
}

TEST_P(S3CatalogTest, KeepsTablesInsideTheAllowedLocations) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  CreateTableRequest request;
  request.name = "elsewhere";
  request.location = "s3://" + NewBucket() + "/t";
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kForbidden));
  request.location = "file:///tmp/t";
  EXPECT_FALSE(catalog_->CreateTable({"n"}, request));
}

// A bucket root is a location like any other: a table there owns the
// whole bucket, so no table under it may be made, nor it over one.
TEST_P(S3CatalogTest, ATableAtABucketRootOverlapsTheTablesInIt) {
  std::string other = "s3://" + NewBucket();
  allowed_ = {other};
  Open();
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  auto create_at = [&](const std::string& name, const std::string& location) {
    CreateTableRequest request;
    request.name = name;
    request.location = location;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    return catalog_->CreateTable({"n"}, request);
  };
  ASSERT_TRUE(create_at("root", other + "/"));
  EXPECT_THAT(create_at("victim", other + "/victim"), IsError(ErrorKind::kForbidden));
  ASSERT_THAT(catalog_->DropTable({{"n"}, "root"}, false), IsOk());
  ASSERT_TRUE(create_at("victim", other + "/victim"));
  EXPECT_THAT(create_at("root", other), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(create_at("root", other + "/"), IsError(ErrorKind::kForbidden));
}

TEST_P(S3CatalogTest, RegistersATableFromItsMetadataOnS3) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  auto t = Create("t");
  ASSERT_THAT(catalog_->DropTable({{"n"}, "t"}, false), IsOk());
  auto registered = catalog_->RegisterTable({{"n"}, "again"}, t.metadata_location, false, {});
  ASSERT_TRUE(registered) << registered.error().ToString();
  EXPECT_EQ(registered->metadata->table_uuid, t.metadata->table_uuid);
}

INSTANTIATE_TEST_SUITE_P(Durability, S3CatalogTest,
                         ::testing::Values(store::Durability::kImmediate,
                                           store::Durability::kEventual, store::Durability::kNone));

TEST(S3WarehouseTest, NeedsALocalStore) {
  s3::RegisterS3FileIO(io::FileIORegistry::Default());
  EmbeddedCatalogOptions options;
  options.warehouse = "s3://" + NewBucket() + "/w";
  options.file_io_properties = S3Environment::server().Properties();
  auto opened = EmbeddedCatalog::Open(options);
  ASSERT_THAT(opened, IsError(ErrorKind::kInvalidArgument));
  EXPECT_NE(opened.error().message.find("--store"), std::string::npos);
}

}  // namespace
}  // namespace skade::catalog
