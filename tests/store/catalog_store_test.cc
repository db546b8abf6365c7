// The CatalogStore contract, run against every implementation
// (testing/catalog_store_implementations.h), through the interface only.
#include "skade/store/catalog_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "skade/store/table_key.h"
#include "skade/util/clock.h"
#include "testing/catalog_store_implementations.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store {
namespace {

JournaledFile Journaled(std::string location, std::string bytes) {
  return {std::move(location), std::make_shared<const std::string>(std::move(bytes))};
}

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

class CatalogStoreTest : public ::testing::TestWithParam<testing::CatalogStoreImplementation> {
 protected:
  void SetUp() override {
    auto opened = OpenInstance();
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  // Another instance of the same store.
  Result<std::unique_ptr<CatalogStore>> OpenInstance() {
    return CatalogStore::Open(GetParam().location(dir_.path()), GetParam().options);
  }

  Status CreateTable(const spec::TableIdentifier& id, const std::string& location) {
    auto result = store_->SwapPointers({{id, std::nullopt, location, {}}});
    if (!result) return tl::unexpected(result.error());
    return OkStatus();
  }

  // Namespace "n" with tables "a" and "b" at "a0" and "b0".
  void CreateTablesAAndB(const spec::TableIdentifier& a, const spec::TableIdentifier& b) {
    ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
    ASSERT_THAT(CreateTable(a, "a0"), IsOk());
    ASSERT_THAT(CreateTable(b, "b0"), IsOk());
  }

  testing::TempDir dir_;
  std::unique_ptr<CatalogStore> store_;
};

TEST_P(CatalogStoreTest, NamespacesNestAndListDirectChildren) {
  ASSERT_THAT(store_->CreateNamespace({"a"}, {{"owner", "x"}}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"a", "b"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"a", "b", "c"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"a", "d"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"a b"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"z"}, {}), IsOk());

  auto top = store_->ListNamespaces({}, "", 0);
  ASSERT_TRUE(top);
  EXPECT_EQ(top->items, (std::vector<spec::Namespace>{{"a"}, {"a b"}, {"z"}}));
  auto children = store_->ListNamespaces({"a"}, "", 0);
  ASSERT_TRUE(children);
  EXPECT_EQ(children->items, (std::vector<spec::Namespace>{{"a", "b"}, {"a", "d"}}));
  EXPECT_THAT(store_->ListNamespaces({"missing"}, "", 0),
              IsErrorWithMessage(ErrorKind::kNoSuchNamespace, "Namespace does not exist: missing"));
  EXPECT_EQ((*store_->GetNamespace({"a"}))->at("owner"), "x");
}

TEST_P(CatalogStoreTest, NamespaceRulesAreCheckedInTheTransaction) {
  EXPECT_THAT(
      store_->CreateNamespace({"p", "c"}, {}),
      IsErrorWithMessage(ErrorKind::kNoSuchNamespace, "Parent namespace does not exist: p"));
  ASSERT_THAT(store_->CreateNamespace({"p"}, {}), IsOk());
  EXPECT_THAT(store_->CreateNamespace({"p"}, {}),
              IsErrorWithMessage(ErrorKind::kAlreadyExists, "Namespace already exists: p"));
  ASSERT_THAT(store_->CreateNamespace({"p", "c"}, {}), IsOk());
  EXPECT_THAT(store_->DropNamespace({"p"}),
              IsErrorWithMessage(ErrorKind::kNamespaceNotEmpty, "is not empty"));
  ASSERT_THAT(store_->DropNamespace({"p", "c"}), IsOk());
  ASSERT_THAT(CreateTable({{"p"}, "t"}, "loc"), IsOk());
  EXPECT_THAT(store_->DropNamespace({"p"}), IsError(ErrorKind::kNamespaceNotEmpty));
  ASSERT_TRUE(store_->DropTable({{"p"}, "t"}));
  EXPECT_THAT(store_->DropNamespace({"p"}), IsOk());
  EXPECT_THAT(store_->DropNamespace({"p"}), IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(CatalogStoreTest, NamespacePropertiesUpdateReportsMissingKeys) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {{"a", "1"}, {"b", "2"}}), IsOk());
  auto missing = store_->UpdateNamespaceProperties({"n"}, {"a", "zz"}, {{"c", "3"}});
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, std::vector<std::string>{"zz"});
  EXPECT_EQ(**store_->GetNamespace({"n"}), (Properties{{"b", "2"}, {"c", "3"}}));
}

