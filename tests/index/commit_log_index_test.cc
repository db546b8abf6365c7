// CommitLogIndex over a real LMDB store: the index and the live tail give
// the same answers, under concurrent commits and rebuilds; files are reused
// across opens only when they match the store.
#include "skade/index/commit_log_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include "skade/index/snapshot_index_file.h"
#include "skade/util/strings.h"
#include "testing/gate.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::index {
namespace {

using testing::IsOk;

class CommitLogIndexTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenStore(dir_.Sub("store")); }

  void OpenStore(const std::string& path) {
    index_.reset();
    store::CatalogStoreOptions options;
    options.map_size = 1ull << 30;
    auto opened = store::CatalogStore::Open(path, options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
    if (!*store_->GetNamespace({"n"})) {
      ASSERT_THAT(store_->CreateNamespace({"n"}, {}), IsOk());
    }
  }

  std::unique_ptr<CommitLogIndex> OpenIndex(CommitLogIndexOptions options) {
    auto opened = CommitLogIndex::Open(store_.get(), io::NewLocalFileIO(), options);
    EXPECT_TRUE(opened) << opened.error().ToString();
    return opened ? std::move(*opened) : nullptr;
  }

  // Background options whose only trigger is the one not kNever, checked often.
  static constexpr int64_t kNever = 1000000000;
  static CommitLogIndexOptions Triggers(int64_t commits, int64_t tail_hits, int64_t interval_ms) {
    CommitLogIndexOptions options;
    options.rebuild_after_commits = commits;
    options.rebuild_after_tail_hits = tail_hits;
    options.rebuild_interval_ms = interval_ms;
    options.poll_interval_ms = 5;
    return options;
  }

  static CommitLogIndexOptions Manual() {
    CommitLogIndexOptions options;
    options.background = false;
    return options;
  }

  // Commits one snapshot to table `t<table>`; returns (table id, snapshot id)
  // and the location.
  std::pair<SnapshotIndexKey, std::string> Commit(int table, int64_t snapshot_id) {
    spec::TableIdentifier id{{"n"}, StrCat("t", table)};
    std::lock_guard lock(commit_mutex_);
    auto current = store_->GetTable(id);
    EXPECT_TRUE(current);
    std::string next = StrCat("file:///w/t", table, "/", ++commits_, ".metadata.json");
    std::optional<std::string> expected;
    if (*current) expected = (*current)->metadata_location;
    auto swapped = store_->SwapPointers({{id, expected, next, {snapshot_id}}});
    EXPECT_TRUE(swapped) << swapped.error().ToString();
    return {{(*swapped)[0].table_id, snapshot_id}, next};
  }

  testing::TempDir dir_;
  std::unique_ptr<store::CatalogStore> store_;
  std::unique_ptr<CommitLogIndex> index_;
  std::mutex commit_mutex_;
  int commits_ = 0;
};

TEST_F(CommitLogIndexTest, TheIndexAndTheTailAgree) {
  auto index = OpenIndex(Manual());
  std::vector<std::pair<SnapshotIndexKey, std::string>> committed;
  for (int i = 0; i < 50; ++i) committed.push_back(Commit(i % 3, 1000 + i % 20));
  // Not rebuilt: every answer comes from the tail.
  for (const auto& [key, location] : committed) {
    auto found = index->Find(key.first, key.second);
    ASSERT_TRUE(found && *found);
  }
  auto tail_answers = index->stats().tail_hits;
  EXPECT_EQ(tail_answers, committed.size());
  ASSERT_THAT(index->Rebuild(), IsOk());
  EXPECT_EQ(index->stats().covered_seq, *store_->CommitSeq());
  std::vector<SnapshotIndexKey> keys;
  for (const auto& [key, location] : committed) {
    auto from_index = index->Find(key.first, key.second);
    auto from_store = store_->FindSnapshot(key.first, key.second);
    ASSERT_TRUE(from_index && from_store);
    EXPECT_EQ(*from_index, *from_store);
    keys.push_back(key);
    keys.push_back({key.first, key.second + 100000});  // absent
  }
  EXPECT_EQ(index->stats().index_hits, committed.size());
  auto many = index->FindMany(keys);
  ASSERT_TRUE(many);
  auto stored = store_->FindSnapshots(keys);
  ASSERT_TRUE(stored);
  EXPECT_EQ(*many, *stored);
}

TEST_F(CommitLogIndexTest, SameAnswersUnderConcurrentCommitsAndRebuilds) {
  auto index = OpenIndex(Manual());
  std::mutex known_mutex;
  std::vector<std::pair<SnapshotIndexKey, std::string>> known;  // acknowledged commits
  std::atomic<bool> done{false};
  std::atomic<int> mismatches{0};
  std::atomic<int> lookups{0};

  std::thread writer([&] {
    for (int i = 0; i < 600; ++i) {
      auto committed = Commit(i % 5, 5000 + i);
      std::lock_guard lock(known_mutex);
      known.push_back(committed);
    }
    done = true;
  });
  std::thread compactor([&] {
    while (!done) EXPECT_THAT(index->Rebuild(), IsOk());
  });
  std::thread reader([&] {
    std::mt19937 random(5);
    while (!done || lookups < 2000) {
      std::vector<std::pair<SnapshotIndexKey, std::string>> sample;
      {
        std::lock_guard lock(known_mutex);
        for (int i = 0; i < 16 && !known.empty(); ++i)
          sample.push_back(known[random() % known.size()]);
      }
      std::vector<SnapshotIndexKey> keys;
      for (const auto& [key, location] : sample) {
        auto found = index->Find(key.first, key.second);
        if (!found || !*found || **found != location) ++mismatches;
        keys.push_back(key);
        keys.push_back({key.first + 1000, key.second});  // no such table
      }
      auto many = index->FindMany(keys);
      if (!many) {
        ++mismatches;
        continue;
      }
      for (size_t i = 0; i < sample.size(); ++i) {
        if ((*many)[2 * i] != sample[i].second || (*many)[2 * i + 1]) ++mismatches;
      }
      lookups += static_cast<int>(sample.size());
    }
  });
  writer.join();
  compactor.join();
  reader.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_GT(index->stats().builds, 1u);
  ASSERT_THAT(index->Rebuild(), IsOk());
  for (const auto& [key, location] : known)
    EXPECT_EQ(*index->Find(key.first, key.second), location);
}

