#include "skade/commit/coalescing_committer.h"

#include <gmock/gmock.h>

#include <atomic>
#include <thread>

#include "commit/committer_test_util.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/ingest/ingest.h"
#include "skade/spec/table_properties.h"
#include "skade/table/snapshot_scan.h"
#include "testing/gate.h"

namespace skade::commit::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

std::string Name(int64_t id) { return StrCat("name-", id); }

// Runs `writes` appends of one row each (ids first, first + 1, …) to `table`
// from one thread each; returns their receipts in id order.
std::vector<Result<CommitReceipt>> AppendConcurrently(CoalescingCommitter& committer,
                                                      const std::string& table, int64_t first,
                                                      int writes) {
  std::vector<Result<CommitReceipt>> receipts(writes, CommitReceipt{});
  std::vector<std::thread> threads;
  for (int i = 0; i < writes; ++i) {
    threads.emplace_back([&, i] {
      int64_t id = first + i;
      receipts[i] = committer.Append({{"db"}, table}, Events({{id, Name(id)}}));
    });
  }
  for (auto& thread : threads) thread.join();
  return receipts;
}

// Appends id 0 to `table` and holds its flush in the data-file write (`gate`)
// until `more` writes (ids 1, 2, …, one thread each) queue behind it, then
// lets all through: the first flush commits id 0, the next the rest.
// Returns the queued writes' receipts in id order.
std::vector<Result<CommitReceipt>> AppendBehindAHeldFlush(CoalescingCommitter& committer,
                                                          Gate& gate, const std::string& table,
                                                          int more) {
  std::thread first([&] { ASSERT_TRUE(committer.Append({{"db"}, table}, Events({{0, "zero"}}))); });
  gate.WaitUntilHeld();
  std::vector<Result<CommitReceipt>> receipts;
  std::thread rest([&] { receipts = AppendConcurrently(committer, table, 1, more); });
  while (committer.stats().queued_writes < more + 1) std::this_thread::yield();
  gate.Release();
  first.join();
  rest.join();
  return receipts;
}

TEST_F(CommitterTest, AnIdleWriteCommitsAtOnceWithItsReceipt) {
  Create("t");
  MakeCommitter();
  auto receipt = committer_->Append({{"db"}, "t"}, Events({{1, "a"}, {2, "b"}}));
  ASSERT_TRUE(receipt) << receipt.error().ToString();
  table::Table table = Load("t");
  auto current = table.metadata().CurrentSnapshot();
  ASSERT_TRUE(current);
  EXPECT_EQ(receipt->snapshot_id, current->snapshot_id);
  EXPECT_EQ(receipt->sequence_number, current->sequence_number);
  EXPECT_EQ(receipt->metadata_location, table.metadata_location());
  EXPECT_EQ(receipt->writes_in_snapshot, 1);
  EXPECT_EQ(current->summary.at(kLogicalWritesSummary), "1");
  EXPECT_EQ(current->summary.at("added-records"), "2");
  EXPECT_THAT(VisibleRows(table), SizeIs(2));
  EXPECT_EQ(committer_->stats().physical_commits, 1);
  EXPECT_EQ(committer_->stats().logical_writes, 1);
}

// The first flush is held in its data-file write while 24 more writes queue:
// they all go into the second flush, one snapshot and one data file.
TEST_F(CommitterTest, WritesThatArriveDuringAFlushShareTheNextOne) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t");
  MakeCommitter();
  std::vector<Result<CommitReceipt>> receipts = AppendBehindAHeldFlush(*committer_, gate, "t", 24);

  for (const auto& receipt : receipts) {
    ASSERT_TRUE(receipt) << receipt.error().ToString();
    EXPECT_EQ(receipt->snapshot_id, receipts.front()->snapshot_id);
    EXPECT_EQ(receipt->writes_in_snapshot, 24);
    EXPECT_EQ(receipt->writes_in_commit, 24);
  }
  EXPECT_EQ(committer_->stats().physical_commits, 2);
  EXPECT_EQ(committer_->stats().logical_writes, 25);
  table::Table table = Load("t");
  EXPECT_THAT(table.metadata().snapshots, SizeIs(2));
  EXPECT_EQ(table.metadata().CurrentSnapshot()->summary.at(kLogicalWritesSummary), "24");
  EXPECT_EQ(table.metadata().CurrentSnapshot()->summary.at("added-data-files"), "1");
  std::vector<Row> rows = VisibleRows(table);
  ASSERT_THAT(rows, SizeIs(25));
  EXPECT_EQ(rows[0].name, "zero");
  for (int64_t id = 1; id < 25; ++id) EXPECT_EQ(rows[id].name, Name(id));
}

