// Replacing ingests that commit several snapshots: each snapshot replaces
// only the partitions whose new files it adds (replace_partitions), and an
// overwrite by filter commits once at the end — so no reader sees a
// partition emptied before its new rows land, and a failure part-way leaves
// the old data of everything not yet replaced.
#include <gtest/gtest.h>

#include <cmath>

#include "ingest_test_util.h"
#include "skade/ingest/ingest.h"
#include "skade/util/worker_pool.h"

namespace skade::ingest {
namespace {

using testing::HookedFileIO;
using testing::IngestTest;
using testing::IsError;
using testing::IsOk;
using testing::RowsPerRegion;

class ReplaceTest : public IngestTest, public ::testing::WithParamInterface<bool> {
 protected:
  Result<IngestResult> Ingest(const table::Table& table,
                              const std::vector<RecordBatchGroup>& groups,
                              const IngestOptions& options) {
    return GetParam() ? IngestPipelinedOverlap(table, groups, options)
                      : IngestPipelined(table, groups, options);
  }

  // 60 rows in each of eu, us, ap.
  table::Table Populated(std::shared_ptr<io::FileIO> io = nullptr) {
    table::Table table = Create("events", testing::RegionSpec(), {}, nullptr, std::move(io));
    auto first = IngestParallel(table, testing::EventGroups(2, 90));
    EXPECT_THAT(first, IsOk());
    return first->table;
  }
};

// Ids 0-2 are eu, 3-5 us, 6-8 ap: one single-partition group each.
std::vector<RecordBatchGroup> EuThenUs() {
  return {testing::EventGroup(0, 3), testing::EventGroup(3, 3)};
}

TEST_P(ReplaceTest, EachSnapshotReplacesOnlyThePartitionsItAddsTo) {
  table::Table table = Populated();
  IngestOptions options;
  options.replace_partitions = true;
  options.files_per_commit = 1;
  auto result = Ingest(table, EuThenUs(), options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.snapshots, 2);  // overlapped: perhaps in one catalog commit
  const auto& snapshots = result->table.metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 3u);
  EXPECT_EQ(snapshots[1]->operation(), "overwrite");
  EXPECT_EQ(snapshots[1]->summary.at("deleted-records"), "60");  // eu only
  EXPECT_EQ(snapshots[2]->operation(), "overwrite");
  EXPECT_EQ(snapshots[2]->summary.at("deleted-records"), "60");  // us only
  EXPECT_EQ(RowsPerRegion(result->table),
            (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 3}, {"us", 3}}));
}

TEST_P(ReplaceTest, ALaterSnapshotKeepsTheFilesEarlierOnesAddedToAPartition) {
  table::Table table = Populated();
  IngestOptions options;
  options.replace_partitions = true;
  options.files_per_commit = 1;
  // eu, us, eu again: the third snapshot appends to eu, it does not replace
  // the first snapshot's file.
  auto result = Ingest(
      table, {testing::EventGroup(0, 3), testing::EventGroup(3, 3), testing::EventGroup(9, 3)},
      options);
  ASSERT_THAT(result, IsOk());
  const auto& snapshots = result->table.metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 4u);
  EXPECT_EQ(snapshots[3]->operation(), "append");
  EXPECT_EQ(RowsPerRegion(result->table),
            (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 6}, {"us", 3}}));
}

// Regression: the first snapshot used to replace every partition the ingest
// would write, so a failed second commit left "us" empty.
TEST_P(ReplaceTest, AFailedLaterCommitLeavesUnreplacedPartitionsIntact) {
  auto io = std::make_shared<HookedFileIO>();
  table::Table table = Populated(io);
  // The ingest's second manifest list write fails: its second commit fails.
  io->set_hook(testing::FailNthWrite("/snap-", 2));
  IngestOptions options;
  options.replace_partitions = true;
  options.files_per_commit = 1;
  auto result = Ingest(table, EuThenUs(), options);
  ASSERT_THAT(result, IsError(ErrorKind::kIo));
  auto reloaded = table.Refresh();
  ASSERT_THAT(reloaded, IsOk());
  if (GetParam() && reloaded->metadata().snapshots.size() == 1) {
    // Overlapped, both snapshots were chained in the failing commit: neither
    // landed, nothing was replaced.
    EXPECT_EQ(RowsPerRegion(*reloaded),
              (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 60}, {"us", 60}}));
    return;
  }
  EXPECT_EQ(reloaded->metadata().snapshots.size(), 2u);
  EXPECT_EQ(RowsPerRegion(*reloaded),
            (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 3}, {"us", 60}}));
}

