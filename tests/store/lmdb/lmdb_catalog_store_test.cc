// What LmdbCatalogStore adds to the CatalogStore contract (which
// tests/store/catalog_store_test.cc checks): instances of one directory share
// the environment, and the opener of CatalogStore::Open() passes the
// catalog's options through to LMDB.
#include "skade/store/lmdb/lmdb_catalog_store.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store::lmdb {
namespace {

using testing::IsOk;

TEST(LmdbCatalogStoreTest, ReopeningInTheSameProcessSharesTheEnvironment) {
  testing::TempDir dir;
  LmdbCatalogStoreOptions options;
  options.lmdb.map_size = 1ull << 30;
  options.lmdb.durability = Durability::kNone;
  auto store = LmdbCatalogStore::Open(dir.Sub("store"), options);
  ASSERT_THAT(store, IsOk());
  auto again = LmdbCatalogStore::Open(dir.Sub("store"), options);
  ASSERT_TRUE(again);
  EXPECT_EQ(&(*again)->env(), &(*store)->env());
  ASSERT_THAT((*store)->CreateNamespace({"shared"}, {}), IsOk());
  EXPECT_TRUE(*(*again)->GetNamespace({"shared"}));
}

TEST(LmdbCatalogStoreTest, OpenByLocationPassesTheOptionsThrough) {
  testing::TempDir dir;
  CatalogStoreOptions options;
  options.map_size = 3ull << 20;
  options.durability = Durability::kEventual;
  auto opened = CatalogStore::Open("lmdb:" + dir.Sub("store"), options);
  ASSERT_THAT(opened, IsOk());
  auto* store = dynamic_cast<LmdbCatalogStore*>(opened->get());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->env().path(), dir.Sub("store"));
  EXPECT_EQ(store->env().MapSize(), 3ull << 20);
  EXPECT_EQ(store->env().durability(), Durability::kEventual);
  // A plain path is the same kind of store.
  auto by_path = CatalogStore::Open(dir.Sub("store"), options);
  ASSERT_THAT(by_path, IsOk());
  auto* same = dynamic_cast<LmdbCatalogStore*>(by_path->get());
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(&same->env(), &store->env());
}

}  // namespace
}  // namespace skade::store::lmdb