// Review finding: properties added request by request grew one namespace to
// 146 MB, which every load of it returned. A namespace keeps at most 1 MiB.
TEST_P(CatalogStoreTest, NamespacePropertiesAreBounded) {
  const std::string half_mib(512 << 10, 'x');
  EXPECT_THAT(store_->CreateNamespace({"big"}, {{"a", half_mib}, {"b", half_mib}, {"c", "1"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than the 1048576"));
  EXPECT_FALSE(*store_->GetNamespace({"big"}));
  ASSERT_THAT(store_->CreateNamespace({"n"}, {{"a", half_mib}}), IsOk());
  EXPECT_THAT(store_->UpdateNamespaceProperties({"n"}, {}, {{"b", half_mib}, {"c", "1"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "namespace n would take"));
  EXPECT_EQ(**store_->GetNamespace({"n"}), (Properties{{"a", half_mib}}));
  // Replacing a value by one of the same size stays within the bound.
  EXPECT_TRUE(store_->UpdateNamespaceProperties({"n"}, {}, {{"a", std::string(512 << 10, 'y')}}));
}

TEST_P(CatalogStoreTest, ListingsPageWithOpaqueTokens) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  for (int i = 0; i < 7; ++i) {
    ASSERT_THAT(store_->CreateNamespace({"n", "child" + std::to_string(i)}, {}), IsOk());
    ASSERT_THAT(store_->CreateNamespace({"n", "child" + std::to_string(i), "grandchild"}, {}),
                IsOk());
    ASSERT_THAT(CreateTable({{"n"}, "t" + std::to_string(i)}, "loc"), IsOk());
  }
  std::vector<spec::Namespace> namespaces;
  std::vector<spec::TableIdentifier> tables;
  std::string token;
  int pages = 0;
  do {
    auto page = store_->ListNamespaces({"n"}, token, 3);
    ASSERT_TRUE(page);
    namespaces.insert(namespaces.end(), page->items.begin(), page->items.end());
    token = page->next_page_token;
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(namespaces.size(), 7u);
  EXPECT_EQ(pages, 3);
  do {
    auto page = store_->ListTables({"n"}, token, 2);
    ASSERT_TRUE(page);
    tables.insert(tables.end(), page->items.begin(), page->items.end());
    token = page->next_page_token;
  } while (!token.empty());
  ASSERT_EQ(tables.size(), 7u);
  EXPECT_EQ(tables.front().name, "t0");
  EXPECT_EQ(tables.back().name, "t6");
}

// Review finding: a token of another listing, or a forged one, answered an
// empty page (200 []), as if the listing had ended.
TEST_P(CatalogStoreTest, APageTokenOfAnotherListingIsRefused) {
  for (const char* name : {"a", "b"}) {
    ASSERT_THAT(store_->CreateNamespace({name}, {}), IsOk());
    ASSERT_THAT(store_->CreateNamespace({name, "c1"}, {}), IsOk());
    ASSERT_THAT(store_->CreateNamespace({name, "c2"}, {}), IsOk());
    ASSERT_THAT(CreateTable({{name}, "t1"}, StrCat(name, "1")), IsOk());
    ASSERT_THAT(CreateTable({{name}, "t2"}, StrCat(name, "2")), IsOk());
  }
  auto namespaces = store_->ListNamespaces({"a"}, "", 1);
  auto tables = store_->ListTables({"a"}, "", 1);
  ASSERT_TRUE(namespaces && tables);
  ASSERT_FALSE(namespaces->next_page_token.empty());
  ASSERT_FALSE(tables->next_page_token.empty());
  for (const std::string& token : {namespaces->next_page_token, tables->next_page_token,
                                   std::string("00"), std::string("ff")}) {
    EXPECT_THAT(store_->ListNamespaces({"b"}, token, 1),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "not one of this listing's"))
        << token;
    EXPECT_THAT(store_->ListTables({"b"}, token, 1),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "not one of this listing's"))
        << token;
  }
  // Nor is a token of a listing one level down (its keys share the prefix).
  ASSERT_THAT(store_->CreateNamespace({"a", "c1", "g1"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"a", "c1", "g2"}, {}), IsOk());
  auto children = store_->ListNamespaces({"a", "c1"}, "", 1);
  ASSERT_TRUE(children && !children->next_page_token.empty());
  EXPECT_THAT(store_->ListNamespaces({"a"}, children->next_page_token, 1),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not one of this listing's"));
  EXPECT_THAT(store_->ListNamespaces({}, namespaces->next_page_token, 1),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not one of this listing's"));
  // Each listing's own token still pages on.
  EXPECT_EQ(store_->ListNamespaces({"a"}, namespaces->next_page_token, 1)->items.size(), 1u);
  EXPECT_EQ(store_->ListTables({"a"}, tables->next_page_token, 1)->items.size(), 1u);
}

TEST_P(CatalogStoreTest, SwapPointersIsCompareAndSwap) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(CreateTable(id, "v0"), IsOk());
  EXPECT_THAT(CreateTable(id, "again"),
              IsErrorWithMessage(ErrorKind::kAlreadyExists, "Table already exists: n.t"));
  EXPECT_THAT(CreateTable({{"missing"}, "t"}, "v0"), IsError(ErrorKind::kNoSuchNamespace));

  ASSERT_TRUE(store_->SwapPointers({{id, "v0", "v1", {11}}}));
  auto stale = store_->SwapPointers({{id, "v0", "v2", {}}});
  ASSERT_THAT(stale, IsError(ErrorKind::kCommitFailed));
  EXPECT_TRUE(stale.error().retryable);
  EXPECT_EQ((*store_->GetTable(id))->metadata_location, "v1");
  EXPECT_EQ(**store_->FindSnapshot((*store_->GetTable(id))->table_id, 11), "v1");
  EXPECT_THAT(store_->SwapPointers({{{{"n"}, "nope"}, "x", "y", {}}}),
              IsError(ErrorKind::kNoSuchTable));
}

TEST_P(CatalogStoreTest, MultiTableSwapIsAllOrNothing) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  uint64_t seq_before = *store_->CommitSeq();
  // b's expectation is stale, so a must not move either.
  EXPECT_THAT(store_->SwapPointers({{a, "a0", "a1", {}}, {b, "stale", "b1", {}}}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a0");
  EXPECT_EQ(*store_->CommitSeq(), seq_before);
  ASSERT_TRUE(store_->SwapPointers({{a, "a0", "a1", {}}, {b, "b0", "b1", {}}}));
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a1");
  EXPECT_EQ((*store_->GetTable(b))->metadata_location, "b1");
  EXPECT_EQ(*store_->CommitSeq(), seq_before + 2);
  auto log = store_->ReadCommitLog(seq_before, 10);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ((*log)[0].second.metadata_location, "a1");
  EXPECT_EQ((*log)[1].first, seq_before + 2);
}

// Multi-table transactions: tables that were only read assert, in the same
// write transaction, that they are still at the version read.
TEST_P(CatalogStoreTest, CompareOnlySwapsCheckWithoutWriting) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  uint64_t seq_before = *store_->CommitSeq();
  uint64_t b_id = (*store_->GetTable(b))->table_id;

  EXPECT_TRUE(PointerSwap::CompareOnly(b, "b0").compare_only());
  EXPECT_FALSE((PointerSwap{a, "a0", "a1", {}}).compare_only());
  auto swapped = store_->SwapPointers({{a, "a0", "a1", {}}, PointerSwap::CompareOnly(b, "b0")});
  ASSERT_THAT(swapped, IsOk());
  ASSERT_EQ(swapped->size(), 2u);
  EXPECT_EQ((*swapped)[1].metadata_location, "b0");
  EXPECT_EQ((*swapped)[1].table_id, b_id);
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a1");
  EXPECT_EQ((*store_->GetTable(b))->metadata_location, "b0");
  // Only the real swap is a commit.
  EXPECT_EQ(*store_->CommitSeq(), seq_before + 1);
  auto log = store_->ReadCommitLog(seq_before, 10);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].second.metadata_location, "a1");

  // b moved since it was read: the whole transaction loses, like a lost swap.
  ASSERT_TRUE(store_->SwapPointers({{b, "b0", "b1", {}}}));
  auto lost = store_->SwapPointers({{a, "a1", "a2", {}}, PointerSwap::CompareOnly(b, "b0")});
  ASSERT_THAT(lost, IsErrorWithMessage(ErrorKind::kCommitFailed,
                                       "Commit conflict: table n.b was changed concurrently"));
  EXPECT_TRUE(lost.error().retryable);
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a1");
  EXPECT_EQ(*store_->CommitSeq(), seq_before + 2);

  EXPECT_THAT(store_->SwapPointers({PointerSwap::CompareOnly({{"n"}, "gone"}, "x")}),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(store_->SwapPointers({{b, std::nullopt, "", {}}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(store_->SwapPointers({{b, "b1", "", {7}}}), IsError(ErrorKind::kInvalidArgument));
  // A transaction of checks alone commits nothing.
  uint64_t version_before = store_->LastVersion();
  ASSERT_THAT(store_->SwapPointers({PointerSwap::CompareOnly(b, "b1")}), IsOk());
  EXPECT_EQ(*store_->CommitSeq(), seq_before + 2);
  auto changed = store_->ReadTablePointersChangedAfter(version_before);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(changed->tables.empty());
}

TEST_P(CatalogStoreTest, RenameKeepsTheTableIdAndChecksBothEnds) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace({"m"}, {}), IsOk());
  spec::TableIdentifier from{{"n"}, "t"};
  spec::TableIdentifier to{{"m"}, "u"};
  ASSERT_THAT(CreateTable(from, "v0"), IsOk());
  ASSERT_THAT(CreateTable({{"m"}, "taken"}, "v0"), IsOk());
  uint64_t id = (*store_->GetTable(from))->table_id;
  EXPECT_THAT(store_->RenameTable({{"n"}, "nope"}, to), IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(store_->RenameTable(from, {{"nowhere"}, "u"}), IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(store_->RenameTable(from, {{"m"}, "taken"}), IsError(ErrorKind::kAlreadyExists));
  ASSERT_THAT(store_->RenameTable(from, to), IsOk());
  EXPECT_FALSE(*store_->GetTable(from));
  EXPECT_EQ((*store_->GetTable(to))->table_id, id);
}

TEST_P(CatalogStoreTest, RegisterCreatesOrOverwrites) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_TRUE(store_->RegisterTable(id, "m1", store::RegisterMode::kNew, {}, {}));
  EXPECT_THAT(store_->RegisterTable(id, "m2", store::RegisterMode::kNew, {}, {}),
              IsError(ErrorKind::kAlreadyExists));
  ASSERT_TRUE(store_->RegisterTable(id, "m2", store::RegisterMode::kRepoint, {}, {}));
  EXPECT_EQ((*store_->GetTable(id))->metadata_location, "m2");
}

// A swap that creates `id` owning `locations`.
PointerSwap CreateOwning(const spec::TableIdentifier& id, const std::string& metadata,
                         std::vector<std::string> locations) {
  PointerSwap swap{id, std::nullopt, metadata, {}};
  swap.owned_locations = std::move(locations);
  return swap;
}

TEST_P(CatalogStoreTest, TablesNeverOwnOverlappingLocations) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  const spec::TableIdentifier a{{"n"}, "a"}, b{{"n"}, "b"}, c{{"n"}, "c"};
  // A table may own locations nested in its own (its data path).
  ASSERT_TRUE(store_->SwapPointers({CreateOwning(a, "a0", {"s3://wh/n/a", "s3://wh/n/a/data"})}));
  for (const char* overlapping :
       {"s3://wh/n/a", "s3://wh/n", "s3://wh", "s3://wh/n/a/data/x", "s3://wh/n/a/metadata"}) {
    EXPECT_THAT(store_->SwapPointers({CreateOwning(b, "b0", {"s3://wh/n/b", overlapping})}),
                IsErrorWithMessage(ErrorKind::kForbidden, "overlaps"))
        << overlapping;
    EXPECT_FALSE(*store_->GetTable(b)) << overlapping;
  }
  // Whole segments: "a-b" is not under "a"; nor is another scheme's path.
  ASSERT_TRUE(store_->SwapPointers({CreateOwning(b, "b0", {"s3://wh/n/a-b", "gs://wh/n/a"})}));
  // The message names the other table's location.
  EXPECT_THAT(store_->SwapPointers({CreateOwning(c, "c0", {"s3://wh/n"})}),
              IsErrorWithMessage(ErrorKind::kForbidden, "s3://wh/n/a"));

  // A commit that moves a table claims the new location and keeps the old
  // (its older snapshots still name files there).
  PointerSwap move{b, "b0", "b1", {}};
  move.owned_locations = std::vector<std::string>{"s3://wh/n/a/x"};
  EXPECT_THAT(store_->SwapPointers({move}), IsError(ErrorKind::kForbidden));
  EXPECT_EQ(store_->GetTable(b)->value().metadata_location, "b0");
  move.owned_locations = std::vector<std::string>{"s3://wh/moved/b"};
  ASSERT_TRUE(store_->SwapPointers({move}));
  ASSERT_TRUE(store_->SwapPointers({{b, "b1", "b2", {}}}));
  for (const char* owned : {"s3://wh/n/a-b/c", "s3://wh/moved"}) {
    EXPECT_THAT(store_->SwapPointers({CreateOwning(c, "c0", {owned})}),
                IsError(ErrorKind::kForbidden))
        << owned;
  }
  // Locations are compared as given: without a trailing '/', bounded.
  for (const std::string& invalid :
       {std::string("s3://wh/x/"), std::string(), "s3://wh/" + std::string(5000, 'x')}) {
    EXPECT_THAT(store_->SwapPointers({CreateOwning(c, "c0", {invalid})}),
                IsError(ErrorKind::kInvalidArgument));
  }

  // Register claims too, and dropping a table frees its locations.
  EXPECT_THAT(store_->RegisterTable({{"n"}, "r"}, "r0", store::RegisterMode::kNew, {},
                                    {"s3://wh/n/a/data"}),
              IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(*store_->GetTable({{"n"}, "r"}));
  ASSERT_TRUE(store_->DropTable(a));
  ASSERT_TRUE(store_->RegisterTable({{"n"}, "r"}, "r0", store::RegisterMode::kNew, {},
                                    {"s3://wh/n/a/data"}));
  // Another instance (process) sees the same claims.
  auto other = OpenInstance();
  ASSERT_TRUE(other);
  EXPECT_THAT((*other)->SwapPointers({CreateOwning(a, "a1", {"s3://wh/n/a"})}),
              IsError(ErrorKind::kForbidden));
}

TEST_P(CatalogStoreTest, LongLocationsOverlapAsShortOnesDo) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  std::string deep = "s3://wh/" + std::string(300, 'x') + "/" + std::string(300, 'y');
  ASSERT_TRUE(store_->SwapPointers({CreateOwning({{"n"}, "a"}, "a0", {deep + "/table"})}));
  for (const std::string& overlapping :
       {deep + "/table", deep, deep + "/table/data", "s3://wh/" + std::string(300, 'x')}) {
    EXPECT_THAT(store_->SwapPointers({CreateOwning({{"n"}, "b"}, "b0", {overlapping})}),
                IsError(ErrorKind::kForbidden))
        << overlapping.size();
  }
  ASSERT_TRUE(store_->SwapPointers({CreateOwning({{"n"}, "b"}, "b0", {deep + "/table2"})}));
}

TEST_P(CatalogStoreTest, FilesInsideAnOwnedLocationAreFound) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  ASSERT_TRUE(store_->SwapPointers({CreateOwning({{"n"}, "a"}, "a0", {"s3://wh/n/a"})}));
  auto owned = store_->FindOwnedLocations(
      {"s3://wh/n/a", "s3://wh/n/a/data/f.parquet", "s3://wh/n/ab/f", "s3://wh/n", "gs://wh/n/a"});
  ASSERT_TRUE(owned);
  EXPECT_EQ(*owned, (std::vector<bool>{true, true, false, false, false}));
  ASSERT_TRUE(store_->DropTable({{"n"}, "a"}));
  EXPECT_EQ(*store_->FindOwnedLocations({"s3://wh/n/a/data/f.parquet"}), std::vector<bool>{false});
}

// What a swap claiming locations for a new table would find, asked before
// it (nothing is written): an overlap in either direction, or none.
TEST_P(CatalogStoreTest, LocationsAreCheckedFreeWithoutClaimingThem) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  ASSERT_TRUE(store_->SwapPointers({CreateOwning({{"n"}, "a"}, "a0", {"s3://wh/n/a"})}));
  const spec::TableIdentifier b{{"n"}, "b"};
  for (const std::string& overlapping : {"s3://wh/n/a", "s3://wh/n/a/data", "s3://wh/n"}) {
    EXPECT_THAT(store_->CheckLocationsFree(b, {"s3://wh/n/b", overlapping}),
                IsErrorWithMessage(ErrorKind::kForbidden, "overlaps"))
        << overlapping;
  }
  EXPECT_THAT(store_->CheckLocationsFree(b, {"s3://wh/n/b", "s3://wh/n/ab"}), IsOk());
  // Checking claims nothing: the same locations are still free to claim.
  ASSERT_TRUE(store_->SwapPointers({CreateOwning(b, "b0", {"s3://wh/n/b"})}));
  EXPECT_THAT(store_->CheckLocationsFree({{"n"}, "c"}, {"s3://wh/n/b/x"}),
              IsError(ErrorKind::kForbidden));
  ASSERT_TRUE(store_->DropTable({{"n"}, "a"}));
  EXPECT_THAT(store_->CheckLocationsFree({{"n"}, "c"}, {"s3://wh/n/a/data"}), IsOk());
}

TEST_P(CatalogStoreTest, UnclaimedTablesAreListedUntilClaimed) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  const spec::TableIdentifier a{{"n"}, "a"}, b{{"n"}, "b"};
  ASSERT_THAT(CreateTable(a, "a0"), IsOk());
  ASSERT_TRUE(store_->SwapPointers({CreateOwning(b, "b0", {"s3://wh/n/b"})}));
  auto unclaimed = store_->ReadUnclaimedTables();
  ASSERT_TRUE(unclaimed);
  ASSERT_EQ(unclaimed->size(), 1u);
  EXPECT_EQ(unclaimed->front().first, a);
  EXPECT_EQ(unclaimed->front().second.metadata_location, "a0");
  // The claim holds only while the pointer is the one read.
  EXPECT_THAT(store_->ClaimTableLocations(a, "stale", {"s3://wh/n/a"}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(store_->ClaimTableLocations({{"n"}, "gone"}, "a0", {"s3://wh/n/gone"}),
              IsError(ErrorKind::kNoSuchTable));
  // A table from before claims is recorded even where it overlaps another
  // (they already share files), so that no new table overlaps either.
  ASSERT_THAT(store_->ClaimTableLocations(a, "a0", {"s3://wh/n/b/a"}), IsOk());
  EXPECT_TRUE(store_->ReadUnclaimedTables()->empty());
  for (const char* overlapping : {"s3://wh/n/b/a/c", "s3://wh/n/b"}) {
    EXPECT_THAT(store_->SwapPointers({CreateOwning({{"n"}, "c"}, "c0", {overlapping})}),
                IsError(ErrorKind::kForbidden));
  }
}

TEST_P(CatalogStoreTest, ConcurrentSwapsLoseNothing) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(CreateTable(id, "0"), IsOk());
  constexpr int kThreads = 8;
  constexpr int kCommits = 100;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int done = 0; done < kCommits;) {
        auto current = store_->GetTable(id);
        ASSERT_TRUE(current);
        std::string next = std::to_string(std::stoi((*current)->metadata_location) + 1);
        auto swapped = store_->SwapPointers({{id, (*current)->metadata_location, next, {}}});
        if (swapped) {
          ++done;
        } else {
          ASSERT_EQ(swapped.error().kind, ErrorKind::kCommitFailed);
          ++conflicts;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ((*store_->GetTable(id))->metadata_location, std::to_string(kThreads * kCommits));
}

TEST_P(CatalogStoreTest, ChangesLogNamesEveryTableAWriteTouched) {
  spec::TableIdentifier t0{{"n"}, "a"};
  spec::TableIdentifier t1{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(t0, t1));
  uint64_t before = store_->LastVersion();
  ASSERT_THAT(store_->RenameTable(t0, {{"n"}, "renamed"}), IsOk());
  ASSERT_TRUE(store_->DropTable(t1));
  ASSERT_TRUE(
      store_->RegisterTable({{"n"}, "registered"}, "r0", store::RegisterMode::kNew, {}, {}));
  auto changed = store_->ReadTablePointersChangedAfter(before);
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->version, store_->LastVersion());
  std::map<std::string, std::optional<std::string>> seen;
  for (const auto& change : changed->tables) {
    seen[change.table_key] =
        change.record ? std::optional<std::string>(change.record->metadata_location) : std::nullopt;
  }
  EXPECT_EQ(seen, (std::map<std::string, std::optional<std::string>>{
                      {TableKey(t0), std::nullopt},
                      {TableKey({{"n"}, "renamed"}), "a0"},
                      {TableKey(t1), std::nullopt},
                      {TableKey({{"n"}, "registered"}), "r0"}}));
  auto nothing = store_->ReadTablePointersChangedAfter(changed->version);
  ASSERT_TRUE(nothing);
  EXPECT_TRUE(nothing->tables.empty());
}

// Records what the store tells its listener.
class RecordingListener : public CommitListener {
 public:
  struct Call {
    std::string what;
    uint64_t previous = 0;
    uint64_t version = 0;
    std::vector<TableChange> changes;
  };
  void OnCommitting(uint64_t previous, uint64_t version) override {
    calls.push_back({"committing", previous, version, {}});
  }
  void OnCommitted(uint64_t previous, uint64_t version,
                   const std::vector<TableChange>& changes) override {
    calls.push_back({"committed", previous, version, changes});
  }
  void OnCommitFailed(uint64_t version) override { calls.push_back({"failed", 0, version, {}}); }
  std::vector<Call> calls;
};

// Every committed write gets a larger change version, told to the listener
// with the version it started from; writes that commit nothing tell nothing.
TEST_P(CatalogStoreTest, EveryCommittedWriteGetsALargerVersionAndIsHeardOnce) {
  RecordingListener listener;
  store_->SetCommitListener(&listener);
  spec::TableIdentifier id{{"n"}, "t"};
  uint64_t v0 = store_->LastVersion();
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  uint64_t v1 = store_->LastVersion();
  ASSERT_THAT(CreateTable(id, "t0"), IsOk());
  uint64_t v2 = store_->LastVersion();
  EXPECT_LT(v0, v1);
  EXPECT_LT(v1, v2);
  // Neither a lost swap nor a check alone commits.
  EXPECT_THAT(store_->SwapPointers({{id, "stale", "t1", {}}}), IsError(ErrorKind::kCommitFailed));
  ASSERT_THAT(store_->SwapPointers({PointerSwap::CompareOnly(id, "t0")}), IsOk());
  EXPECT_THAT(store_->CreateNamespace({"n"}, {}), IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(store_->LastVersion(), v2);
  store_->SetCommitListener(nullptr);

  ASSERT_EQ(listener.calls.size(), 4u);
  EXPECT_EQ(listener.calls[0].what, "committing");
  EXPECT_EQ(listener.calls[1].what, "committed");
  EXPECT_EQ(listener.calls[2].what, "committing");
  EXPECT_EQ(listener.calls[3].what, "committed");
  for (int i : {0, 1}) {
    EXPECT_EQ(listener.calls[i].previous, v0);
    EXPECT_EQ(listener.calls[i].version, v1);
  }
  for (int i : {2, 3}) {
    EXPECT_EQ(listener.calls[i].previous, v1);
    EXPECT_EQ(listener.calls[i].version, v2);
  }
  EXPECT_TRUE(listener.calls[1].changes.empty());
  auto record = store_->GetTable(id);
  ASSERT_TRUE(record && *record);
  EXPECT_EQ(listener.calls[3].changes, (std::vector<TableChange>{{TableKey(id), **record}}));
}

// Another instance of the store (as another process would) sees the writes
// and their versions.
TEST_P(CatalogStoreTest, AnotherInstanceSeesWritesByVersion) {
  auto other = OpenInstance();
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  uint64_t before = (*other)->LastVersion();
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(CreateTable(id, "t0"), IsOk());
  EXPECT_EQ((*other)->LastVersion(), store_->LastVersion());
  auto changed = (*other)->ReadTablePointersChangedAfter(before);
  ASSERT_THAT(changed, IsOk());
  EXPECT_EQ(changed->version, store_->LastVersion());
  ASSERT_EQ(changed->tables.size(), 1u);
  EXPECT_EQ(changed->tables[0].table_key, TableKey(id));
  EXPECT_EQ(changed->tables[0].record->metadata_location, "t0");
  auto all = (*other)->ReadTablePointers();
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->version, store_->LastVersion());
  EXPECT_EQ(all->tables, changed->tables);
}

// Sync() runs its callback while no write commits (the flusher relies on it
// to sync the files that commits name before the store), and does not sync
// if the callback fails.
TEST_P(CatalogStoreTest, SyncHoldsCommitsWhileItsCallbackRuns) {
  auto other = OpenInstance();
  ASSERT_THAT(other, IsOk());
  std::thread writer;
  std::atomic<bool> written{false};
  bool seen_during_hold = true;
  Status synced = store_->Sync([&]() -> Status {
    writer = std::thread([&] {
      EXPECT_THAT((*other)->CreateNamespace({"during"}, {}), IsOk());
      written = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    seen_during_hold = written.load();
    return OkStatus();
  });
  writer.join();
  EXPECT_THAT(synced, IsOk());
  EXPECT_FALSE(seen_during_hold) << "a write committed while Sync() held commits";
  EXPECT_TRUE(*store_->GetNamespace({"during"}));

  EXPECT_THAT(store_->Sync([] { return IoError("the files did not sync"); }),
              IsErrorWithMessage(ErrorKind::kIo, "the files did not sync"));
  // Commits go on afterwards.
  EXPECT_THAT(store_->CreateNamespace({"after"}, {}), IsOk());
}

// --- Journaled files -------------------------------------------------------

PointerSwap JournaledSwap(const spec::TableIdentifier& id, std::optional<std::string> expected,
                          const std::string& location) {
  PointerSwap swap{id, std::move(expected), location, {}, {}, {}};
  swap.journaled_files.push_back(Journaled(location, "bytes of " + location));
  return swap;
}

std::vector<std::string> Locations(const std::vector<JournaledFile>& files) {
  std::vector<std::string> locations;
  for (const auto& file : files) locations.push_back(file.location);
  return locations;
}

TEST_P(CatalogStoreTest, SwapKeepsItsJournaledFilesUntilReleased) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, std::nullopt, "m0")}), IsOk());
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, "m0", "m1")}), IsOk());
  auto files = store_->ReadJournaledFiles();
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(*files, (std::vector<JournaledFile>{Journaled("m0", "bytes of m0"),
                                                Journaled("m1", "bytes of m1")}));
  // Every instance sees them: they are the store's, not the writer's.
  auto other = OpenInstance();
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(*(*other)->ReadJournaledFiles(), *files);

  // Unknown locations are ignored; a release is final.
  EXPECT_THAT(store_->ReleaseJournaledFiles({"m0", "never-journaled"}), IsOk());
  EXPECT_EQ(Locations(*store_->ReadJournaledFiles()), (std::vector<std::string>{"m1"}));
  EXPECT_THAT((*other)->ReleaseJournaledFiles({"m1"}), IsOk());
  EXPECT_TRUE(store_->ReadJournaledFiles()->empty());
  EXPECT_THAT(store_->ReleaseJournaledFiles({"m1"}), IsOk());
}

