#include "skade/store/catalog_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

class CatalogStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CatalogStoreOptions options;
    options.lmdb.map_size = 1ull << 30;
    options.lmdb.durability = Durability::kNone;
    auto opened = CatalogStore::Open(dir_.Sub("store"), options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  Status CreateTable(const spec::TableIdentifier& id, const std::string& location) {
    auto result = store_->SwapPointers({{id, std::nullopt, location, {}}});
    if (!result) return tl::unexpected(result.error());
    return OkStatus();
  }

  testing::TempDir dir_;
  std::unique_ptr<CatalogStore> store_;
};

TEST_F(CatalogStoreTest, NamespacesNestAndListDirectChildren) {
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

TEST_F(CatalogStoreTest, NamespaceRulesAreCheckedInTheTransaction) {
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

TEST_F(CatalogStoreTest, NamespacePropertiesUpdateReportsMissingKeys) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {{"a", "1"}, {"b", "2"}}), IsOk());
  auto missing = store_->UpdateNamespaceProperties({"n"}, {"a", "zz"}, {{"c", "3"}});
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, std::vector<std::string>{"zz"});
  EXPECT_EQ(**store_->GetNamespace({"n"}), (Properties{{"b", "2"}, {"c", "3"}}));
}

TEST_F(CatalogStoreTest, ListingsPageWithOpaqueTokens) {
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

TEST_F(CatalogStoreTest, SwapPointersIsCompareAndSwap) {
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

TEST_F(CatalogStoreTest, MultiTableSwapIsAllOrNothing) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_THAT(CreateTable(a, "a0"), IsOk());
  ASSERT_THAT(CreateTable(b, "b0"), IsOk());
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
TEST_F(CatalogStoreTest, CompareOnlySwapsCheckWithoutWriting) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier a{{"n"}, "a"};
  spec::TableIdentifier b{{"n"}, "b"};
  ASSERT_THAT(CreateTable(a, "a0"), IsOk());
  ASSERT_THAT(CreateTable(b, "b0"), IsOk());
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
  uint64_t txn_before = store_->env().LastTxnId();
  ASSERT_THAT(store_->SwapPointers({PointerSwap::CompareOnly(b, "b1")}), IsOk());
  EXPECT_EQ(*store_->CommitSeq(), seq_before + 2);
  auto changed = store_->ReadTablePointersChangedAfter(txn_before);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(changed->tables.empty());
}

TEST_F(CatalogStoreTest, RenameKeepsTheTableIdAndChecksBothEnds) {
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

TEST_F(CatalogStoreTest, RegisterCreatesOrOverwrites) {
  ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
  spec::TableIdentifier id{{"n"}, "t"};
  ASSERT_TRUE(store_->RegisterTable(id, "m1", false));
  EXPECT_THAT(store_->RegisterTable(id, "m2", false), IsError(ErrorKind::kAlreadyExists));
  ASSERT_TRUE(store_->RegisterTable(id, "m2", true));
  EXPECT_EQ((*store_->GetTable(id))->metadata_location, "m2");
}

TEST_F(CatalogStoreTest, ConcurrentSwapsLoseNothing) {
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

TEST_F(CatalogStoreTest, ReopeningInTheSameProcessSharesTheEnvironment) {
  CatalogStoreOptions options;
  options.lmdb.map_size = 1ull << 30;
  options.lmdb.durability = Durability::kNone;
  auto again = CatalogStore::Open(dir_.Sub("store"), options);
  ASSERT_TRUE(again);
  EXPECT_EQ(&(*again)->env(), &store_->env());
  ASSERT_THAT(store_->CreateNamespace({"shared"}, {}), IsOk());
  EXPECT_TRUE(*(*again)->GetNamespace({"shared"}));
}

}  // namespace
}  // namespace skade::store
