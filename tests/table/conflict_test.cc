#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "skade/avro/manifest_list_reader.h"
#include "skade/catalog/append_rebase.h"
#include "skade/table/fast_append.h"
#include "skade/table/snapshot_scan.h"
#include "table_fixture.h"

namespace skade::table {
namespace {

using testing::IsError;
using testing::IsOk;
using testing::TableTest;

// These tests drive the client side of a conflict — reload, rebase, retry —
// so the catalog's own rebase of stale appends (catalog/append_rebase.h) is
// off for their tables; tests/catalog/append_rebase_test.cc covers it on.
const catalog::Properties kClientRebase = {{catalog::kRebaseAppendsProperty, "false"}};

class ConflictTest : public TableTest {};

TEST_F(ConflictTest, LoserRebasesOntoTheWinnerReusingItsManifest) {
  Table table = Create("events", nullptr, kClientRebase);
  FastAppend winner(table);
  FastAppend loser(table);
  winner.AppendFile(File(table, "w", 1));
  loser.AppendFile(File(table, "l", 2));

  // The loser writes its manifest and a first manifest list before the
  // winner lands, as a client racing another would.
  auto staged = loser.Apply(table.metadata());
  ASSERT_THAT(staged, IsOk());
  ASSERT_THAT(io_->WriteFiles(loser.TakeFilesToWrite()), IsOk());
  const std::string first_list = (*staged)->manifest_list;
  auto first_manifests = avro::ReadManifestList(*io_->ReadFile(first_list));
  ASSERT_TRUE(first_manifests);

  ASSERT_THAT(winner.Commit(), IsOk());
  auto committed = loser.Commit();
  ASSERT_THAT(committed, IsOk());

  auto snapshot = committed->metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->snapshot_id, loser.snapshot_id());
  EXPECT_EQ(snapshot->parent_snapshot_id, winner.snapshot_id());
  EXPECT_EQ(snapshot->sequence_number, 2);
  EXPECT_EQ(snapshot->summary.at("total-records"), "3");
  EXPECT_EQ(snapshot->summary.at("total-data-files"), "2");
  // The explicit Apply was attempt 1, Commit's first try (attempt 2) lost
  // to the winner, and the rebase (attempt 3) landed; the data manifest was
  // written once and reused.
  EXPECT_TRUE(snapshot->manifest_list.find(StrCat("-3-", loser.commit_uuid())) != std::string::npos)
      << snapshot->manifest_list;
  auto list = avro::ReadManifestList(*io_->ReadFile(snapshot->manifest_list));
  ASSERT_EQ(list->manifests.size(), 2u);
  EXPECT_EQ(list->manifests[0].manifest_path, first_manifests->manifests[0].manifest_path);
  EXPECT_EQ(list->manifests[0].sequence_number, 2);

  // The lists of the lost attempts are gone; the manifest stays.
  EXPECT_FALSE(Exists(first_list));
  int lists = 0;
  for (const std::string& name : MetadataFiles(*committed)) {
    if (name.find(loser.commit_uuid()) != std::string::npos && name.starts_with("snap-")) ++lists;
  }
  EXPECT_EQ(lists, 1);

  auto files = CurrentDataFiles(*committed);
  EXPECT_EQ(Paths(*files), Paths({File(table, "l", 2), File(table, "w", 1)}));
}

TEST_F(ConflictTest, GivesUpAfterTheConfiguredRetriesAndCleansUp) {
  Table table = Create("events", nullptr,
                       {{"commit.retry.num-retries", "0"},
                        {"commit.retry.min-wait-ms", "1"},
                        {catalog::kRebaseAppendsProperty, "false"}});
  FastAppend loser(table);
  loser.AppendFile(File(table, "l", 2));
  ASSERT_THAT(FastAppend(table).AppendFile(File(table, "w", 1)).Commit(), IsOk());
  EXPECT_THAT(loser.Commit(), IsError(ErrorKind::kCommitFailed));
  for (const std::string& name : MetadataFiles(table)) {
    EXPECT_EQ(name.find(loser.commit_uuid()), std::string::npos) << name;
  }
}

TEST_F(ConflictTest, RacingAppendersAllLand) {
  constexpr int kThreads = 4;
  constexpr int kAppendsPerThread = 5;
  Table table = Create("events", nullptr,
                       {{"commit.retry.num-retries", "100"},
                        {"commit.retry.min-wait-ms", "1"},
                        {"commit.retry.max-wait-ms", "20"}});
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAppendsPerThread; ++i) {
        auto current = table.Refresh();
        if (!current) {
          results[t] = tl::unexpected(current.error());
          return;
        }
        auto committed =
            FastAppend(*current).AppendFile(File(table, StrCat("t", t, "-", i), 1 + t)).Commit();
        if (!committed) {
          results[t] = tl::unexpected(committed.error());
          return;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const Status& result : results) EXPECT_THAT(result, IsOk());

  auto final_table = table.Refresh();
  ASSERT_THAT(final_table, IsOk());
  const spec::TableMetadata& m = final_table->metadata();
  EXPECT_EQ(m.snapshots.size(), static_cast<size_t>(kThreads * kAppendsPerThread));
  EXPECT_EQ(m.last_sequence_number, kThreads * kAppendsPerThread);
  auto files = CurrentDataFiles(*final_table);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(files->size(), static_cast<size_t>(kThreads * kAppendsPerThread));
  EXPECT_EQ(m.CurrentSnapshot()->summary.at("total-data-files"),
            StrCat(kThreads * kAppendsPerThread));
  EXPECT_EQ(m.CurrentSnapshot()->summary.at("total-records"),
            StrCat(kAppendsPerThread * (1 + 2 + 3 + 4)));
  // History is linear: every snapshot's parent is the one before it.
  for (size_t i = 1; i < m.snapshots.size(); ++i) {
    EXPECT_EQ(m.snapshots[i]->parent_snapshot_id, m.snapshots[i - 1]->snapshot_id);
  }
}

}  // namespace
}  // namespace skade::table