// Files written with a base come back as differences from it, and can be
// found by their base without reading their contents.
TEST_P(CatalogStoreTest, FilesWithABaseAreFoundByTheirBase) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  std::string text;
  for (int i = 0; i < 300; ++i) text += "{\"snapshot-id\": " + std::to_string(i * 7919) + "},";
  auto swap = [&](std::optional<std::string> expected, const std::string& location,
                  std::optional<std::string> base) {
    PointerSwap swap{id, std::move(expected), location, {}, {}, {}};
    JournaledFile file = Journaled(location, text + location);
    if (base) file.base = JournalBase{*base, std::make_shared<const std::string>(text + *base)};
    swap.journaled_files.push_back(std::move(file));
    return store_->SwapPointers({swap});
  };
  ASSERT_THAT(swap(std::nullopt, "m0", std::nullopt), IsOk());
  ASSERT_THAT(swap("m0", "m1", "m0"), IsOk());
  ASSERT_THAT(swap("m1", "m2", "m1"), IsOk());
  auto files = store_->ReadJournaledFiles();
  ASSERT_THAT(files, IsOk());
  ASSERT_EQ(files->size(), 3u);
  EXPECT_FALSE((*files)[0].delta);
  ASSERT_TRUE((*files)[2].delta && (*files)[2].base);
  EXPECT_EQ((*files)[2].base->location, "m1");
  EXPECT_EQ(*DeltaContents((*files)[2], text + "m1"), text + "m2");

  EXPECT_EQ(*store_->ReadJournaledDeltasOn({"m1"}), (std::vector<std::string>{"m2"}));
  EXPECT_EQ(*store_->ReadJournaledDeltasOn({"m0", "m1", "m2"}),
            (std::vector<std::string>{"m1", "m2"}));
  EXPECT_TRUE(store_->ReadJournaledDeltasOn({"m2", "elsewhere"})->empty());
  EXPECT_THAT(store_->ReleaseJournaledFiles({"m2"}), IsOk());
  EXPECT_TRUE(store_->ReadJournaledDeltasOn({"m1"})->empty());
}