// Writers that loop come back together after a flush: the first one back
// waits for the others instead of committing alone. Flush 0 (id 0) is held
// until writers A and B queue; their flush 1 is slow (400 ms), so the window
// after it (a quarter of it) leaves B, which writes again only once A's next
// write is queued, ample time. Without the wait A would commit alone.
TEST_F(CommitterTest, WritersThatComeBackAfterAFlushShareTheirNextCommit) {
  Gate gate(".parquet");
  std::atomic<int> data_files{0};
  OpenWithIO(
      std::make_shared<HookedFileIO>([&, held = gate.Hook()](std::string_view location) -> Status {
        SKADE_RETURN_NOT_OK(held(location));
        if (location.find(".parquet") != std::string_view::npos && ++data_files == 2) {
          std::this_thread::sleep_for(std::chrono::milliseconds(400));
        }
        return OkStatus();
      }));
  Create("t");
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "zero"}}))); });
  gate.WaitUntilHeld();
  Result<CommitReceipt> again_a = CommitReceipt{}, again_b = CommitReceipt{};
  std::thread a([&] {
    ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{1, Name(1)}})));
    again_a = committer_->Append({{"db"}, "t"}, Events({{3, Name(3)}}));
  });
  std::thread b([&] {
    ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{2, Name(2)}})));
    // Or A already committed alone (the test then fails, never hangs).
    skade::testing::WaitUntil([&] {
      auto stats = committer_->stats();
      return stats.queued_writes >= 1 || stats.physical_commits >= 3;
    });
    again_b = committer_->Append({{"db"}, "t"}, Events({{4, Name(4)}}));
  });
  while (committer_->stats().queued_writes < 3) std::this_thread::yield();
  gate.Release();
  first.join();
  a.join();
  b.join();

  ASSERT_TRUE(again_a) << again_a.error().ToString();
  ASSERT_TRUE(again_b) << again_b.error().ToString();
  EXPECT_EQ(again_a->writes_in_commit, 2);
  EXPECT_EQ(again_a->snapshot_id, again_b->snapshot_id);
  EXPECT_EQ(committer_->stats().physical_commits, 3);
  EXPECT_THAT(VisibleRows(Load("t")), SizeIs(5));
}

TEST_F(CommitterTest, PerTransactionHistoryChainsOneSnapshotPerWriteInOneMetadataCommit) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t", nullptr, {{kHistoryModeProperty, "per-transaction"}});
  MakeCommitter();
  std::vector<Result<CommitReceipt>> receipts = AppendBehindAHeldFlush(*committer_, gate, "t", 10);

  std::set<int64_t> snapshot_ids;
  for (const auto& receipt : receipts) {
    ASSERT_TRUE(receipt) << receipt.error().ToString();
    EXPECT_EQ(receipt->writes_in_snapshot, 1);
    EXPECT_EQ(receipt->metadata_location, receipts.front()->metadata_location);
    snapshot_ids.insert(receipt->snapshot_id);
  }
  EXPECT_THAT(snapshot_ids, SizeIs(10));
  EXPECT_EQ(committer_->stats().physical_commits, 2);
  table::Table table = Load("t");
  ASSERT_THAT(table.metadata().snapshots, SizeIs(11));
  // One chain: each snapshot's parent is the one before, sequence numbers 1…11.
  for (size_t i = 1; i < table.metadata().snapshots.size(); ++i) {
    const auto& snapshot = table.metadata().snapshots[i];
    EXPECT_EQ(snapshot->parent_snapshot_id, table.metadata().snapshots[i - 1]->snapshot_id);
    EXPECT_EQ(snapshot->sequence_number, static_cast<int64_t>(i + 1));
    EXPECT_EQ(snapshot->summary.at("added-data-files"), "1");
  }
  // Two metadata commits after the create: the first flush and the second.
  EXPECT_THAT(table.metadata().metadata_log, SizeIs(2));
  EXPECT_THAT(VisibleRows(table), SizeIs(11));
}

