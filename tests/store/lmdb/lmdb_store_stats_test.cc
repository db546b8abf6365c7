// LmdbCatalogStore::Stats and CheckWritable: the sizes GET /metrics reports
// and the store check of GET /health/ready, which must fail, without writing,
// when a write would be lost or fail.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store::lmdb {
namespace {

using testing::IsErrorWithMessage;
using testing::IsOk;

class LmdbStoreStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LmdbCatalogStoreOptions options;
    options.lmdb.map_size = 1ull << 30;
    options.lmdb.durability = Durability::kNone;
    auto opened = LmdbCatalogStore::Open(path_, options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  testing::TempDir dir_;
  std::string path_ = dir_.Sub("store");
  std::unique_ptr<LmdbCatalogStore> store_;
};

TEST_F(LmdbStoreStatsTest, ReportsTheMapAndTheFile) {
  auto empty = store_->Stats();
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->map_size_bytes, 1ull << 30);
  EXPECT_GT(empty->map_used_bytes, 0u);
  EXPECT_LT(empty->map_used_bytes, empty->map_size_bytes);
  EXPECT_EQ(empty->file_bytes, std::filesystem::file_size(path_ + "/data.mdb"));
  for (int i = 0; i < 200; ++i) {
    ASSERT_THAT(store_->CreateNamespace({"namespace_" + std::to_string(i)},
                                        {{"comment", std::string(200, 'x')}}),
                IsOk());
  }
  auto grown = store_->Stats();
  ASSERT_TRUE(grown);
  EXPECT_GT(grown->map_used_bytes, empty->map_used_bytes);
  EXPECT_EQ(grown->file_bytes, std::filesystem::file_size(path_ + "/data.mdb"));
}

TEST_F(LmdbStoreStatsTest, WritableWhileTheFileIsInPlace) {
  EXPECT_THAT(store_->CheckWritable(), IsOk());
}

// Someone removed the store's directory (or its file) under the running
// server: LMDB goes on writing to the unlinked file, whose commits the next
// start would not see.
TEST_F(LmdbStoreStatsTest, NotWritableOnceTheFileIsRemoved) {
  std::filesystem::remove(path_ + "/data.mdb");
  EXPECT_THAT(store_->CheckWritable(), IsErrorWithMessage(ErrorKind::kIo, "is gone"));
}

TEST_F(LmdbStoreStatsTest, NotWritableOnceTheFileIsReplaced) {
  std::filesystem::rename(path_ + "/data.mdb", path_ + "/old.mdb");
  std::ofstream(path_ + "/data.mdb") << "not the store";
  EXPECT_THAT(store_->CheckWritable(), IsErrorWithMessage(ErrorKind::kIo, "was replaced"));
}

}  // namespace
}  // namespace skade::store::lmdb