TEST_P(CatalogStoreTest, FailedSwapKeepsNoJournaledFile) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  CreateTablesAAndB(a, b);
  // Lost compare-and-swap, an existing table, a failing multi-table swap,
  // a compare-only swap with a file.
  EXPECT_THAT(store_->SwapPointers({JournaledSwap(a, "stale", "a1")}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(store_->SwapPointers({JournaledSwap(a, std::nullopt, "a2")}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(store_->SwapPointers({JournaledSwap(a, "a0", "a3"), JournaledSwap(b, "stale", "b1")}),
              IsError(ErrorKind::kCommitFailed));
  PointerSwap compare_only = PointerSwap::CompareOnly(a, "a0");
  compare_only.journaled_files.push_back(Journaled("a4", "x"));
  EXPECT_THAT(store_->SwapPointers({compare_only}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_TRUE(store_->ReadJournaledFiles()->empty());
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a0");
}

// With group commit, concurrent swaps share a transaction; the files of the
// ones that lose stay out of it.
TEST_P(CatalogStoreTest, ConcurrentSwapsJournalExactlyTheFilesOfThoseThatCommitted) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(CreateTable(id, "0"), IsOk());
  constexpr int kThreads = 8;
  constexpr int kAttempts = 50;
  std::mutex mutex;
  std::set<std::string> committed;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAttempts; ++i) {
        auto current = store_->GetTable(id);
        ASSERT_TRUE(current);
        std::string next = "t" + std::to_string(t) + "-" + std::to_string(i);
        auto swapped =
            store_->SwapPointers({JournaledSwap(id, (*current)->metadata_location, next)});
        if (swapped) {
          std::lock_guard<std::mutex> lock(mutex);
          committed.insert(next);
        } else {
          ASSERT_EQ(swapped.error().kind, ErrorKind::kCommitFailed);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto files = store_->ReadJournaledFiles();
  ASSERT_THAT(files, IsOk());
  auto locations = Locations(*files);
  EXPECT_EQ(std::set<std::string>(locations.begin(), locations.end()), committed);
  for (const auto& file : *files) EXPECT_EQ(file.bytes(), "bytes of " + file.location);
}

TEST_P(CatalogStoreTest, SwapReleasesFilesInItsTransaction) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, std::nullopt, "m0")}), IsOk());
  PointerSwap next = JournaledSwap(id, "m0", "m1");
  next.released_files = {"m0", "never-journaled"};
  PointerSwap lost = JournaledSwap(id, "m0", "m2");
  lost.released_files = {"m1"};
  ASSERT_THAT(store_->SwapPointers({next}), IsOk());
  EXPECT_THAT(store_->SwapPointers({lost}), IsError(ErrorKind::kCommitFailed));
  // A failed swap released nothing.
  EXPECT_EQ(Locations(*store_->ReadJournaledFiles()), (std::vector<std::string>{"m1"}));
}