// Merging reads the manifests it merges: in a chain of snapshots in one
// metadata commit, those of the earlier snapshots are written first.
TEST_F(CommitterTest, PerTransactionChainsMergeManifestsAsTheyGrow) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t", nullptr,
         {{kHistoryModeProperty, "per-transaction"}, {spec::kManifestMinCountToMerge, "3"}});
  MakeCommitter();
  std::vector<Result<CommitReceipt>> receipts = AppendBehindAHeldFlush(*committer_, gate, "t", 10);
  for (const auto& receipt : receipts) ASSERT_TRUE(receipt) << receipt.error().ToString();

  table::Table table = Load("t");
  ASSERT_THAT(table.metadata().snapshots, SizeIs(11));
  auto bytes = table.io().ReadFile(table.metadata().CurrentSnapshot()->manifest_list);
  ASSERT_TRUE(bytes) << bytes.error().ToString();
  auto list = avro::ReadManifestList(*bytes);
  ASSERT_TRUE(list) << list.error().ToString();
  EXPECT_LE(list->manifests.size(), 3u);
  // Every snapshot of the chain reads its own rows.
  for (const auto& snapshot : table.metadata().snapshots) {
    auto entries = table::LiveEntries(table, *snapshot);
    ASSERT_TRUE(entries) << entries.error().ToString();
    EXPECT_EQ(static_cast<int64_t>(entries->size()), snapshot->sequence_number);
  }
  EXPECT_THAT(VisibleRows(table), SizeIs(11));
}

TEST_F(CommitterTest, DeferredRowsBecomeOneFilePerPartition) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t", ingest::testing::RegionSpec());
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "x"}}))); });
  gate.WaitUntilHeld();
  std::vector<std::thread> threads;
  const char* regions[] = {"eu", "us", "ap"};
  for (int i = 1; i <= 12; ++i) {
    threads.emplace_back([&, i] {
      ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{i, Name(i)}}, regions[i % 3])));
    });
  }
  WaitForQueued(13);
  gate.Release();
  first.join();
  for (auto& thread : threads) thread.join();
  table::Table table = Load("t");
  auto snapshot = table.metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->summary.at("added-data-files"), "3");
  EXPECT_EQ(snapshot->summary.at(kLogicalWritesSummary), "12");
  auto per_region = ingest::testing::RowsPerRegion(table);
  EXPECT_EQ(per_region["eu"], 1 + 4);
  EXPECT_EQ(per_region["us"], 4);
  EXPECT_EQ(per_region["ap"], 4);
}

TEST_F(CommitterTest, OneFlushIsOnePhysicalCommitAcrossTables) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  for (const char* name : {"a", "b", "c", "d"}) Create(name);
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "d"}, Events({{0, "x"}}))); });
  gate.WaitUntilHeld();
  auto seq_before = catalog_->store().CommitSeq();
  ASSERT_TRUE(seq_before);
  std::vector<std::thread> threads;
  std::vector<std::string> tables = {"a", "b", "c"};
  for (int i = 0; i < 9; ++i) {
    threads.emplace_back([&, i] {
      ASSERT_TRUE(committer_->Append({{"db"}, tables[i % 3]}, Events({{i, Name(i)}})));
    });
  }
  WaitForQueued(10);
  gate.Release();
  first.join();
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(committer_->stats().physical_commits, 2);
  // The second flush: three tables, one metadata file each, committed in
  // one store transaction (commit-log entries in a row, nothing between).
  auto log = catalog_->store().ReadCommitLog(*seq_before, 100);
  ASSERT_TRUE(log);
  ASSERT_THAT(*log, SizeIs(4));  // the first flush's, then a, b, c
  for (const std::string& name : tables) {
    table::Table table = Load(name);
    EXPECT_THAT(table.metadata().snapshots, SizeIs(1));
    EXPECT_THAT(table.metadata().metadata_log, SizeIs(1));
    EXPECT_THAT(VisibleRows(table), SizeIs(3));
  }
}