TEST_P(ReplaceTest, OverwriteWithSeveralFilesPerCommitIsOneSnapshot) {
  table::Table table = Populated();
  IngestOptions options;
  options.overwrite = table::PartitionFilter::All();
  options.files_per_commit = 1;
  std::vector<int64_t> rows_seen_at_commit;
  options.progress = [&](const IngestProgress& progress) {
    if (progress.commits == 0) return;
    auto current = table.Refresh();
    int64_t rows = 0;
    for (const auto& [region, count] : RowsPerRegion(*current)) rows += count;
    rows_seen_at_commit.push_back(rows);
  };
  auto result = Ingest(table, EuThenUs(), options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.commits, 1);
  // No reader ever saw the table holding only part of the new data.
  EXPECT_EQ(rows_seen_at_commit, std::vector<int64_t>{6});
  EXPECT_EQ(RowsPerRegion(result->table), (std::map<std::string, int64_t>{{"eu", 3}, {"us", 3}}));
}

TEST_P(ReplaceTest, AFailedOverwriteLeavesTheOldData) {
  auto io = std::make_shared<HookedFileIO>();
  table::Table table = Populated(io);
  io->set_hook(testing::FailNthWrite(".parquet", 2));
  IngestOptions options;
  options.overwrite = table::PartitionFilter::All();
  options.files_per_commit = 1;
  auto result = Ingest(table, EuThenUs(), options);
  ASSERT_THAT(result, IsError(ErrorKind::kIo));
  auto reloaded = table.Refresh();
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_EQ(reloaded->metadata_location(), table.metadata_location());
}

// A concurrent ingest lands while the replacing one writes: into a
// partition being replaced it is a conflict (the replacing ingest would
// drop its rows), elsewhere the replacing ingest rebases over it.
TEST_P(ReplaceTest, AConcurrentAppendToAReplacedPartitionFailsTheIngest) {
  table::Table table = Populated();
  for (bool same_partition : {true, false}) {
    SCOPED_TRACE(same_partition ? "into eu" : "into ap");
    table::Table base = *table.Refresh();
    WorkerPool other_pool(1);
    bool appended = false;
    IngestOptions options;
    options.replace_partitions = true;
    options.progress = [&](const IngestProgress& progress) {
      if (appended || progress.files_written != 1) return;
      appended = true;
      IngestOptions other;
      other.pool = &other_pool;
      // Ids 9-11 are eu, 6-8 ap.
      EXPECT_THAT(IngestParallel(base, {testing::EventGroup(same_partition ? 9 : 6, 3)}, other),
                  IsOk());
    };
    auto result = Ingest(base, {testing::EventGroup(0, 3)}, options);
    auto reloaded = table.Refresh();
    if (same_partition) {
      ASSERT_THAT(result, IsError(ErrorKind::kCommitFailed));
      EXPECT_THAT(result.error().message,
                  ::testing::HasSubstr("Found conflicting data files that can contain records "
                                       "matching partitions of spec"));
      EXPECT_EQ(RowsPerRegion(*reloaded),
                (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 63}, {"us", 60}}));
    } else {
      ASSERT_THAT(result, IsOk());
      EXPECT_EQ(RowsPerRegion(*reloaded),
                (std::map<std::string, int64_t>{{"ap", 63}, {"eu", 3}, {"us", 60}}));
    }
  }
}

// Regression: an overwrite by filter added the input's rows outside the
// filter without replacing anything there, so each rerun added them again.
// Refused as Iceberg Java's validateAddedFilesMatchOverwriteFilter (Spark's
// static overwrite), nothing committed and no data file left behind.
TEST_P(ReplaceTest, AnOverwriteRefusesRowsOutsideItsFilter) {
  table::Table table = Populated();
  const std::vector<std::string> files_before = DataFilesOnDisk(table);
  IngestOptions options;
  options.overwrite =
      table::PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}});
  auto result = Ingest(table, EuThenUs(), options);
  ASSERT_THAT(result, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(result.error().message, ::testing::HasSubstr("partition region=us"));
  EXPECT_THAT(result.error().message, ::testing::HasSubstr("region = eu"));
  auto reloaded = table.Refresh();
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_EQ(reloaded->metadata_location(), table.metadata_location());
  EXPECT_EQ(DataFilesOnDisk(table), files_before);

  // Rows inside the filter only: replaced.
  auto eu_only = Ingest(table, {testing::EventGroup(0, 3)}, options);
  ASSERT_THAT(eu_only, IsOk());
  EXPECT_EQ(RowsPerRegion(eu_only->table),
            (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 3}, {"us", 60}}));
}