TEST_P(CatalogStoreTest, RestoreSeesOnlyFilesStillJournaledAndReleasesThem) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, std::nullopt, "m0")}), IsOk());
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, "m0", "m1")}), IsOk());
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, "m1", "m2")}), IsOk());
  ASSERT_THAT(store_->ReleaseJournaledFiles({"m0"}), IsOk());

  // A failing restore releases nothing.
  EXPECT_THAT(store_->RestoreJournaledFiles(
                  {"m1"}, [](const JournaledFile&) { return IoError("disk full"); }),
              IsError(ErrorKind::kIo));
  EXPECT_EQ(store_->ReadJournaledFiles()->size(), 2u);

  auto other = OpenInstance();
  ASSERT_THAT(other, IsOk());
  std::vector<JournaledFile> restored;
  std::thread writer;
  bool committed_during_restore = false;
  EXPECT_THAT(store_->RestoreJournaledFiles(
                  {"m0", "m1", "unknown"},
                  [&](const JournaledFile& file) -> Status {
                    restored.push_back(file);
                    writer = std::thread(
                        [&] { EXPECT_THAT((*other)->CreateNamespace({"x"}, {}), IsOk()); });
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    committed_during_restore = store_->GetNamespace({"x"})->has_value();
                    return OkStatus();
                  }),
              IsOk());
  writer.join();
  EXPECT_EQ(restored, (std::vector<JournaledFile>{Journaled("m1", "bytes of m1")}));
  EXPECT_FALSE(committed_during_restore) << "a write committed while commits were held";
  EXPECT_EQ(Locations(*store_->ReadJournaledFiles()), (std::vector<std::string>{"m2"}));
}

