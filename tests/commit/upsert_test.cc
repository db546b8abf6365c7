#include <gmock/gmock.h>

#include <thread>

#include "commit/committer_test_util.h"

namespace skade::commit::testing {
namespace {

using ::testing::ElementsAre;
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

// The events schema with a required region, to key upserts by (id, region).
spec::SchemaPtr RegionKeyedSchema() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", spec::Type::Long(), true, {}, {}, {}},
             {2, "score", spec::Type::Double(), false, {}, {}, {}},
             {3, "name", spec::Type::String(), false, {}, {}, {}},
             {4, "region", spec::Type::String(), true, {}, {}, {}},
         });
}

TEST_F(UpsertTest, PartitionedUpsertsNeedThePartitionColumnInTheKey) {
  Create("t", ingest::testing::RegionSpec(), {}, RegionKeyedSchema());
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

spec::PartitionSpecPtr IdBucketSpec() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back({1, {}, 0, "id_bucket", spec::Transform::Bucket(4)});
  return spec;
}

// Upserts keyed by (id, region) into a table whose default partition spec
// changes after the first rows; read back by skade's own scan reader.
class EvolvedSpecUpsertTest : public UpsertTest {
 protected:
  void SetUp() override {
    UpsertTest::SetUp();
    Create("t", first_spec_, properties_, RegionKeyedSchema());
    MakeCommitter();
  }
  Result<CommitReceipt> UpsertKeyed(const std::vector<std::pair<int64_t, std::string>>& rows) {
    return Upsert(Events(rows), {"id", "region"});
  }
  // A new default spec, as `skade table commit` with add-spec and
  // set-default-spec makes it.
  void Evolve(spec::PartitionSpecPtr spec) {
    catalog::CommitTableRequest request{
        {{"db"}, "t"}, {}, {spec::AddPartitionSpec{std::move(spec)}, spec::SetDefaultSpec{}}};
    ASSERT_THAT(catalog_->CommitTable(request), IsOk());
  }
  // The spec ids of the equality delete files the last upsert added.
  std::vector<int32_t> DeleteSpecIds() {
    table::Table table = Load("t");
    auto current = table.metadata().CurrentSnapshot();
    auto live = table::LiveEntries(table, *current);
    EXPECT_TRUE(live);
    std::vector<int32_t> ids;
    for (const auto& entry : *live) {
      if (entry.data_file.content == spec::DataFileContent::kEqualityDeletes &&
          entry.snapshot_id == current->snapshot_id) {
        ids.push_back(entry.data_file.spec_id);
      }
    }
    return ids;
  }

  spec::PartitionSpecPtr first_spec_;
  catalog::Properties properties_;
};

// The reviewer's case: rows of an unpartitioned table, which is then
// partitioned by region. Deletes partitioned by region would not reach
// them; under the table's first spec (no fields) they reach every row.
TEST_F(EvolvedSpecUpsertTest, AnUpsertReplacesRowsWrittenBeforeThePartitioning) {
  ASSERT_THAT(UpsertKeyed({{1, "old"}, {2, "kept"}}), IsOk());
  Evolve(ingest::testing::RegionSpec());
  ASSERT_THAT(UpsertKeyed({{1, "new"}}), IsOk());
  std::vector<Row> rows = ScannedRows(*catalog_, "t");
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].name, "new");
  EXPECT_EQ(rows[1].name, "kept");
  EXPECT_THAT(DeleteSpecIds(), ElementsAre(0));
  EXPECT_THAT(Load("t").metadata().partition_specs, SizeIs(2));
}

class PartitionedFirstUpsertTest : public EvolvedSpecUpsertTest {
 protected:
  PartitionedFirstUpsertTest() { first_spec_ = ingest::testing::RegionSpec(); }
};

// From region to bucket(id): no spec of the table reaches every row, so
// the flush adds one without fields, once; the default stays bucket(id).
TEST_F(PartitionedFirstUpsertTest, AnUpsertReplacesRowsOfAnEarlierPartitionedSpec) {
  ASSERT_THAT(UpsertKeyed({{1, "old"}, {2, "old"}, {3, "kept"}}), IsOk());
  Evolve(IdBucketSpec());
  ASSERT_THAT(UpsertKeyed({{1, "new"}}), IsOk());
  table::Table table = Load("t");
  EXPECT_EQ(table.metadata().default_spec_id, 1);
  ASSERT_THAT(table.metadata().partition_specs, SizeIs(3));
  EXPECT_TRUE(table.metadata().SpecById(2)->fields.empty());
  EXPECT_THAT(DeleteSpecIds(), ElementsAre(2));
  ASSERT_THAT(UpsertKeyed({{2, "new"}}), IsOk());
  std::vector<Row> rows = ScannedRows(*catalog_, "t");
  ASSERT_THAT(rows, SizeIs(3));
  EXPECT_EQ(rows[0].name, "new");
  EXPECT_EQ(rows[1].name, "new");
  EXPECT_EQ(rows[2].name, "kept");
  EXPECT_THAT(Load("t").metadata().partition_specs, SizeIs(3));
}

// Deletes under an unpartitioned default reach the rows of every partition
// of the old spec.
TEST_F(PartitionedFirstUpsertTest, AnUnpartitionedUpsertReplacesRowsOfAPartitionedSpec) {
  ASSERT_THAT(UpsertKeyed({{1, "old"}, {2, "kept"}}), IsOk());
  Evolve(std::make_shared<const spec::PartitionSpec>());
  ASSERT_THAT(UpsertKeyed({{1, "new"}}), IsOk());
  std::vector<Row> rows = ScannedRows(*catalog_, "t");
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].name, "new");
  EXPECT_EQ(rows[1].name, "kept");
  EXPECT_THAT(Load("t").metadata().partition_specs, SizeIs(2));
}

class LargePartitionedFirstUpsertTest : public PartitionedFirstUpsertTest {
 protected:
  LargePartitionedFirstUpsertTest() { properties_ = {{kDeferredMaxBytesProperty, "1"}}; }
};

// Upserts the caller writes: the first after the evolution waits for the
// flush to add the spec its deletes need, the next writes under it.
TEST_F(LargePartitionedFirstUpsertTest, AnUpsertReplacesRowsOfAnEarlierPartitionedSpec) {
  ASSERT_THAT(UpsertKeyed({{1, "old"}, {2, "old"}}), IsOk());
  Evolve(IdBucketSpec());
  ASSERT_THAT(UpsertKeyed({{1, "new"}}), IsOk());
  ASSERT_THAT(UpsertKeyed({{2, "new"}}), IsOk());
  EXPECT_THAT(DeleteSpecIds(), ElementsAre(2));
  std::vector<Row> rows = ScannedRows(*catalog_, "t");
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].name, "new");
  EXPECT_EQ(rows[1].name, "new");
}

// Partitioned before any row: every row is under the default spec, so the
// deletes stay partitioned (a reader matches them to fewer files).
TEST_F(EvolvedSpecUpsertTest, DeletesStayPartitionedWhileEveryRowIsUnderTheDefaultSpec) {
  Evolve(ingest::testing::RegionSpec());
  ASSERT_THAT(UpsertKeyed({{1, "old"}}), IsOk());
  ASSERT_THAT(UpsertKeyed({{1, "new"}}), IsOk());
  std::vector<Row> rows = ScannedRows(*catalog_, "t");
  ASSERT_THAT(rows, SizeIs(1));
  EXPECT_EQ(rows[0].name, "new");
  EXPECT_THAT(DeleteSpecIds(), ElementsAre(1));
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
