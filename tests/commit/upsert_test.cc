#include <gmock/gmock.h>

#include <thread>

#include "commit/committer_test_util.h"

namespace skade::commit::testing {
namespace {

using ::testing::SizeIs;

std::vector<std::pair<int64_t, std::string>> Named(int64_t from, int64_t to,
                                                   const std::string& tag) {
  std::vector<std::pair<int64_t, std::string>> rows;
  for (int64_t id = from; id < to; ++id) rows.emplace_back(id, StrCat(tag, id));
  return rows;
}

class UpsertTest : public CommitterTest {
 protected:
  Result<CommitReceipt> Upsert(const std::shared_ptr<arrow::RecordBatch>& rows,
                               std::vector<std::string> key = {"id"}) {
    return committer_->Upsert({{"db"}, "t"}, rows, key);
  }
};

TEST_F(UpsertTest, AnUpsertReplacesOlderRowsWithItsKeys) {
  Create("t");
  MakeCommitter();
  ASSERT_THAT(Upsert(Events(Named(0, 10, "old-"))), IsOk());
  auto second = Upsert(Events(Named(5, 15, "new-")));
  ASSERT_TRUE(second) << second.error().ToString();
  table::Table table = Load("t");
  auto snapshot = table.metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->operation(), "overwrite");
  EXPECT_EQ(snapshot->summary.at("added-equality-delete-files"), "1");
  EXPECT_EQ(snapshot->summary.at("added-equality-deletes"), "10");
  std::vector<Row> rows = VisibleRows(table);
  ASSERT_THAT(rows, SizeIs(15));
  for (const Row& row : rows) {
    EXPECT_EQ(row.name, StrCat(row.id < 5 ? "old-" : "new-", row.id));
  }
}

TEST_F(UpsertTest, ConcurrentUpsertsMergeLaterKeysWinningInArrivalOrder) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t");
  MakeCommitter();
  std::thread first([&] { ASSERT_THAT(Upsert(Events(Named(0, 4, "first-"))), IsOk()); });
  gate.WaitUntilHeld();
  // Queued one after the other: each waits until the previous is queued.
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      ASSERT_THAT(Upsert(Events({{1, StrCat("v", i)}, {10 + i, StrCat("x", i)}})), IsOk());
    });
    WaitForQueued(2 + i);
  }
  gate.Release();
  first.join();
  for (auto& thread : threads) thread.join();
  table::Table table = Load("t");
  auto snapshot = table.metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->summary.at(kLogicalWritesSummary), "4");
  EXPECT_EQ(snapshot->summary.at("added-data-files"), "1");
  EXPECT_EQ(snapshot->summary.at("added-delete-files"), "1");
  EXPECT_EQ(snapshot->summary.at("added-records"), "5");  // key 1 once, 10…13
  std::vector<Row> rows = VisibleRows(table);
  ASSERT_THAT(rows, SizeIs(8));
  EXPECT_EQ(rows[1].name, "v3");
  EXPECT_EQ(rows[0].name, "first-0");
}

TEST_F(UpsertTest, AnUpsertAfterAnAppendInOneFlushStillReplacesIt) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t");
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "zero"}}))); });
  gate.WaitUntilHeld();
  std::thread append([&] {
    ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{7, "appended"}})));
  });
  WaitForQueued(2);
  std::thread upsert([&] { ASSERT_THAT(Upsert(Events({{7, "upserted"}})), IsOk()); });
  WaitForQueued(3);
  gate.Release();
  first.join();
  append.join();
  upsert.join();
  table::Table table = Load("t");
  EXPECT_THAT(table.metadata().snapshots, SizeIs(3));  // first, append, upsert
  std::vector<Row> rows = VisibleRows(table);
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[1].name, "upserted");
}

TEST_F(UpsertTest, WithinOneBatchTheLastRowOfAKeyWins) {
  Create("t");
  MakeCommitter();
  ASSERT_THAT(Upsert(Events({{1, "a"}, {2, "b"}, {1, "c"}})), IsOk());
  std::vector<Row> rows = VisibleRows(Load("t"));
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].name, "c");
}

TEST_F(UpsertTest, LargeUpsertsAreWrittenByTheCaller) {
  Create("t", nullptr, {{kDeferredMaxBytesProperty, "1"}});
  MakeCommitter();
  ASSERT_THAT(Upsert(Events(Named(0, 10, "old-"))), IsOk());
  ASSERT_THAT(Upsert(Events({{3, "x"}, {3, "y"}, {20, "z"}})), IsOk());
  std::vector<Row> rows = VisibleRows(Load("t"));
  ASSERT_THAT(rows, SizeIs(11));
  EXPECT_EQ(rows[3].name, "y");
}

TEST_F(UpsertTest, PartitionedUpsertsNeedThePartitionColumnInTheKey) {
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", spec::Type::Long(), true, {}, {}, {}},
             {2, "score", spec::Type::Double(), false, {}, {}, {}},
             {3, "name", spec::Type::String(), false, {}, {}, {}},
             {4, "region", spec::Type::String(), true, {}, {}, {}},
         });
  Create("t", ingest::testing::RegionSpec(), {}, schema);
  MakeCommitter();
  EXPECT_THAT(Upsert(Events({{1, "a"}})), IsError(ErrorKind::kInvalidArgument));
  ASSERT_THAT(Upsert(Events({{1, "a"}}), {"id", "region"}), IsOk());
  ASSERT_THAT(Upsert(Events({{1, "b"}}), {"id", "region"}), IsOk());
  // The delete file holds both key columns (VisibleRows reads only "id").
  table::Table table = Load("t");
  auto live = table::LiveEntries(table, *table.metadata().CurrentSnapshot());
  ASSERT_TRUE(live);
  int deletes = 0;
  for (const auto& entry : *live) {
    if (entry.data_file.content != spec::DataFileContent::kEqualityDeletes) continue;
    ++deletes;
    EXPECT_EQ(entry.data_file.equality_ids, (std::vector<int32_t>{1, 4}));
    EXPECT_EQ(std::get<std::string>(entry.data_file.partition.at(0).value()), "eu");
  }
  EXPECT_EQ(deletes, 2);
}

TEST_F(UpsertTest, BadKeysAreRejected) {
  Create("t");
  Create("v1", nullptr, {{"format-version", "1"}});
  MakeCommitter();
  EXPECT_THAT(Upsert(Events({{1, "a"}}), {"score"}),
              IsError(ErrorKind::kInvalidArgument));  // double
  EXPECT_THAT(Upsert(Events({{1, "a"}}), {"name"}),
              IsError(ErrorKind::kInvalidArgument));  // optional
  EXPECT_THAT(Upsert(Events({{1, "a"}}), {"nope"}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Upsert(Events({{1, "a"}}), {}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Upsert(Events({{1, "a"}}), {"id", "id"}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(committer_->Upsert({{"db"}, "v1"}, Events({{1, "a"}}), {"id"}),
              IsError(ErrorKind::kInvalidArgument));
}

// An empty batch commits nothing, but its keys are still checked.
TEST_F(UpsertTest, AnEmptyUpsertStillChecksItsKeys) {
  Create("t");
  Create("v1", nullptr, {{"format-version", "1"}});
  MakeCommitter();
  EXPECT_THAT(Upsert(Events({}), {"nope"}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(committer_->Upsert({{"db"}, "v1"}, Events({}), {"id"}),
              IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::commit::testing