TEST_P(CatalogStoreTest, JournaledFilesMayHaveLongLocations) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  std::string prefix = "file:/" + std::string(600, 'd') + "/metadata/";
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, std::nullopt, prefix + "a.json")}), IsOk());
  ASSERT_THAT(store_->SwapPointers({JournaledSwap(id, prefix + "a.json", prefix + "b.json")}),
              IsOk());
  EXPECT_EQ(Locations(*store_->ReadJournaledFiles()).size(), 2u);
  ASSERT_THAT(store_->ReleaseJournaledFiles({prefix + "a.json"}), IsOk());
  EXPECT_EQ(
      *store_->ReadJournaledFiles(),
      (std::vector<JournaledFile>{Journaled(prefix + "b.json", "bytes of " + prefix + "b.json")}));
}

// --- Idempotency records --------------------------------------------------------

// A record of `key`, final at `created`, live until `expires`.
IdempotencyRecord Answer(std::string key, int64_t created, int64_t expires, int status = 204,
                         std::string body = "") {
  IdempotencyRecord record;
  record.key = std::move(key);
  record.fingerprint = "fp-" + record.key;
  record.status = status;
  record.body = std::move(body);
  record.created_at_ms = created;
  record.expires_at_ms = expires;
  return record;
}

// A swap from `from` to `to` that answers `record`.
PointerSwap AnsweringSwap(const spec::TableIdentifier& id, std::string from, std::string to,
                          const IdempotencyRecord& record) {
  PointerSwap swap{id, std::move(from), std::move(to), {}};
  swap.idempotency_records.push_back(record);
  return swap;
}

TEST_P(CatalogStoreTest, IdempotencyRecordsAreFoundUntilTheyExpire) {
  IdempotencyRecord body_answer = Answer("k1", 1000, 2000, 409, R"({"error":{}})");
  IdempotencyRecord table_answer = Answer("k2", 1000, 2000, 200);
  table_answer.table = {{"a", "b c"}, "t"};
  table_answer.metadata_location = "file:///w/t/metadata/00001-x.metadata.json";
  EXPECT_THAT(store_->FindIdempotencyRecord("k1", 1000), IsOk());
  EXPECT_FALSE(*store_->FindIdempotencyRecord("k1", 1000));
  ASSERT_THAT(store_->RecordIdempotency(body_answer), IsOk());
  ASSERT_THAT(store_->RecordIdempotency(table_answer), IsOk());
  EXPECT_EQ(*store_->FindIdempotencyRecord("k1", 1000), body_answer);
  EXPECT_EQ(*store_->FindIdempotencyRecord("k2", 1999), table_answer);
  EXPECT_FALSE(*store_->FindIdempotencyRecord("k2", 2000)) << "expired at expires_at_ms";
  EXPECT_THAT(store_->RecordIdempotency(Answer("", 0, 1)), IsError(ErrorKind::kInvalidArgument));
}

TEST_P(CatalogStoreTest, TheFirstLiveRecordOfAKeyStands) {
  IdempotencyRecord first = Answer("k", 1000, 2000, 200, "first");
  IdempotencyRecord second = Answer("k", 1500, 2500, 409, "second");
  ASSERT_EQ(*store_->RecordIdempotency(first), first);
  EXPECT_EQ(*store_->RecordIdempotency(second), first) << "the earlier answer is the key's";
  EXPECT_EQ(*store_->FindIdempotencyRecord("k", 1500), first);
  // Once it expired, the key is free again.
  IdempotencyRecord later = Answer("k", 2000, 3000, 204);
  EXPECT_EQ(*store_->RecordIdempotency(later), later);
  EXPECT_EQ(*store_->FindIdempotencyRecord("k", 2999), later);
  // The old record's place in the expiry order went with it: pruning at a
  // time past the old expiry only keeps the new one.
  EXPECT_EQ(*store_->PruneIdempotencyRecords(2500, 10), 0u);
  EXPECT_EQ(*store_->FindIdempotencyRecord("k", 2000), later);
}

TEST_P(CatalogStoreTest, IdempotencyRecordsAreSharedAndSurviveReopen) {
  IdempotencyRecord record = Answer("k", 1000, 2000, 200, R"({"namespace":["n"]})");
  ASSERT_THAT(store_->RecordIdempotency(record), IsOk());
  auto other = OpenInstance();
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(*(*other)->FindIdempotencyRecord("k", 1000), record);
  EXPECT_EQ(*(*other)->RecordIdempotency(Answer("k", 1100, 2100)), record);
  other->reset();
  store_.reset();
  auto reopened = OpenInstance();
  ASSERT_THAT(reopened, IsOk());
  EXPECT_EQ(*(*reopened)->FindIdempotencyRecord("k", 1000), record);
}

TEST_P(CatalogStoreTest, PruningDeletesExpiredRecordsEarliestFirst) {
  for (int64_t expiry : {30, 10, 20}) {
    ASSERT_THAT(store_->RecordIdempotency(Answer(StrCat("k", expiry), 0, expiry)), IsOk());
  }
  // Found at time 0 while they are kept, whatever pruning time says.
  auto kept = [&](const std::string& key) {
    return store_->FindIdempotencyRecord(key, 0)->has_value();
  };
  EXPECT_EQ(*store_->PruneIdempotencyRecords(25, 1), 1u);
  EXPECT_FALSE(kept("k10"));
  EXPECT_TRUE(kept("k20"));
  EXPECT_EQ(*store_->PruneIdempotencyRecords(25, 10), 1u);
  EXPECT_FALSE(kept("k20"));
  EXPECT_EQ(*store_->PruneIdempotencyRecords(25, 10), 0u);
  EXPECT_TRUE(kept("k30"));
}

TEST_P(CatalogStoreTest, WritesThatAddRecordsPruneExpiredOnes) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  auto kept = [&](const std::string& key) {
    return store_->FindIdempotencyRecord(key, 0)->has_value();
  };
  ASSERT_THAT(store_->RecordIdempotency(Answer("old1", 0, 10)), IsOk());
  ASSERT_THAT(store_->RecordIdempotency(Answer("old2", 0, 20)), IsOk());
  ASSERT_THAT(store_->RecordIdempotency(Answer("new1", 15, 100)), IsOk());
  EXPECT_FALSE(kept("old1"));
  EXPECT_TRUE(kept("old2"));
  ASSERT_THAT(store_->SwapPointers({AnsweringSwap(a, "a0", "a1", Answer("new2", 50, 100))}),
              IsOk());
  EXPECT_FALSE(kept("old2"));
  EXPECT_TRUE(kept("new1"));
  EXPECT_TRUE(kept("new2"));
}

