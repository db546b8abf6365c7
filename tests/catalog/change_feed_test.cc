// The change feed (Catalog::ReadChanges) read while writers commit: every
// commit is seen once, in order, whatever the page size; who made a commit
// is kept with it; a reader behind the retention is told so, not skipped
// ahead silently.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

class ChangeFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    options.default_requester = "feed-test";
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  void Create(const TableIdentifier& id) {
    if (!*catalog_->NamespaceExists(id.ns)) {
      ASSERT_THAT(catalog_->CreateNamespace(id.ns, {}), IsOk());
    }
    CreateTableRequest request;
    request.name = id.name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    auto created = catalog_->CreateTable(id.ns, request);
    ASSERT_TRUE(created) << created.error().ToString();
  }

  // Every commit after `since`, in pages of `page_size`; checks the order.
  std::vector<std::pair<uint64_t, store::CommitLogRecord>> ReadAll(uint64_t since,
                                                                   size_t page_size) {
    std::vector<std::pair<uint64_t, store::CommitLogRecord>> all;
    for (;;) {
      auto page = catalog_->ReadChanges({since}, page_size);
      EXPECT_TRUE(page) << page.error().ToString();
      if (!page || page->commits.empty()) return all;
      for (auto& entry : page->commits) {
        EXPECT_GT(entry.first, since);
        since = entry.first;
        all.push_back(std::move(entry));
      }
    }
  }

  testing::TempDir dir_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
};

TEST_F(ChangeFeedTest, ConcurrentCommitsAreEachSeenOnceInOrder) {
  // Two writers per table: conflicts, retries and same-table batches; four
  // tables: group commits across tables. A reader follows with small pages.
  const std::vector<TableIdentifier> tables = {
      {{"feed"}, "a"}, {{"feed"}, "b"}, {{"feed"}, "c"}, {{"feed"}, "d"}};
  for (const auto& table : tables) Create(table);
  constexpr int kWriters = 8;
  constexpr int kAppendsEach = 40;

  std::atomic<int> writers_running{kWriters};
  std::vector<std::vector<int64_t>> written(kWriters);
  std::vector<std::jthread> writers;  // joined on an early return too
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      // Counted out however it returns (a failed ASSERT too): the follower
      // waits for it.
      std::shared_ptr<void> count_out(nullptr, [&](void*) { writers_running.fetch_sub(1); });
      for (int i = 0; i < kAppendsEach; ++i) {
        auto appended = testing::FastAppend(*catalog_, tables[w % tables.size()]);
        ASSERT_TRUE(appended) << appended.error().ToString();
        written[w].push_back(*appended);
      }
    });
  }

  std::vector<std::pair<uint64_t, store::CommitLogRecord>> followed;
  uint64_t since = 0;
  bool caught_up_after_writers = false;
  while (!caught_up_after_writers) {
    // Decided before reading: a page read after the last writer returned
    // holds everything it committed.
    const bool writers_done = writers_running.load() == 0;
    auto page = catalog_->ReadChanges({since}, 3);
    ASSERT_TRUE(page) << page.error().ToString();
    for (auto& entry : page->commits) {
      ASSERT_GT(entry.first, since) << "sequence numbers go backwards or repeat";
      since = entry.first;
      followed.push_back(std::move(entry));
    }
    EXPECT_LE(since, page->last_seq);
    caught_up_after_writers = writers_done && page->commits.empty();
  }
  for (auto& writer : writers) writer.join();

  std::map<int64_t, int> seen;  // snapshot id -> events that added it
  size_t creates = 0;
  for (const auto& [seq, commit] : followed) {
    if (commit.kind == store::CommitKind::kCreate) ++creates;
    ASSERT_FALSE(commit.identifier.name.empty());
    ASSERT_EQ(commit.snapshot_operations.size(), commit.added_snapshot_ids.size());
    for (size_t i = 0; i < commit.added_snapshot_ids.size(); ++i) {
      ++seen[commit.added_snapshot_ids[i]];
      EXPECT_EQ(commit.snapshot_operations[i], "append");
    }
    ASSERT_FALSE(commit.origins.empty());
    EXPECT_EQ(commit.origins.front().requester, "feed-test");
  }
  EXPECT_EQ(creates, tables.size());
  size_t appends = 0;
  for (const auto& ids : written) {
    for (int64_t id : ids) {
      EXPECT_EQ(seen[id], 1) << "snapshot " << id << " missed or repeated by the feed";
      ++appends;
    }
  }
  EXPECT_EQ(seen.size(), appends) << "the feed holds snapshots nobody wrote";

  // Reading the finished log again, in other page sizes, gives the same.
  for (size_t page_size : {size_t{1}, size_t{7}, size_t{1000}}) {
    auto again = ReadAll(0, page_size);
    ASSERT_EQ(again.size(), followed.size()) << "page size " << page_size;
    for (size_t i = 0; i < again.size(); ++i) {
      EXPECT_EQ(again[i].first, followed[i].first);
      EXPECT_EQ(again[i].second.metadata_location, followed[i].second.metadata_location);
    }
  }
}