TEST_F(CommitterTest, LargeBatchesAreWrittenByTheCallerAndStillCoalesce) {
  Create("t", nullptr, {{kDeferredMaxBytesProperty, "1"}});
  MakeCommitter();
  auto receipts = AppendConcurrently(*committer_, "t", 0, 8);
  for (const auto& receipt : receipts) ASSERT_TRUE(receipt) << receipt.error().ToString();
  table::Table table = Load("t");
  EXPECT_THAT(VisibleRows(table), SizeIs(8));
  auto files = table::CurrentDataFiles(table);
  ASSERT_TRUE(files);
  EXPECT_THAT(*files, SizeIs(8));  // one per write: nothing was deferred
}

// Regression: the stats counted only the files a flush wrote itself, not
// those of large batches, written before it (`skade ingest` printed
// "0 data files" for two appends of 100k rows).
TEST_F(CommitterTest, StatsCountEveryFileCommitted) {
  Create("t", nullptr, {{kDeferredMaxBytesProperty, "1"}});
  MakeCommitter();
  for (const auto& receipt : AppendConcurrently(*committer_, "t", 0, 8)) {
    ASSERT_TRUE(receipt) << receipt.error().ToString();
  }
  ASSERT_TRUE(committer_->Upsert({{"db"}, "t"}, Events({{0, "y"}}), {"id"}));
  EXPECT_EQ(committer_->stats().data_files, 8 + 2);  // the upsert: rows and deletes
}

TEST_F(CommitterTest, ABadWriteFailsAloneAndTheOthersCommit) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t");
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "x"}}))); });
  gate.WaitUntilHeld();
  // A requirement that will not hold when the flush runs: the table's main
  // is not at snapshot 12345.
  WriteOptions stale;
  stale.requirements.push_back(spec::TableRequirement(spec::AssertRefSnapshotId{"main", 12345}));
  Result<CommitReceipt> failed = CommitReceipt{};
  std::thread bad([&] {
    failed = committer_->Append({{"db"}, "t"}, Events({{99, "bad"}}), stale);
  });
  WaitForQueued(2);
  std::vector<Result<CommitReceipt>> good;
  std::thread rest([&] { good = AppendConcurrently(*committer_, "t", 1, 5); });
  WaitForQueued(7);
  // Bad before the queue: an unknown table.
  EXPECT_THAT(committer_->Append({{"db"}, "missing"}, Events({{1, "x"}})),
              IsError(ErrorKind::kNoSuchTable));
  gate.Release();
  first.join();
  bad.join();
  rest.join();
  EXPECT_THAT(failed, IsError(ErrorKind::kCommitFailed));
  for (const auto& receipt : good) ASSERT_TRUE(receipt) << receipt.error().ToString();
  std::vector<Row> rows = VisibleRows(Load("t"));
  EXPECT_THAT(rows, SizeIs(6));
  for (const Row& row : rows) EXPECT_NE(row.id, 99);
}