// The record of a commit is written in the commit's transaction: it is there
// exactly when the pointer moved.
TEST_P(CatalogStoreTest, SwapWritesItsRecordsWithThePointerOrNotAtAll) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  IdempotencyRecord lost = Answer("lost", 1000, 2000, 200);
  EXPECT_THAT(store_->SwapPointers({AnsweringSwap(a, "stale", "a1", lost)}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(store_->SwapPointers({AnsweringSwap(a, "a0", "a1", lost), {b, "stale", "b1", {}}}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_FALSE(*store_->FindIdempotencyRecord("lost", 1000));
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a0");

  IdempotencyRecord won = Answer("won", 1000, 2000, 200);
  won.table = a;
  won.metadata_location = "a1";
  ASSERT_THAT(store_->SwapPointers({AnsweringSwap(a, "a0", "a1", won)}), IsOk());
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a1");
  EXPECT_EQ(*store_->FindIdempotencyRecord("won", 1000), won);
  PointerSwap compare_only = PointerSwap::CompareOnly(b, "b0");
  compare_only.idempotency_records.push_back(Answer("check", 1000, 2000));
  EXPECT_THAT(store_->SwapPointers({compare_only}), IsError(ErrorKind::kInvalidArgument));
}

// A retry whose first attempt committed (here or in another process) must
// not commit again: its swap fails with a kind of its own, before any
// pointer check, and writes nothing.
TEST_P(CatalogStoreTest, SwapWithAKeyAnsweredBeforeFailsDistinctlyAndWritesNothing) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  IdempotencyRecord first = Answer("k", 1000, 2000, 200, "first");
  ASSERT_THAT(store_->SwapPointers({AnsweringSwap(a, "a0", "a1", first)}), IsOk());
  uint64_t seq = *store_->CommitSeq();
  for (const char* expected : {"a1", "a0"}) {  // current, then stale
    auto retried =
        store_->SwapPointers({AnsweringSwap(a, expected, "a2", Answer("k", 1500, 2500))});
    ASSERT_THAT(retried, IsError(ErrorKind::kIdempotencyKeyUsed));
    EXPECT_FALSE(retried.error().retryable);
  }
  EXPECT_THAT(store_->SwapPointers({AnsweringSwap(b, "b0", "b1", Answer("k", 1500, 2500))}),
              IsError(ErrorKind::kIdempotencyKeyUsed));
  EXPECT_EQ((*store_->GetTable(a))->metadata_location, "a1");
  EXPECT_EQ((*store_->GetTable(b))->metadata_location, "b0");
  EXPECT_EQ(*store_->CommitSeq(), seq);
  EXPECT_EQ(*store_->FindIdempotencyRecord("k", 1500), first);
  // Once the record expired, the key commits again.
  ASSERT_THAT(store_->SwapPointers({AnsweringSwap(a, "a1", "a2", Answer("k", 2000, 3000))}),
              IsOk());
}

// A multi-table transaction carries its one record on every table's swap.
TEST_P(CatalogStoreTest, OneCallWritesARecordItCarriesTwiceOnce) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  IdempotencyRecord record = Answer("tx", 1000, 2000, 204);
  IdempotencyRecord other = Answer("tx", 1000, 2000, 409);
  EXPECT_THAT(store_->SwapPointers(
                  {AnsweringSwap(a, "a0", "a1", record), AnsweringSwap(b, "b0", "b1", other)}),
              IsError(ErrorKind::kIdempotencyKeyUsed));
  EXPECT_FALSE(*store_->FindIdempotencyRecord("tx", 1000));
  ASSERT_THAT(store_->SwapPointers(
                  {AnsweringSwap(a, "a0", "a1", record), AnsweringSwap(b, "b0", "b1", record)}),
              IsOk());
  EXPECT_EQ(*store_->FindIdempotencyRecord("tx", 1000), record);
  EXPECT_EQ((*store_->GetTable(b))->metadata_location, "b1");
}

// Concurrent commits with one key (group commit puts them in one
// transaction): exactly one commits.
TEST_P(CatalogStoreTest, ConcurrentSwapsWithOneKeyCommitOnce) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  constexpr int kThreads = 8;
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_THAT(CreateTable({{"n"}, StrCat("t", i)}, "0"), IsOk());
  }
  std::atomic<int> committed{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto swapped = store_->SwapPointers(
          {AnsweringSwap({{"n"}, StrCat("t", i)}, "0", "1", Answer("k", 1000, 2000))});
      if (swapped) {
        ++committed;
      } else if (swapped.error().kind == ErrorKind::kIdempotencyKeyUsed) {
        ++refused;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(committed.load(), 1);
  EXPECT_EQ(refused.load(), kThreads - 1);
  int moved = 0;
  for (int i = 0; i < kThreads; ++i) {
    moved += (*store_->GetTable({{"n"}, StrCat("t", i)}))->metadata_location == "1";
  }
  EXPECT_EQ(moved, 1);
}

// --- History: commit times, a table's commits, as-of ------------------------

TEST_P(CatalogStoreTest, CommitsKeepNonDecreasingTimesAndATableHistory) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  int64_t before = NowMillis();
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  uint64_t a_id = (*store_->GetTable(a))->table_id;
  uint64_t b_id = (*store_->GetTable(b))->table_id;
  std::vector<std::string> a_locations = {"a0"};
  for (int i = 1; i <= 5; ++i) {
    std::string next = "a" + std::to_string(i);
    ASSERT_TRUE(store_->SwapPointers({{a, a_locations.back(), next, {100 + i}}}));
    a_locations.push_back(next);
    ASSERT_TRUE(store_->SwapPointers(
        {{b, i == 1 ? "b0" : "b" + std::to_string(i - 1), "b" + std::to_string(i), {200 + i}}}));
  }
  auto log = store_->ReadCommitLog(0, 100);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 12u);
  for (size_t i = 0; i < log->size(); ++i) {
    EXPECT_GE((*log)[i].second.committed_at_ms, before);
    EXPECT_LE((*log)[i].second.committed_at_ms, NowMillis());
    if (i > 0) {
      EXPECT_GE((*log)[i].second.committed_at_ms, (*log)[i - 1].second.committed_at_ms);
    }
  }

  // The whole history of a, in order, and only a's; paged by commit_seq.
  auto history = store_->ReadTableHistory(a_id, 0, 100);
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 6u);
  for (size_t i = 0; i < history->size(); ++i) {
    EXPECT_EQ((*history)[i].second.table_id, a_id);
    EXPECT_EQ((*history)[i].second.metadata_location, a_locations[i]);
  }
  EXPECT_EQ((*history)[3].second.added_snapshot_ids, std::vector<int64_t>{103});
  auto page = store_->ReadTableHistory(a_id, (*history)[1].first, 2);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].first, (*history)[2].first);
  EXPECT_EQ((*page)[1].first, (*history)[3].first);
  EXPECT_THAT(store_->ReadTableHistory(b_id, 0, 100), IsOk());
  EXPECT_EQ(store_->ReadTableHistory(b_id, 0, 100)->size(), 6u);
  EXPECT_TRUE(store_->ReadTableHistory(999999, 0, 100)->empty());

  // As of a commit's time: that commit or a later one of the same
  // millisecond; before the first: nothing; far ahead: the last.
  auto last = store_->FindCommitAsOf(a_id, std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(last && *last);
  EXPECT_EQ((*last)->second.metadata_location, "a5");
  auto none = store_->FindCommitAsOf(a_id, (*history)[0].second.committed_at_ms - 1);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_FALSE(*store_->FindCommitAsOf(a_id, -5));
  for (const auto& [seq, record] : *history) {
    auto at = store_->FindCommitAsOf(a_id, record.committed_at_ms);
    ASSERT_TRUE(at && *at);
    EXPECT_GE((*at)->first, seq);
    EXPECT_EQ((*at)->second.table_id, a_id);
    EXPECT_EQ((*at)->second.committed_at_ms, record.committed_at_ms);
  }
  EXPECT_FALSE(*store_->FindCommitAsOf(999999, NowMillis()));
}

TEST_P(CatalogStoreTest, FindSnapshotsAnswersManyFromOneReadAndKeepsTheFirstCommit) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  uint64_t a_id = (*store_->GetTable(a))->table_id;
  uint64_t b_id = (*store_->GetTable(b))->table_id;
  // Equal snapshot ids in two tables, and one id that a reuses later.
  ASSERT_TRUE(store_->SwapPointers({{a, "a0", "a1", {7, 8}}, {b, "b0", "b1", {7}}}));
  ASSERT_TRUE(store_->SwapPointers({{a, "a1", "a2", {8}}}));
  std::vector<std::pair<uint64_t, int64_t>> keys = {
      {a_id, 7}, {b_id, 7}, {a_id, 8}, {b_id, 8}, {999999, 7}};
  auto found = store_->FindSnapshots(keys);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->size(), keys.size());
  EXPECT_EQ((*found)[0], "a1");
  EXPECT_EQ((*found)[1], "b1");
  EXPECT_EQ((*found)[2], "a1");  // the first commit that added it
  EXPECT_FALSE((*found)[3]);
  EXPECT_FALSE((*found)[4]);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(*store_->FindSnapshot(keys[i].first, keys[i].second), (*found)[i]);
  }
}

