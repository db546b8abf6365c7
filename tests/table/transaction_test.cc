#include "skade/table/transaction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "skade/avro/manifest_list_reader.h"
#include "skade/table/snapshot_scan.h"
#include "table_fixture.h"
#include "testing/counting_file_io.h"

namespace skade::table {
namespace {

using testing::IsError;
using testing::IsOk;
using testing::TableTest;

class TransactionTest : public TableTest {};

TEST_F(TransactionTest, ChainsSnapshotsInOneCommit) {
  Table table = Create("events", testing::RegionSpec());
  Transaction transaction(table);
  transaction.NewFastAppend().AppendFile(File(table, "a", 10, "eu"));
  transaction.NewFastAppend().AppendFile(File(table, "b", 20, "us"));
  transaction.NewDelete(PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}));
  auto committed = transaction.Commit();
  ASSERT_THAT(committed, IsOk());

  const spec::TableMetadata& m = committed->metadata();
  ASSERT_EQ(m.snapshots.size(), 3u);
  EXPECT_EQ(m.snapshots[0]->operation(), "append");
  EXPECT_EQ(m.snapshots[1]->operation(), "append");
  EXPECT_EQ(m.snapshots[2]->operation(), "delete");
  EXPECT_EQ(m.snapshots[1]->parent_snapshot_id, m.snapshots[0]->snapshot_id);
  EXPECT_EQ(m.snapshots[2]->parent_snapshot_id, m.snapshots[1]->snapshot_id);
  EXPECT_EQ(m.snapshots[2]->sequence_number, 3);
  EXPECT_EQ(m.snapshots[2]->summary.at("total-records"), "20");
  // One metadata commit: the metadata log gained a single entry.
  EXPECT_EQ(m.metadata_log.size(), 1u);
  auto files = CurrentDataFiles(*committed);
  EXPECT_EQ(Paths(*files), Paths({File(table, "b", 20, "us")}));
}

TEST_F(TransactionTest, EmptyTransactionCommitsNothing) {
  Table table = Create("events");
  Transaction transaction(table);
  auto committed = transaction.Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(committed->metadata_location(), table.metadata_location());
}

TEST_F(TransactionTest, ManyTablesCommitAtomically) {
  Table first = Create("first");
  Table second = Create("second");
  Transaction a(first);
  Transaction b(second);
  a.NewFastAppend().AppendFile(File(first, "a", 1));
  b.NewFastAppend().AppendFile(File(second, "b", 2));
  auto committed = CommitTransactions({&a, &b});
  ASSERT_THAT(committed, IsOk());
  ASSERT_EQ(committed->size(), 2u);
  EXPECT_EQ((*committed)[0].metadata().CurrentSnapshot()->summary.at("total-records"), "1");
  EXPECT_EQ((*committed)[1].metadata().CurrentSnapshot()->summary.at("total-records"), "2");
}

TEST_F(TransactionTest, ManyTablesAllOrNothing) {
  Table first = Create("first");
  Table second = Create("second");
  Transaction a(first);
  Transaction b(second);
  a.NewFastAppend().AppendFile(File(first, "a", 1));
  b.NewFastAppend().AppendFile(File(second, "b", 2));
  // The second table disappears before the commit: nothing may land.
  ASSERT_THAT(catalog_->DropTable(second.identifier(), false), IsOk());
  EXPECT_FALSE(CommitTransactions({&a, &b}));
  auto reloaded = first.Refresh();
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_EQ(reloaded->metadata().CurrentSnapshot(), nullptr);
  EXPECT_EQ(reloaded->metadata_location(), first.metadata_location());
}

TEST_F(TransactionTest, ManyTablesRebaseTogether) {
  Table first = Create("first", nullptr, {{"commit.retry.min-wait-ms", "1"}});
  Table second = Create("second");
  Transaction a(first);
  Transaction b(second);
  a.NewFastAppend().AppendFile(File(first, "a", 1));
  b.NewFastAppend().AppendFile(File(second, "b", 2));
  ASSERT_THAT(FastAppend(second).AppendFile(File(second, "other", 5)).Commit(), IsOk());
  auto committed = CommitTransactions({&a, &b});
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ((*committed)[1].metadata().CurrentSnapshot()->summary.at("total-records"), "7");
  EXPECT_EQ((*committed)[1].metadata().snapshots.size(), 2u);
}

// A commit's manifests and manifest lists are staged first and written in
// one WriteFiles call (one round trip on S3), and a snapshot built on a
// list this process staged takes its parent's manifests from memory — in a
// chain before the list is even written, and in the next commit through the
// returned Table — writing exactly what reading the list back would give.
class StagedWritesTest : public TableTest, public ::testing::WithParamInterface<int> {};

TEST_P(StagedWritesTest, ACommitWritesItsFilesTogetherAndNeverRereadsItsOwnLists) {
  auto counting = std::make_shared<skade::testing::CountingFileIO>(io_);
  Create("events", testing::RegionSpec(), {{"format-version", std::to_string(GetParam())}});
  auto loaded = Table::Load(catalog_, counting, {{"db"}, "events"});
  ASSERT_THAT(loaded, IsOk());
  auto list_reads = [&](const Table& table) {
    int reads = 0;
    for (const auto& snapshot : table.metadata().snapshots) {
      reads += counting->Reads(snapshot->manifest_list);
    }
    return reads;
  };

  Transaction transaction(*loaded);
  for (const char* region : {"eu", "us", "ap"}) {
    transaction.NewFastAppend().AppendFile(File(*loaded, region, 10, region));
  }
  auto committed = transaction.Commit();
  ASSERT_THAT(committed, IsOk());
  auto batches = counting->TakeWriteBatches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].size(), 6u);  // three manifests, three manifest lists

  auto next = FastAppend(*committed).AppendFile(File(*committed, "eu2", 5, "eu")).Commit();
  ASSERT_THAT(next, IsOk());
  batches = counting->TakeWriteBatches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].size(), 2u);
  EXPECT_EQ(list_reads(*next), 0);

  // Each list, read back, is its new manifest followed by its parent's list
  // as read back.
  const auto& snapshots = next->metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 4u);
  std::vector<spec::ManifestFile> parent;
  for (const auto& snapshot : snapshots) {
    auto list = avro::ReadManifestList(*io_->ReadFile(snapshot->manifest_list));
    ASSERT_THAT(list, IsOk());
    ASSERT_EQ(list->manifests.size(), parent.size() + 1);
    EXPECT_TRUE(std::equal(parent.begin(), parent.end(), list->manifests.begin() + 1));
    parent = list->manifests;
  }
  EXPECT_EQ(snapshots.back()->summary.at("total-records"), "35");
  auto files = CurrentDataFiles(*next);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(files->size(), 4u);
}

TEST_P(StagedWritesTest, AFailedCommitLeavesNoneOfItsStagedFiles) {
  Table table = Create("events", nullptr, {{"format-version", std::to_string(GetParam())}});
  Transaction transaction(table);
  transaction.NewFastAppend().AppendFile(File(table, "a", 1));
  transaction.NewFastAppend().AppendFile(File(table, "b", 2));
  ASSERT_THAT(catalog_->DropTable(table.identifier(), false), IsOk());
  EXPECT_FALSE(transaction.Commit());
  // Only the metadata file of the create is left.
  for (const std::string& name : MetadataFiles(table)) {
    EXPECT_TRUE(name.ends_with(".metadata.json")) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, StagedWritesTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace skade::table