// A write's own requirement that held when its flush began but not when the
// commit lands (the table changed between) fails that write alone: the
// requirement goes into the commit, and the flush is staged again without
// it. (Checked only at the flush's start, the write committed anyway.)
TEST_F(CommitterTest, AWriteWhoseRequirementStopsHoldingBeforeItsCommitFailsAlone) {
  // The first flush's data file holds the first flush; the second flush's
  // holds it after its writes were checked.
  Gate first_flush(".parquet");
  Gate second_flush(".parquet");
  std::atomic<int> data_files{0};
  auto hold_first = first_flush.Hook();
  auto hold_second = second_flush.Hook();
  OpenWithIO(std::make_shared<HookedFileIO>([&](std::string_view location) -> Status {
    if (location.find(".parquet") == std::string_view::npos) return OkStatus();
    return ++data_files == 1 ? hold_first(location) : hold_second(location);
  }));
  Create("t");
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "x"}}))); });
  first_flush.WaitUntilHeld();
  WriteOptions schema_zero;
  schema_zero.requirements.push_back(spec::TableRequirement(spec::AssertCurrentSchemaId{0}));
  Result<CommitReceipt> bound = CommitReceipt{};
  std::thread bad([&] {
    bound = committer_->Append({{"db"}, "t"}, Events({{99, "bound"}}), schema_zero);
  });
  WaitForQueued(2);
  std::vector<Result<CommitReceipt>> good;
  std::thread rest([&] { good = AppendConcurrently(*committer_, "t", 1, 3); });
  WaitForQueued(5);
  first_flush.Release();
  second_flush.WaitUntilHeld();
  // The second flush has checked its writes; now the schema changes.
  table::Table base = Load("t");
  auto fields = ingest::testing::EventSchema()->fields();
  fields.push_back({5, "note", spec::Type::String(), false, {}, {}, {}});
  catalog::CommitTableRequest evolve{base.identifier(), {}, {}};
  evolve.updates.push_back(spec::AddSchema{std::make_shared<const spec::Schema>(1, fields), 5});
  evolve.updates.push_back(spec::SetCurrentSchema{-1});
  ASSERT_TRUE(catalog_->CommitTable(evolve));
  second_flush.Release();
  first.join();
  bad.join();
  rest.join();
  EXPECT_THAT(bound, IsError(ErrorKind::kCommitFailed));
  for (const auto& receipt : good) ASSERT_TRUE(receipt) << receipt.error().ToString();
  std::vector<Row> rows = VisibleRows(Load("t"));
  EXPECT_THAT(rows, SizeIs(4));
  for (const Row& row : rows) EXPECT_NE(row.id, 99);
  // The abandoned staging's data file is gone: one file per committed flush.
  EXPECT_THAT(DataFilesOnDisk(Load("t")), SizeIs(2));
}

// A write whose files do not fit the table (here: of a partition spec it
// does not have) fails alone, and the other writes of its flush — to its
// table and to another — commit. (When the files were first checked as the
// commit staged them, every write of the flush failed.)
TEST_F(CommitterTest, FilesThatDoNotFitTheTableFailAloneAndTheOthersCommit) {
  std::vector<spec::DataFile> stray;
  {
    table::Table table = Create("t");
    auto written = ingest::Append(table, EventGroup(0, 10), {});
    ASSERT_TRUE(written) << written.error().ToString();
    auto files = table::CurrentDataFiles(written->table);
    ASSERT_TRUE(files);
    stray = *files;
    for (auto& file : stray) file.spec_id = 99;
  }
  Create("u");
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  MakeCommitter();
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "u"}, Events({{0, "x"}}))); });
  gate.WaitUntilHeld();
  Result<CommitReceipt> refused = CommitReceipt{};
  std::thread bad([&] { refused = committer_->AppendFiles({{"db"}, "t"}, stray); });
  WaitForQueued(2);
  std::vector<Result<CommitReceipt>> good_t;
  std::vector<Result<CommitReceipt>> good_u;
  std::thread rest_t([&] { good_t = AppendConcurrently(*committer_, "t", 100, 3); });
  std::thread rest_u([&] { good_u = AppendConcurrently(*committer_, "u", 200, 3); });
  WaitForQueued(8);
  gate.Release();
  first.join();
  bad.join();
  rest_t.join();
  rest_u.join();
  EXPECT_THAT(refused, IsError(ErrorKind::kInvalidArgument));
  for (const auto& receipt : good_t) ASSERT_TRUE(receipt) << receipt.error().ToString();
  for (const auto& receipt : good_u) ASSERT_TRUE(receipt) << receipt.error().ToString();
  EXPECT_THAT(VisibleRows(Load("t")), SizeIs(10 + 3));
  EXPECT_THAT(VisibleRows(Load("u")), SizeIs(1 + 3));
}