TEST_F(CommitLogIndexTest, AReopenMapsTheFileInsteadOfRebuilding) {
  for (int i = 0; i < 40; ++i) Commit(i % 2, 70 + i);
  auto first = OpenIndex(Manual());
  EXPECT_EQ(first->stats().builds, 0u);  // a manual index builds when told
  ASSERT_THAT(first->Rebuild(), IsOk());
  EXPECT_EQ(first->stats().builds, 1u);
  EXPECT_TRUE(first->stats().mapped);
  first.reset();

  auto reopened = OpenIndex(Manual());
  ASSERT_THAT(reopened->Rebuild(), IsOk());
  auto stats = reopened->stats();
  EXPECT_EQ(stats.builds, 0u);  // nothing new to fold in
  EXPECT_TRUE(stats.mapped);
  EXPECT_EQ(stats.covered_seq, *store_->CommitSeq());
  uint64_t table_id = (*store_->GetTable({{"n"}, "t1"}))->table_id;
  auto found = reopened->Find(table_id, 71);
  ASSERT_TRUE(found && *found);
  EXPECT_EQ(reopened->stats().index_hits, 1u);

  // New commits: the next build writes a newer file and removes the old one.
  Commit(0, 999);
  ASSERT_THAT(reopened->Rebuild(), IsOk());
  auto files = ListSnapshotIndexFiles(*io::NewLocalFileIO(), store_->DerivedFileDirectory());
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].first, *store_->CommitSeq());
}

TEST_F(CommitLogIndexTest, FilesThatDoNotMatchTheStoreAreNotUsed) {
  for (int i = 0; i < 10; ++i) Commit(0, 10 + i);
  ASSERT_THAT(OpenIndex(Manual())->Rebuild(), IsOk());
  auto files = *ListSnapshotIndexFiles(*io::NewLocalFileIO(), store_->DerivedFileDirectory());
  ASSERT_EQ(files.size(), 1u);
  std::string index_file = *io::LocalPath(files[0].second);

  // Another store with as many commits but other ones gets the file.
  std::string other = dir_.Sub("other");
  OpenStore(other);
  for (int i = 0; i < 10; ++i) Commit(0, 500 + i);
  std::filesystem::copy_file(index_file,
                             *io::LocalPath(SnapshotIndexFileLocation(other, files[0].first)),
                             std::filesystem::copy_options::overwrite_existing);
  auto index = OpenIndex(Manual());
  EXPECT_EQ(index->stats().keys, 0u);  // not mapped from the copy
  ASSERT_THAT(index->Rebuild(), IsOk());
  EXPECT_EQ(index->stats().builds, 1u);
  uint64_t table_id = (*store_->GetTable({{"n"}, "t0"}))->table_id;
  EXPECT_FALSE(*index->Find(table_id, 10));
  EXPECT_TRUE(*index->Find(table_id, 500));
}

TEST_F(CommitLogIndexTest, ATornFileIsRebuilt) {
  for (int i = 0; i < 10; ++i) Commit(0, 10 + i);
  ASSERT_THAT(OpenIndex(Manual())->Rebuild(), IsOk());
  auto files = *ListSnapshotIndexFiles(*io::NewLocalFileIO(), store_->DerivedFileDirectory());
  ASSERT_EQ(files.size(), 1u);
  std::filesystem::resize_file(*io::LocalPath(files[0].second), 100);
  auto index = OpenIndex(Manual());
  EXPECT_FALSE(index->stats().mapped);
  ASSERT_THAT(index->Rebuild(), IsOk());
  EXPECT_TRUE(index->stats().mapped);
  uint64_t table_id = (*store_->GetTable({{"n"}, "t0"}))->table_id;
  EXPECT_TRUE(*index->Find(table_id, 15));
  EXPECT_EQ(index->stats().index_hits, 1u);
}

TEST_F(CommitLogIndexTest, TheCompactorRebuildsOnItsTriggers) {
  // Commits since the last build.
  {
    auto index = OpenIndex(Triggers(5, kNever, kNever));
    testing::WaitUntil([&] { return index->stats().builds >= 1; });  // the first build
    for (int i = 0; i < 5; ++i) Commit(0, 100 + i);
    uint64_t seq = *store_->CommitSeq();
    testing::WaitUntil([&] { return index->stats().covered_seq == seq; });
  }
  // Tail hits since the last build.
  {
    auto index = OpenIndex(Triggers(kNever, 3, kNever));  // maps the first block's file
    auto [key, location] = Commit(1, 777);
    uint64_t seq = *store_->CommitSeq();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(*index->Find(key.first, key.second), location);
    testing::WaitUntil([&] { return index->stats().covered_seq == seq; });
  }
  // The time ceiling.
  {
    auto index = OpenIndex(Triggers(kNever, kNever, 20));
    Commit(2, 888);
    uint64_t seq = *store_->CommitSeq();
    testing::WaitUntil([&] { return index->stats().covered_seq == seq; });
  }
}

}  // namespace
}  // namespace skade::index
