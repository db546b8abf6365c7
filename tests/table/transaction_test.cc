#include "skade/table/transaction.h"

#include <gtest/gtest.h>

#include "skade/table/snapshot_scan.h"
#include "table_fixture.h"

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

}  // namespace
}  // namespace skade::table