// A large batch is written by its caller before it queues: refused at the
// flush (a requirement that no longer holds), its file goes too.
TEST_F(CommitterTest, ARefusedLargeWriteLeavesNoFileBehind) {
  table::Table table = Create("t", nullptr, {{kDeferredMaxBytesProperty, "1"}});
  MakeCommitter();
  WriteOptions stale;
  stale.requirements.push_back(spec::TableRequirement(spec::AssertRefSnapshotId{"main", 12345}));
  EXPECT_THAT(committer_->Append({{"db"}, "t"}, Events({{1, "x"}}), stale),
              IsError(ErrorKind::kCommitFailed));
  ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{2, "y"}})));
  auto files = table::CurrentDataFiles(Load("t"));
  ASSERT_TRUE(files);
  ASSERT_THAT(*files, SizeIs(1));
  EXPECT_THAT(DataFilesOnDisk(table), SizeIs(1));
}

// An empty batch commits nothing, with requirements too: they are checked,
// then it is answered with the table as it is (it made an empty snapshot).
TEST_F(CommitterTest, AnEmptyBatchWithRequirementsCommitsNothing) {
  Create("t");
  MakeCommitter();
  auto first = committer_->Append({{"db"}, "t"}, Events({{1, "x"}}));
  ASSERT_TRUE(first) << first.error().ToString();
  WriteOptions holds;
  holds.requirements.push_back(
      spec::TableRequirement(spec::AssertRefSnapshotId{"main", first->snapshot_id}));
  auto empty = committer_->Append({{"db"}, "t"}, Events({}), holds);
  ASSERT_TRUE(empty) << empty.error().ToString();
  EXPECT_EQ(empty->snapshot_id, first->snapshot_id);
  EXPECT_EQ(empty->metadata_location, first->metadata_location);
  EXPECT_THAT(Load("t").metadata().snapshots, SizeIs(1));
  WriteOptions stale;
  stale.requirements.push_back(spec::TableRequirement(spec::AssertRefSnapshotId{"main", 12345}));
  EXPECT_THAT(committer_->Append({{"db"}, "t"}, Events({}), stale),
              IsError(ErrorKind::kCommitFailed));
}

TEST_F(CommitterTest, RowsThatDoNotConformFailBeforeTheQueue) {
  Create("t");
  MakeCommitter();
  arrow::Int64Builder builder;
  ASSERT_TRUE(builder.AppendValues({1, 2}).ok());
  std::shared_ptr<arrow::Array> ids = builder.Finish().ValueOrDie();
  auto extra = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64(), false),
                                                       arrow::field("nope", arrow::int64())}),
                                        2, std::vector<std::shared_ptr<arrow::Array>>{ids, ids});
  EXPECT_THAT(committer_->Append({{"db"}, "t"}, extra), IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(committer_->stats().failed_writes, 1);
  EXPECT_EQ(committer_->stats().physical_commits, 0);
}

TEST_F(CommitterTest, AFailedFlushFailsEveryWriteInItAndLeavesNothing) {
  auto hook = std::make_shared<HookedFileIO>();
  OpenWithIO(hook);
  Create("t");
  MakeCommitter();
  ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "x"}})));
  std::vector<std::string> files_before = DataFilesOnDisk(Load("t"));
  Gate gate(".parquet");
  auto gate_hook = gate.Hook();
  auto fail = ingest::testing::FailNthWrite(".metadata.json", 2);
  hook->set_hook([&](std::string_view location) -> Status {
    SKADE_RETURN_NOT_OK(gate_hook(location));
    return fail(location);
  });
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{1, "y"}}))); });
  gate.WaitUntilHeld();
  std::vector<Result<CommitReceipt>> receipts;
  std::thread rest([&] { receipts = AppendConcurrently(*committer_, "t", 10, 6); });
  WaitForQueued(7);
  gate.Release();
  first.join();
  rest.join();
  for (const auto& receipt : receipts) {
    ASSERT_FALSE(receipt);
    EXPECT_EQ(receipt.error().message, receipts.front().error().message);
  }
  table::Table table = Load("t");
  EXPECT_THAT(VisibleRows(table), SizeIs(2));
  // The failed flush's data file is gone: only the two committed remain.
  EXPECT_THAT(DataFilesOnDisk(table), SizeIs(files_before.size() + 1));
  EXPECT_EQ(committer_->stats().failed_writes, 6);
  EXPECT_EQ(committer_->stats().data_files, 2);  // not the failed flush's
}