TEST_F(ChangeFeedTest, KeepsTheRequestThatMadeACommit) {
  TableIdentifier id{{"feed"}, "origin"};
  Create(id);
  auto current = catalog_->LoadTable(id);
  ASSERT_TRUE(current);
  auto request = testing::FastAppendRequest(id, *current->metadata, 4242);
  request.origin = {"spark-etl", "req-17"};
  ASSERT_TRUE(catalog_->CommitTable(request));

  auto all = ReadAll(0, 100);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].second.kind, store::CommitKind::kCreate);
  EXPECT_EQ(all[0].second.origins.at(0).requester, "feed-test");
  const auto& append = all[1].second;
  EXPECT_EQ(append.kind, store::CommitKind::kUpdate);
  EXPECT_EQ(append.identifier, id);
  EXPECT_EQ(append.added_snapshot_ids, std::vector<int64_t>{4242});
  ASSERT_EQ(append.origins.size(), 1u);
  EXPECT_EQ(append.origins[0].requester, "spark-etl");
  EXPECT_EQ(append.origins[0].request_id, "req-17");
  EXPECT_EQ(append.metadata_location, catalog_->LoadTable(id)->metadata_location);
}

TEST_F(ChangeFeedTest, AReaderBehindTheRetentionIsToldWhereToResume) {
  TableIdentifier id{{"feed"}, "pruned"};
  Create(id);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(testing::FastAppend(*catalog_, id));
  auto before = catalog_->ReadChanges({0}, 100);
  ASSERT_TRUE(before);
  ASSERT_EQ(before->commits.size(), 6u);
  const uint64_t last = before->last_seq;

  // Everything is older than "the future": each table keeps its last commit.
  ASSERT_TRUE(catalog_->store().PruneCommitLog(NowMillis() + 60'000, 1000));
  auto gone = catalog_->ReadChanges({0}, 100);
  ASSERT_THAT(gone, IsError(ErrorKind::kGone));
  EXPECT_NE(gone.error().message.find("resume from since="), std::string::npos)
      << gone.error().message;

  auto bounds = catalog_->store().ReadCommitLogPage(0, 0);
  ASSERT_TRUE(bounds);
  const uint64_t resume = bounds->bounds.pruned_through;
  EXPECT_GT(resume, 0u);
  auto after = catalog_->ReadChanges({resume}, 100);
  ASSERT_TRUE(after) << after.error().ToString();
  EXPECT_EQ(after->last_seq, last);
  for (const auto& [seq, commit] : after->commits) EXPECT_GT(seq, resume);

  // A position past the end (another catalog's, or from before a restore).
  EXPECT_THAT(catalog_->ReadChanges({last + 1}, 100), IsError(ErrorKind::kInvalidArgument));
  // The end itself is a position to wait at: no commits yet, no error.
  auto at_end = catalog_->ReadChanges({last}, 100);
  ASSERT_TRUE(at_end);
  EXPECT_TRUE(at_end->commits.empty());
}

TEST_F(ChangeFeedTest, APositionIsItsNumberAndACheckOfItsCommit) {
  TableIdentifier id{{"feed"}, "checked"};
  Create(id);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(testing::FastAppend(*catalog_, id));
  auto all = catalog_->ReadChanges({0}, 100);
  ASSERT_THAT(all, IsOk());
  ASSERT_EQ(all->commits.size(), 4u);
  const auto& [seq, commit] = all->commits[1];
  const ChangePosition second = ChangePosition::After(seq, commit);
  ASSERT_TRUE(second.check);
  EXPECT_EQ(ChangePosition::Parse("since", second.ToString()), second);
  EXPECT_EQ(ChangePosition::Parse("since", "17"), (ChangePosition{17, std::nullopt}));
  EXPECT_EQ(ChangePosition{17}.ToString(), "17");
  for (const char* bad :
       {"", "-1", "1.", ".0123456789abcdef", "1.0123456789ABCDEF", "1.0123456789abcde",
        "1.0123456789abcdef0", "1.01234567-9abcdef", "99999999999999999999", "1 "}) {
    EXPECT_THAT(ChangePosition::Parse("since", bad), IsError(ErrorKind::kInvalidArgument)) << bad;
  }

  // Checked, the page goes on after its commit, as from the bare number.
  auto after = catalog_->ReadChanges(second, 100);
  ASSERT_THAT(after, IsOk());
  ASSERT_EQ(after->commits.size(), 2u);
  EXPECT_EQ(after->commits[0].first, seq + 1);
  auto one = catalog_->ReadChanges(second, 1);
  ASSERT_THAT(one, IsOk());
  ASSERT_EQ(one->commits.size(), 1u);
  EXPECT_EQ(one->commits[0].first, seq + 1);
  // Another commit's check at this number: not this reader's place.
  ChangePosition forged = second;
  *forged.check ^= 1;
  EXPECT_THAT(catalog_->ReadChanges(forged, 100), IsError(ErrorKind::kGone));
  // Behind the retention, a checked position gets the retention's answer.
  ASSERT_TRUE(catalog_->store().PruneCommitLog(NowMillis() + 60'000, 1000));
  auto gone = catalog_->ReadChanges(second, 100);
  ASSERT_THAT(gone, IsError(ErrorKind::kGone));
  EXPECT_NE(gone.error().message.find("retention"), std::string::npos) << gone.error().message;
}

}  // namespace
}  // namespace skade::catalog
