// TablePointerMirror against the store it mirrors, for every CatalogStore
// implementation: built exactly, kept exact write-through by its own store's
// commits, and caught up on commits made through another store instance
// (which it sees exactly as another process's commits: only through the
// store).
#include "skade/catalog/table_pointer_mirror.h"

#include <gtest/gtest.h>

#include <random>

#include "skade/cache/epoch.h"
#include "skade/util/strings.h"
#include "testing/catalog_store_implementations.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using spec::TableIdentifier;
using testing::IsOk;

class TablePointerMirrorTest
    : public ::testing::TestWithParam<testing::CatalogStoreImplementation> {
 protected:
  void SetUp() override {
    std::string location = GetParam().location(dir_.path());
    own_ = std::move(*store::CatalogStore::Open(location, GetParam().options));
    other_ = std::move(*store::CatalogStore::Open(location, GetParam().options));
    ASSERT_THAT(other_->CreateNamespace({"n"}, {}), IsOk());
  }

  // The mirror's answer for `id`, as (table id, location), or nullopt.
  std::optional<store::TableRecord> Mirrored(const TableIdentifier& id) {
    cache::EpochGuard guard;
    auto entry = mirror_->Find(id);
    EXPECT_TRUE(entry) << entry.error().ToString();
    if (!*entry) return std::nullopt;
    return store::TableRecord{(*entry)->table_id(), std::string((*entry)->metadata_location())};
  }

  void ExpectExact(const TableIdentifier& id) {
    auto stored = own_->GetTable(id);
    ASSERT_TRUE(stored);
    EXPECT_EQ(Mirrored(id), *stored) << id.ToString();
  }

  Status Create(store::CatalogStore& store, const TableIdentifier& id, const std::string& loc) {
    auto swapped = store.SwapPointers({{id, std::nullopt, loc, {}}});
    if (!swapped) return tl::unexpected(swapped.error());
    return OkStatus();
  }

  testing::TempDir dir_;
  std::unique_ptr<store::CatalogStore> own_;
  std::unique_ptr<store::CatalogStore> other_;
  std::unique_ptr<TablePointerMirror> mirror_;
};

TEST_P(TablePointerMirrorTest, BuiltFromTheStoreThenCaughtUpOnOtherWriters) {
  TableIdentifier a{{"n"}, "a"}, b{{"n"}, "b"}, c{{"n"}, "c"}, d{{"n"}, "d"};
  ASSERT_THAT(Create(*other_, a, "a0"), IsOk());
  ASSERT_THAT(Create(*other_, b, "b0"), IsOk());
  ASSERT_THAT(Create(*other_, c, "c0"), IsOk());
  mirror_ = std::move(*TablePointerMirror::Open(own_.get()));
  for (const auto& id : {a, b, c, d}) ExpectExact(id);

  ASSERT_TRUE(other_->SwapPointers({{a, "a0", "a1", {}}}));
  ExpectExact(a);
  EXPECT_EQ(mirror_->synced_version(), own_->LastVersion());
  ASSERT_THAT(other_->RenameTable(b, d), IsOk());
  ExpectExact(b);
  ExpectExact(d);
  ASSERT_TRUE(other_->DropTable(c));
  ExpectExact(c);
  ASSERT_TRUE(other_->RegisterTable(c, "c9", store::RegisterMode::kNew, {}, {}));
  ExpectExact(c);
  // Several changes in one go, one of them a multi-table swap.
  ASSERT_TRUE(other_->SwapPointers({{a, "a1", "a2", {}}, {d, "b0", "d1", {}}}));
  ASSERT_THAT(other_->CreateNamespace({"m"}, {}), IsOk());
  ASSERT_TRUE(other_->RegisterTable(c, "c10", store::RegisterMode::kRepoint, {}, {}));
  for (const auto& id : {a, b, c, d}) ExpectExact(id);
}

TEST_P(TablePointerMirrorTest, ItsOwnStoresCommitsApplyBeforeTheyReturn) {
  mirror_ = std::move(*TablePointerMirror::Open(own_.get()));
  TableIdentifier a{{"n"}, "a"};
  ASSERT_THAT(Create(*own_, a, "a0"), IsOk());
  // Applied by the commit itself: no catch-up needed by the next read.
  EXPECT_EQ(mirror_->synced_version(), own_->LastVersion());
  ASSERT_TRUE(own_->SwapPointers({{a, "a0", "a1", {}}}));
  EXPECT_EQ(mirror_->synced_version(), own_->LastVersion());
  ASSERT_THAT(own_->CreateNamespace({"x"}, {}), IsOk());  // changes no table
  EXPECT_EQ(mirror_->synced_version(), own_->LastVersion());
  ExpectExact(a);
  // A failed commit leaves the mirror as it was.
  EXPECT_FALSE(own_->SwapPointers({{a, "stale", "a2", {}}}));
  EXPECT_EQ(mirror_->synced_version(), own_->LastVersion());
  ExpectExact(a);
}

// Random creates, swaps, renames and drops through both stores; the mirror
// must agree with the store on every name after every step.
TEST_P(TablePointerMirrorTest, RandomHistoryThroughTwoWritersStaysExact) {
  mirror_ = std::move(*TablePointerMirror::Open(own_.get()));
  std::mt19937 random(7);
  std::vector<TableIdentifier> names;
  for (int i = 0; i < 40; ++i) names.push_back({{"n"}, StrCat("t", i)});
  for (int step = 0; step < 1500; ++step) {
    store::CatalogStore& writer = random() % 2 == 0 ? *own_ : *other_;
    const TableIdentifier& id = names[random() % names.size()];
    auto current = own_->GetTable(id);
    ASSERT_TRUE(current);
    switch (random() % 4) {
      case 0:
        (void)Create(writer, id, StrCat("v", step));
        break;
      case 1:
        if (*current) {
          ASSERT_TRUE(
              writer.SwapPointers({{id, (*current)->metadata_location, StrCat("v", step), {}}}));
        }
        break;
      case 2:
        (void)writer.RenameTable(id, names[random() % names.size()]);
        break;
      case 3:
        (void)writer.DropTable(id);
        break;
    }
    ExpectExact(id);
    ExpectExact(names[random() % names.size()]);
  }
  for (const auto& id : names) ExpectExact(id);
}

INSTANTIATE_TEST_SUITE_P(Implementations, TablePointerMirrorTest,
                         ::testing::ValuesIn(testing::CatalogStoreImplementations()),
                         testing::CatalogStoreImplementationName);

}  // namespace
}  // namespace skade::catalog