TEST_F(CommitterTest, BackPressureBoundsTheQueueWithoutDeadlock) {
  Create("t");
  CoalescingCommitterOptions options;
  options.max_buffered_bytes = 1;  // every write waits for an empty queue
  options.max_ops = 3;
  MakeCommitter(options);
  auto receipts = AppendConcurrently(*committer_, "t", 0, 32);
  for (const auto& receipt : receipts) ASSERT_TRUE(receipt) << receipt.error().ToString();
  EXPECT_THAT(VisibleRows(Load("t")), SizeIs(32));
}

TEST_F(CommitterTest, MaxOpsCapsAFlush) {
  Gate gate(".parquet");
  OpenWithIO(std::make_shared<HookedFileIO>(gate.Hook()));
  Create("t");
  CoalescingCommitterOptions options;
  options.max_ops = 4;
  MakeCommitter(options);
  std::thread first([&] { ASSERT_TRUE(committer_->Append({{"db"}, "t"}, Events({{0, "x"}}))); });
  gate.WaitUntilHeld();
  std::vector<Result<CommitReceipt>> receipts;
  std::thread rest([&] { receipts = AppendConcurrently(*committer_, "t", 1, 12); });
  WaitForQueued(13);
  gate.Release();
  first.join();
  rest.join();
  for (const auto& receipt : receipts) {
    ASSERT_TRUE(receipt);
    EXPECT_EQ(receipt->writes_in_commit, 4);
  }
  EXPECT_EQ(committer_->stats().physical_commits, 4);
}

// With a delay, the first write waits for company: the leader flushes once
// max_ops writes are queued, well before the (one second) delay runs out.
TEST_F(CommitterTest, MaxDelayLetsTheLeaderWaitForCompany) {
  Create("t");
  CoalescingCommitterOptions options;
  options.max_delay = std::chrono::seconds(30);  // capped at one second
  options.max_ops = 6;
  MakeCommitter(options);
  auto receipts = AppendConcurrently(*committer_, "t", 0, 6);
  for (const auto& receipt : receipts) {
    ASSERT_TRUE(receipt) << receipt.error().ToString();
    EXPECT_EQ(receipt->writes_in_commit, 6);
  }
  EXPECT_EQ(committer_->stats().physical_commits, 1);
}

TEST_F(CommitterTest, AppendFilesCommitsTheCallersFiles) {
  table::Table table = Create("t");
  MakeCommitter();
  auto written = ingest::Append(table, EventGroup(0, 10), {});
  ASSERT_TRUE(written) << written.error().ToString();
  auto files = table::CurrentDataFiles(written->table);
  ASSERT_TRUE(files);
  auto receipt = committer_->AppendFiles({{"db"}, "t"}, *files);
  ASSERT_TRUE(receipt) << receipt.error().ToString();
  EXPECT_THAT(VisibleRows(Load("t")), SizeIs(20));  // the same file twice
}

// A commit cannot set such a value (catalog::CheckSkadeProperties), but a
// registered metadata file may hold one.
TEST(CommitPropertiesTest, ABadValueInTheMetadataIsRefused) {
  spec::TableMetadata metadata;
  metadata.properties = {{kHistoryModeProperty, "sometimes"}};
  EXPECT_THAT(
      CommitProperties::Of(metadata),
      skade::testing::IsErrorWithMessage(ErrorKind::kInvalidArgument, "skade.commit.history-mode"));
  metadata.properties = {{kHistoryModeProperty, "per-transaction"},
                         {kDeferredMaxBytesProperty, "7"},
                         {"skade.commit.from-a-later-skade", "x"}};
  auto read = CommitProperties::Of(metadata);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->history_mode, HistoryMode::kPerTransaction);
  EXPECT_EQ(read->deferred_max_bytes, 7);
}

}  // namespace
}  // namespace skade::commit::testing
