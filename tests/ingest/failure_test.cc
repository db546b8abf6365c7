// The failure contract of ingest.h, through a FileIO that fails chosen
// writes of real local files: the committed prefix is intact and readable,
// no snapshot is partial, no snapshot references a missing file, and the
// files nobody references are cleaned up.
#include <gtest/gtest.h>

#include <stop_token>
#include <thread>

#include "ingest_test_util.h"
#include "skade/ingest/ingest.h"

namespace skade::ingest {
namespace {

using testing::HookedFileIO;
using testing::IngestTest;
using testing::IsError;
using testing::IsOk;

constexpr int kFiles = 40;
constexpr int64_t kRows = 100;

class FailureTest : public IngestTest, public ::testing::WithParamInterface<bool> {
 protected:
  bool overlap() const { return GetParam(); }

  Result<IngestResult> Ingest(const table::Table& table,
                              const std::vector<RecordBatchGroup>& groups,
                              IngestOptions options = {}) {
    options.files_per_commit = 4;
    options.channel_depth = 4;
    return overlap() ? IngestPipelinedOverlap(table, groups, options)
                     : IngestPipelined(table, groups, options);
  }

  // Every snapshot is whole (4 files, its summary's counts), every file any
  // snapshot references exists, the current snapshot holds exactly the
  // first 4·k groups in order, and nothing else is left in data/.
  void ExpectCommittedPrefix(const table::Table& table,
                             const std::vector<RecordBatchGroup>& groups) {
    auto reloaded = table.Refresh();
    ASSERT_THAT(reloaded, IsOk());
    const auto& snapshots = reloaded->metadata().snapshots;
    for (const auto& snapshot : snapshots) {
      EXPECT_EQ(snapshot->summary.at("added-data-files"), "4");
      EXPECT_TRUE(*reloaded->io().Exists(snapshot->manifest_list));
      auto entries = table::LiveEntries(*reloaded, *snapshot);
      ASSERT_THAT(entries, IsOk());
      for (const auto& entry : *entries) {
        EXPECT_TRUE(*reloaded->io().Exists(entry.data_file.file_path)) << entry.data_file.file_path;
      }
    }
    size_t committed_groups = snapshots.size() * 4;
    std::vector<RecordBatchGroup> prefix(groups.begin(), groups.begin() + committed_groups);
    EXPECT_EQ(testing::CommittedRows(*reloaded), testing::RowsOf(prefix));
    std::vector<std::string> committed_names;
    for (const auto& entry : testing::CommittedInOrder(*reloaded)) {
      committed_names.push_back(testing::FileName(entry.data_file.file_path));
    }
    std::sort(committed_names.begin(), committed_names.end());
    EXPECT_EQ(DataFilesOnDisk(*reloaded), committed_names);
  }
};

TEST_P(FailureTest, WriteFailureLeavesTheCommittedPrefix) {
  auto io = std::make_shared<HookedFileIO>(testing::FailNthWrite("-00000022.parquet", 1));
  table::Table table = Create("events", nullptr, {}, nullptr, io);
  auto groups = testing::EventGroups(kFiles, kRows);
  IngestOptions options;
  options.file_prefix = "f";
  auto result = Ingest(table, groups, options);
  EXPECT_THAT(result, IsError(ErrorKind::kIo));
  ExpectCommittedPrefix(table, groups);
  auto reloaded = table.Refresh();
  if (overlap()) {
    // Files 0-21 may be committed, in whole snapshots only.
    EXPECT_LE(reloaded->metadata().snapshots.size(), 5u);
  } else {
    // The serial path writes everything before it commits.
    EXPECT_TRUE(reloaded->metadata().snapshots.empty());
  }
}

TEST_P(FailureTest, CommitFailureLeavesTheSnapshotsBeforeIt) {
  auto io = std::make_shared<HookedFileIO>(testing::FailNthWrite("/snap-", 3));
  table::Table table = Create("events", nullptr, {}, nullptr, io);
  auto groups = testing::EventGroups(kFiles, kRows);
  auto result = Ingest(table, groups);
  EXPECT_THAT(result, IsError(ErrorKind::kIo));
  ExpectCommittedPrefix(table, groups);
  // Serial: one manifest list per commit, the third commit fails. Overlap:
  // a commit may chain groups (a list each), so the failing third list ends
  // whichever commit writes it, after two snapshots or fewer.
  const size_t committed = table.Refresh()->metadata().snapshots.size();
  if (overlap()) {
    EXPECT_LE(committed, 2u);
  } else {
    EXPECT_EQ(committed, 2u);
  }
  EXPECT_NE(result.error().message.find(StrCat(committed, " snapshot", committed == 1 ? "" : "s",
                                               " committed before the failure")),
            std::string::npos)
      << result.error().message;
}

TEST_P(FailureTest, CatalogFailureLeavesTheSnapshotsBeforeIt) {
  // The catalog's own metadata write fails on the second commit (the
  // overlapped path chains at most about 2 × channel_depth groups in one,
  // so 10 groups take more than two).
  auto catalog_io = std::make_shared<HookedFileIO>();
  OpenCatalog(catalog_io);
  table::Table table = Create("events");
  catalog_io->set_hook(testing::FailNthWrite(".metadata.json", 2));
  auto groups = testing::EventGroups(kFiles, kRows);
  auto result = Ingest(table, groups);
  EXPECT_THAT(result, IsError(ErrorKind::kIo));
  catalog_io->set_hook(nullptr);
  ExpectCommittedPrefix(table, groups);
  // One catalog commit landed: one snapshot, or (overlap) the groups it
  // chained.
  const size_t committed = table.Refresh()->metadata().snapshots.size();
  if (overlap()) {
    EXPECT_GE(committed, 1u);
    EXPECT_LT(committed, 10u);
  } else {
    EXPECT_EQ(committed, 1u);
  }
}

TEST_P(FailureTest, CancellationCommitsOnlyWholeSnapshots) {
  table::Table table = Create("events");
  auto groups = testing::EventGroups(kFiles, kRows);
  std::stop_source stop;
  IngestOptions options;
  options.stop = stop.get_token();
  options.progress = [&](const IngestProgress& progress) {
    if (progress.files_written == 10) stop.request_stop();
  };
  EXPECT_THAT(Ingest(table, groups, options), IsError(ErrorKind::kCancelled));
  ExpectCommittedPrefix(table, groups);
  EXPECT_LE(table.Refresh()->metadata().snapshots.size(), 2u);
}

TEST_P(FailureTest, ConcurrentIngestsIntoOneTableBothLand) {
  table::Table table = Create("events", nullptr,
                              {{"commit.retry.num-retries", "100"},
                               {"commit.retry.min-wait-ms", "1"},
                               {"commit.retry.max-wait-ms", "10"}});
  auto first = testing::EventGroups(8, 50);
  std::vector<RecordBatchGroup> second;
  for (int g = 0; g < 8; ++g) second.push_back(testing::EventGroup(10000 + g * 50, 50));
  Status results[2];
  std::thread a([&] { results[0] = Ingest(table, first).map([](auto&&) {}); });
  std::thread b([&] { results[1] = Ingest(table, second).map([](auto&&) {}); });
  a.join();
  b.join();
  EXPECT_THAT(results[0], IsOk());
  EXPECT_THAT(results[1], IsOk());
  auto reloaded = table.Refresh();
  EXPECT_EQ(reloaded->metadata().snapshots.size(), 4u);
  auto rows = testing::CommittedRows(*reloaded);
  auto expected = testing::RowsOf(first);
  for (auto& row : testing::RowsOf(second)) expected.push_back(row);
  auto by_id = [](const testing::Row& x, const testing::Row& y) { return x.id < y.id; };
  std::sort(rows.begin(), rows.end(), by_id);
  std::sort(expected.begin(), expected.end(), by_id);
  EXPECT_EQ(rows, expected);
}

INSTANTIATE_TEST_SUITE_P(SerialAndOverlap, FailureTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Overlap" : "Serial"; });

class IngestMultiTest : public IngestTest {};

TEST_F(IngestMultiTest, CommitsEveryTableInOneTransaction) {
  table::Table first = Create("first");
  table::Table second = Create("second", testing::RegionSpec());
  auto a = testing::EventGroups(3, 100);
  auto b = testing::EventGroups(2, 60);
  auto result = IngestMulti({{first, a}, {second, b}});
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.commits, 1);
  EXPECT_EQ(result->stats.rows, 420);
  ASSERT_EQ(result->tables.size(), 2u);
  EXPECT_EQ(result->tables[0].metadata().snapshots.size(), 1u);
  EXPECT_EQ(result->tables[1].metadata().snapshots.size(), 1u);
  EXPECT_EQ(testing::CommittedRows(result->tables[0]), testing::RowsOf(a));
  auto rows = testing::CommittedRows(result->tables[1]);
  EXPECT_EQ(rows.size(), 120u);
}

TEST_F(IngestMultiTest, WriteFailureCommitsNoTable) {
  auto io = std::make_shared<HookedFileIO>(testing::FailNthWrite("/second/data/", 2));
  table::Table first = Create("first", nullptr, {}, nullptr, io);
  table::Table second = Create("second", nullptr, {}, nullptr, io);
  auto result =
      IngestMulti({{first, testing::EventGroups(3, 100)}, {second, testing::EventGroups(3, 100)}});
  EXPECT_THAT(result, IsError(ErrorKind::kIo));
  EXPECT_TRUE(first.Refresh()->metadata().snapshots.empty());
  EXPECT_TRUE(second.Refresh()->metadata().snapshots.empty());
  EXPECT_TRUE(DataFilesOnDisk(first).empty());
  EXPECT_TRUE(DataFilesOnDisk(second).empty());
}

TEST_F(IngestMultiTest, CatalogFailureOnOneTableCommitsNoTable) {
  auto catalog_io = std::make_shared<HookedFileIO>();
  OpenCatalog(catalog_io);
  table::Table first = Create("first");
  table::Table second = Create("second");
  catalog_io->set_hook(testing::FailNthWrite("/second/metadata/", 1));
  auto result =
      IngestMulti({{first, testing::EventGroups(2, 10)}, {second, testing::EventGroups(2, 10)}});
  catalog_io->set_hook(nullptr);
  EXPECT_FALSE(result);
  EXPECT_TRUE(first.Refresh()->metadata().snapshots.empty());
  EXPECT_TRUE(second.Refresh()->metadata().snapshots.empty());
  EXPECT_TRUE(DataFilesOnDisk(first).empty());
}

}  // namespace
}  // namespace skade::ingest