// Regression: an overwrite whose input had no rows committed nothing, so
// the rows it was to replace stayed.
TEST_P(ReplaceTest, AnOverwriteWithoutRowsRemovesWhatItsFilterMatches) {
  table::Table table = Populated();
  IngestOptions options;
  options.overwrite =
      table::PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}});
  auto result = Ingest(table, {}, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.commits, 1);
  EXPECT_EQ(result->stats.snapshots, 1);
  EXPECT_EQ(result->table.metadata().CurrentSnapshot()->operation(), "delete");
  EXPECT_EQ(RowsPerRegion(result->table), (std::map<std::string, int64_t>{{"ap", 60}, {"us", 60}}));

  options.overwrite = table::PartitionFilter::All();
  auto all = Ingest(result->table, {testing::EventGroup(0, 0)}, options);
  ASSERT_THAT(all, IsOk());
  EXPECT_TRUE(RowsPerRegion(all->table).empty());
  EXPECT_EQ(all->table.metadata().CurrentSnapshot()->summary.at("total-records"), "0");

  // Without an overwrite, no rows commit nothing.
  IngestOptions append;
  append.replace_partitions = true;
  auto nothing = Ingest(all->table, {}, append);
  ASSERT_THAT(nothing, IsOk());
  EXPECT_EQ(nothing->stats.commits, 0);
}

TEST_F(IngestTest, AppendOverwriteWithoutRowsRemovesWhatItsFilterMatches) {
  table::Table table = Create("events", testing::RegionSpec());
  auto first = IngestParallel(table, testing::EventGroups(1, 9));
  ASSERT_THAT(first, IsOk());
  IngestOptions options;
  options.overwrite =
      table::PartitionFilter::FieldsEqual({{"region", spec::Literal::String("us")}});
  auto result = Append(first->table, testing::EventGroup(0, 0), options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(RowsPerRegion(result->table), (std::map<std::string, int64_t>{{"ap", 3}, {"eu", 3}}));
}

// `count` rows from id `first`, all of score NaN.
RecordBatchGroup NaNScores(int64_t first, int64_t count) {
  RecordBatchGroup group = testing::EventGroup(first, count, 1);
  arrow::DoubleBuilder scores;
  for (int64_t i = 0; i < count; ++i) EXPECT_TRUE(scores.Append(std::nan("")).ok());
  group[0] =
      group[0]
          ->SetColumn(1, arrow::field("score", arrow::float64()), scores.Finish().ValueOrDie())
          .ValueOrDie();
  return group;
}

// Regression: partition values were compared with ==, so a NaN partition
// never matched itself: --replace-partitions kept the old NaN rows, and
// with several commits each snapshot "replaced" the NaN partition again,
// dropping the ingest's own earlier files.
TEST_P(ReplaceTest, ReplacesANaNPartition) {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back({2, {}, 1000, "score", spec::Transform::Identity()});
  table::Table table = Create("scores", spec);
  auto first = IngestParallel(table, {NaNScores(0, 5)});
  ASSERT_THAT(first, IsOk());
  IngestOptions options;
  options.replace_partitions = true;
  options.files_per_commit = 1;
  auto replaced = Ingest(first->table, {NaNScores(100, 3), NaNScores(200, 4)}, options);
  ASSERT_THAT(replaced, IsOk());
  const auto& snapshots = replaced->table.metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 3u);
  EXPECT_EQ(snapshots[1]->summary.at("deleted-records"), "5");
  EXPECT_EQ(snapshots[2]->operation(), "append");
  EXPECT_EQ(replaced->table.metadata().CurrentSnapshot()->summary.at("total-records"), "7");
}

INSTANTIATE_TEST_SUITE_P(SerialAndOverlapped, ReplaceTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Overlapped" : "Serial"; });

}  // namespace
}  // namespace skade::ingest