// Retention drops old commit-log entries, but keeps each table's last one
// before the cutoff (as-of reads from the cutoff on stay exact) and every
// snapshot's resolution.
TEST_P(CatalogStoreTest, PruneCommitLogKeepsEachTablesLastCommitBeforeTheCutoff) {
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_NO_FATAL_FAILURE(CreateTablesAAndB(a, b));
  const uint64_t a_id = (*store_->GetTable(a))->table_id;
  const uint64_t b_id = (*store_->GetTable(b))->table_id;
  // Distinct commit times, so that a cutoff falls between two commits.
  const auto tick = [] { std::this_thread::sleep_for(std::chrono::milliseconds(3)); };
  for (auto [id, from, to, snapshot] :
       std::vector<std::tuple<spec::TableIdentifier, std::string, std::string, int64_t>>{
           {a, "a0", "a1", 11},
           {b, "b0", "b1", 21},
           {a, "a1", "a2", 12},
           {a, "a2", "a3", 13},
           {b, "b1", "b2", 22}}) {
    tick();
    ASSERT_TRUE(store_->SwapPointers({{id, from, to, {snapshot}}}));
  }
  auto log = store_->ReadCommitLog(0, 100);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 7u);  // a0 b0 a1 b1 a2 a3 b2
  const auto seq_of = [&](const std::string& location) {
    for (const auto& [seq, record] : *log) {
      if (record.metadata_location == location) return std::pair{seq, record.committed_at_ms};
    }
    return std::pair<uint64_t, int64_t>{0, 0};
  };
  const auto locations = [](const auto& entries) {
    std::vector<std::string> out;
    for (const auto& [seq, record] : entries) out.push_back(record.metadata_location);
    return out;
  };
  auto [a3_seq, a3_ms] = seq_of("a3");
  ASSERT_GT(a3_ms, seq_of("a2").second);

  // Before a3: a0 a1 b0 go; a2 (a's last then) and b1 (b's) stay.
  EXPECT_EQ(*store_->PruneCommitLog(a3_ms, 2), 2u);  // bounded work per call
  EXPECT_EQ(*store_->PruneCommitLog(a3_ms, 100), 3u);
  EXPECT_EQ(*store_->PruneCommitLog(a3_ms, 100), 0u);
  auto page = store_->ReadCommitLogPage(0, 0);
  ASSERT_TRUE(page);
  auto* bounds = &page->bounds;
  EXPECT_TRUE(page->entries.empty());
  EXPECT_EQ(bounds->pruned_through, seq_of("a2").first);
  EXPECT_EQ(bounds->pruned_before_ms, a3_ms);
  EXPECT_EQ(bounds->last_seq, *store_->CommitSeq());
  EXPECT_EQ(locations(*store_->ReadCommitLog(0, 100)),
            (std::vector<std::string>{"b1", "a2", "a3", "b2"}));
  EXPECT_EQ(locations(*store_->ReadTableHistory(a_id, 0, 100)),
            (std::vector<std::string>{"a2", "a3"}));
  EXPECT_EQ(locations(*store_->ReadTableHistory(b_id, 0, 100)),
            (std::vector<std::string>{"b1", "b2"}));
  // As of the cutoff and later: exact.
  EXPECT_EQ((*store_->FindCommitAsOf(a_id, a3_ms - 1))->second.metadata_location, "a2");
  EXPECT_EQ((*store_->FindCommitAsOf(b_id, a3_ms))->second.metadata_location, "b1");
  EXPECT_EQ((*store_->FindCommitAsOf(a_id, a3_ms))->second.metadata_location, "a3");
  // Snapshots of dropped entries still resolve.
  EXPECT_EQ(**store_->FindSnapshot(a_id, 11), "a1");

  // Everything before now: each table keeps only its last commit.
  ASSERT_TRUE(store_->PruneCommitLog(std::numeric_limits<int64_t>::max(), 100));
  EXPECT_EQ(locations(*store_->ReadCommitLog(0, 100)), (std::vector<std::string>{"a3", "b2"}));
  EXPECT_EQ(store_->ReadCommitLogPage(0, 0)->bounds.pruned_through, *store_->CommitSeq());
  EXPECT_EQ(locations(*store_->ReadTableHistory(a_id, 0, 100)), (std::vector<std::string>{"a3"}));

  // New commits are logged after the pruned range, as ever.
  ASSERT_TRUE(store_->SwapPointers({{a, "a3", "a4", {14}}}));
  const uint64_t resume = store_->ReadCommitLogPage(0, 0)->bounds.pruned_through;
  auto tail = store_->ReadCommitLogPage(resume, 100);
  EXPECT_EQ(locations(tail->entries), (std::vector<std::string>{"a4"}));
  EXPECT_EQ(tail->bounds.last_seq, tail->entries.back().first);
  EXPECT_EQ(a3_seq, seq_of("a3").first);
}

INSTANTIATE_TEST_SUITE_P(Implementations, CatalogStoreTest,
                         ::testing::ValuesIn(testing::CatalogStoreImplementations()),
                         testing::CatalogStoreImplementationName);

// --- Opening by location ------------------------------------------------------

CatalogStoreOptions SmallOptions() {
  CatalogStoreOptions options;
  options.map_size = 1ull << 30;
  options.durability = Durability::kNone;
  return options;
}

TEST(CatalogStoreOpenTest, APlainPathAndAnLmdbLocationOpenTheSameStore) {
  testing::TempDir dir;
  auto by_path = CatalogStore::Open(dir.Sub("store"), SmallOptions());
  ASSERT_THAT(by_path, IsOk());
  ASSERT_THAT((*by_path)->CreateNamespace({"n"}, {}), IsOk());
  auto by_scheme = CatalogStore::Open("lmdb:" + dir.Sub("store"), SmallOptions());
  ASSERT_THAT(by_scheme, IsOk());
  EXPECT_TRUE(*(*by_scheme)->GetNamespace({"n"}));
}

TEST(CatalogStoreOpenTest, UnknownSchemesAreRefused) {
  EXPECT_THAT(CatalogStore::Open("nosuchstore://host/db", SmallOptions()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Unknown catalog store scheme 'nosuchstore'"));
}

// A kind of store added from outside: Open() hands it the whole location.
// (The registration outlives the test, so the opener owns what it uses, and
// a repeated run in one process registers a scheme of its own.)
TEST(CatalogStoreOpenTest, RegisteredSchemesOpenThroughTheirOpener) {
  static int runs = 0;
  const std::string scheme = "contract-test" + std::to_string(++runs);
  testing::TempDir dir;
  auto opened = std::make_shared<std::vector<std::string>>();
  std::string path = dir.Sub("store");
  ASSERT_THAT(CatalogStore::RegisterScheme(
                  scheme,
                  [opened, path](const std::string& location, const CatalogStoreOptions& options) {
                    opened->push_back(location);
                    return CatalogStore::Open(path, options);
                  }),
              IsOk());
  EXPECT_THAT(CatalogStore::RegisterScheme(scheme, nullptr), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(CatalogStore::RegisterScheme("lmdb", nullptr), IsError(ErrorKind::kAlreadyExists));
  auto store = CatalogStore::Open(scheme + ":anything", SmallOptions());
  ASSERT_THAT(store, IsOk());
  ASSERT_THAT((*store)->CreateNamespace({"n"}, {}), IsOk());
  EXPECT_EQ(*opened, std::vector<std::string>{scheme + ":anything"});
  auto direct = CatalogStore::Open(path, SmallOptions());
  ASSERT_THAT(direct, IsOk());
  EXPECT_TRUE(*(*direct)->GetNamespace({"n"}));
}

}  // namespace
}  // namespace skade::store
