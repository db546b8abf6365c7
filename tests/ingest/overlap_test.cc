// The seed's pinned tests: IngestPipelinedOverlap against the proven serial
// IngestPipelined by direct equality, so any drop, duplicate, reorder or
// mis-grouping in the overlapped pipeline diverges the two and fails.
#include <gtest/gtest.h>

#include "ingest_test_util.h"
#include "skade/ingest/ingest.h"
#include "skade/ingest/snapshot_committer_internal.h"
#include "skade/io/file_io.h"
#include "testing/latency_file_io.h"

namespace skade::ingest {
namespace {

using testing::IngestTest;
using testing::IsError;
using testing::IsOk;

constexpr int kFiles = 40;
constexpr int64_t kRowsPerFile = 250;
constexpr int kFilesPerCommit = 4;
constexpr int kDepth = 4;

struct Outcome {
  table::Table table;
  IngestStats stats;
  std::vector<std::string> file_names;  // committed, in commit order
  std::vector<std::string> file_bytes;
  std::vector<std::vector<std::string>> snapshot_files;  // per snapshot, oldest first
  std::vector<testing::Row> rows;
};

class OverlapTest : public IngestTest {
 protected:
  Outcome Run(const std::string& name, bool overlap, const std::vector<RecordBatchGroup>& groups,
              int files_per_commit, int depth) {
    table::Table table = Create(name);
    IngestOptions options;
    options.files_per_commit = files_per_commit;
    options.channel_depth = depth;
    options.file_prefix = "ingest";  // same names in both tables
    auto result = overlap ? IngestPipelinedOverlap(table, groups, options)
                          : IngestPipelined(table, groups, options);
    EXPECT_THAT(result, IsOk());
    Outcome outcome{result->table, result->stats, {}, {}, {}, {}};
    for (const auto& entry : testing::CommittedInOrder(outcome.table)) {
      outcome.file_names.push_back(testing::FileName(entry.data_file.file_path));
      outcome.file_bytes.push_back(*outcome.table.io().ReadFile(entry.data_file.file_path));
    }
    // Which files each snapshot added: entries carry the sequence number of
    // the snapshot that added them.
    for (const auto& snapshot : outcome.table.metadata().snapshots) {
      std::vector<std::string> added;
      for (const auto& entry : testing::CommittedInOrder(outcome.table)) {
        if (*entry.sequence_number == snapshot->sequence_number) {
          added.push_back(testing::FileName(entry.data_file.file_path));
        }
      }
      outcome.snapshot_files.push_back(std::move(added));
    }
    outcome.rows = testing::CommittedRows(outcome.table);
    return outcome;
  }
};

TEST_F(OverlapTest, MatchesSerial) {
  auto groups = testing::EventGroups(kFiles, kRowsPerFile);
  Outcome serial = Run("serial", false, groups, kFilesPerCommit, kDepth);
  Outcome overlap = Run("overlap", true, groups, kFilesPerCommit, kDepth);

  // Same snapshot grouping and count: one per commit group. The serial
  // path makes a catalog commit each; the overlapped one at most as many.
  EXPECT_EQ(serial.table.metadata().snapshots.size(), 10u);
  EXPECT_EQ(overlap.table.metadata().snapshots.size(), 10u);
  EXPECT_EQ(serial.stats.commits, 10);
  EXPECT_EQ(serial.stats.snapshots, 10);
  EXPECT_EQ(overlap.stats.snapshots, serial.stats.snapshots);
  EXPECT_GE(overlap.stats.commits, 1);
  EXPECT_LE(overlap.stats.commits, overlap.stats.snapshots);
  EXPECT_EQ(overlap.snapshot_files, serial.snapshot_files);
  for (const auto& files : serial.snapshot_files) EXPECT_EQ(files.size(), 4u);

  // Same file sequence, in submission order, and the same bytes.
  ASSERT_EQ(serial.file_names.size(), static_cast<size_t>(kFiles));
  for (int i = 0; i < kFiles; ++i) {
    char expected[32];
    std::snprintf(expected, sizeof(expected), "ingest-%08d.parquet", i);
    EXPECT_EQ(serial.file_names[i], expected);
  }
  EXPECT_EQ(overlap.file_names, serial.file_names);
  EXPECT_TRUE(overlap.file_bytes == serial.file_bytes);

  // Same rows in the same order — the input's.
  EXPECT_EQ(serial.rows, testing::RowsOf(groups));
  EXPECT_EQ(overlap.rows, serial.rows);
  EXPECT_EQ(serial.stats.rows, kFiles * kRowsPerFile);
  EXPECT_EQ(overlap.stats.rows, serial.stats.rows);
  EXPECT_EQ(overlap.stats.files, serial.stats.files);
  EXPECT_EQ(overlap.stats.bytes, serial.stats.bytes);

  // Each snapshot builds on the one before.
  const auto& snapshots = overlap.table.metadata().snapshots;
  for (size_t i = 1; i < snapshots.size(); ++i) {
    EXPECT_EQ(snapshots[i]->parent_snapshot_id, snapshots[i - 1]->snapshot_id);
    EXPECT_EQ(snapshots[i]->summary.at("added-data-files"), "4");
    EXPECT_EQ(snapshots[i]->summary.at("total-records"), StrCat((i + 1) * 4 * kRowsPerFile));
  }
}

TEST_F(OverlapTest, UnevenGroupingMatchesSerial) {
  // 10 files at 3 per commit: the last snapshot takes the remaining one.
  auto groups = testing::EventGroups(10, 50);
  Outcome serial = Run("serial", false, groups, 3, 2);
  Outcome overlap = Run("overlap", true, groups, 3, 2);
  EXPECT_EQ(serial.stats.commits, 4);
  EXPECT_EQ(overlap.stats.snapshots, 4);
  EXPECT_EQ(overlap.snapshot_files, serial.snapshot_files);
  EXPECT_EQ(serial.snapshot_files.back().size(), 1u);
  EXPECT_TRUE(overlap.file_bytes == serial.file_bytes);
  EXPECT_EQ(overlap.rows, serial.rows);
}

TEST_F(OverlapTest, EmptyIngestCommitsNothing) {
  for (bool overlap : {false, true}) {
    Outcome outcome = Run(overlap ? "overlap" : "serial", overlap, {}, kFilesPerCommit, kDepth);
    EXPECT_TRUE(outcome.table.metadata().snapshots.empty());
    EXPECT_EQ(outcome.stats.commits, 0);
    EXPECT_EQ(outcome.stats.rows, 0);
  }
}

TEST_F(OverlapTest, GroupsWithoutRowsCommitNothing) {
  std::vector<RecordBatchGroup> groups = {RecordBatchGroup{}, testing::EventGroup(0, 0)};
  for (bool overlap : {false, true}) {
    Outcome outcome = Run(overlap ? "overlap" : "serial", overlap, groups, 1, 1);
    EXPECT_TRUE(outcome.table.metadata().snapshots.empty());
    EXPECT_EQ(outcome.stats.commits, 0);
  }
}

TEST_F(OverlapTest, SingleFileAtDepthOneIsOneSnapshot) {
  auto groups = testing::EventGroups(1, 1000);
  for (bool overlap : {false, true}) {
    Outcome outcome = Run(overlap ? "overlap" : "serial", overlap, groups, kFilesPerCommit, 1);
    ASSERT_EQ(outcome.table.metadata().snapshots.size(), 1u);
    EXPECT_EQ(outcome.stats.commits, 1);
    EXPECT_EQ(outcome.stats.rows, 1000);
    EXPECT_EQ(outcome.rows, testing::RowsOf(groups));
    EXPECT_EQ(outcome.table.metadata().CurrentSnapshot()->summary.at("added-records"), "1000");
  }
}

TEST_F(OverlapTest, DepthOneStillMatchesSerial) {
  auto groups = testing::EventGroups(12, 100);
  Outcome serial = Run("serial", false, groups, 4, 1);
  Outcome overlap = Run("overlap", true, groups, 4, 1);
  EXPECT_EQ(overlap.snapshot_files, serial.snapshot_files);
  EXPECT_TRUE(overlap.file_bytes == serial.file_bytes);
  EXPECT_EQ(overlap.rows, serial.rows);
  EXPECT_EQ(overlap.stats.snapshots, 3);
}

TEST_F(OverlapTest, SlowCommitsCarrySeveralGroupsEachItsOwnSnapshot) {
  // Every metadata write (manifest, manifest list, metadata file) takes
  // 30 ms more and data writes nothing extra, as on a distant object store:
  // a commit costs at least 90 ms, so the groups written while one is under
  // way land together in the next, one snapshot each, grouped, chained and
  // ordered as the serial path's.
  auto slow = std::make_shared<skade::testing::LatencyFileIO>(
      io::NewLocalFileIO(), std::chrono::microseconds(0), std::chrono::milliseconds(30));
  auto groups = testing::EventGroups(kFiles, kRowsPerFile);
  OpenCatalog(slow);
  table::Table table = Create("overlap", nullptr, {}, nullptr, slow);
  IngestOptions options;
  options.files_per_commit = kFilesPerCommit;
  options.channel_depth = kDepth;
  options.file_prefix = "ingest";
  auto result = IngestPipelinedOverlap(table, groups, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.snapshots, 10);
  EXPECT_LT(result->stats.commits, 10);
  EXPECT_GE(result->stats.commits, 1);

  const auto& snapshots = result->table.metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 10u);
  for (size_t i = 1; i < snapshots.size(); ++i) {
    EXPECT_EQ(snapshots[i]->parent_snapshot_id, snapshots[i - 1]->snapshot_id);
    EXPECT_EQ(snapshots[i]->sequence_number, snapshots[i - 1]->sequence_number + 1);
    EXPECT_EQ(snapshots[i]->summary.at("added-data-files"), "4");
  }
  // One metadata file per catalog commit, not per snapshot.
  EXPECT_EQ(result->table.metadata().metadata_log.size(),
            static_cast<size_t>(result->stats.commits));
  std::vector<std::string> names;
  for (const auto& entry : testing::CommittedInOrder(result->table)) {
    names.push_back(testing::FileName(entry.data_file.file_path));
  }
  ASSERT_EQ(names.size(), static_cast<size_t>(kFiles));
  for (int i = 0; i < kFiles; ++i) {
    char expected[32];
    std::snprintf(expected, sizeof(expected), "ingest-%08d.parquet", i);
    EXPECT_EQ(names[i], expected);
  }
  EXPECT_EQ(testing::CommittedRows(result->table), testing::RowsOf(groups));
}

// The committer alone, no threads: held files commit in full groups, a
// snapshot each, in one catalog commit (on v3 each with its own row range);
// a failed commit changes no count and keeps its files pending.
TEST_F(OverlapTest, CommitterChainsHeldFullGroupsInOneCommit) {
  auto io = std::make_shared<testing::HookedFileIO>();
  table::Table table = Create("chained", nullptr, {{"format-version", "3"}}, nullptr, io);
  SnapshotCommitter committer(table, 4, SnapshotAction{}, {}, nullptr);
  int held = 0;
  auto hold = [&](int count) {
    for (int i = 0; i < count; ++i) {
      spec::DataFile file;
      file.file_path = StrCat(table.metadata().location, "/data/f-", held++, ".parquet");
      file.record_count = 10;
      file.file_size_in_bytes = 100;
      committer.Hold(std::move(file));
    }
  };
  hold(10);
  ASSERT_THAT(committer.CommitFullGroups(), IsOk());
  EXPECT_EQ(committer.commits(), 1);
  EXPECT_EQ(committer.snapshots(), 2);
  EXPECT_EQ(committer.committed_files(), 8);
  EXPECT_EQ(committer.committed_rows(), 80);
  const spec::TableMetadata& chained = committer.table().metadata();
  ASSERT_EQ(chained.snapshots.size(), 2u);
  EXPECT_EQ(chained.snapshots[1]->parent_snapshot_id, chained.snapshots[0]->snapshot_id);
  EXPECT_EQ(chained.snapshots[0]->first_row_id, 0);
  EXPECT_EQ(chained.snapshots[1]->first_row_id, 40);
  EXPECT_EQ(chained.next_row_id, 80);

  io->set_hook(testing::FailNthWrite("/snap-", 1));
  hold(2);  // 4 pending: one full group
  EXPECT_THAT(committer.CommitFullGroups(), IsError(ErrorKind::kIo));
  EXPECT_EQ(committer.commits(), 1);
  EXPECT_EQ(committer.snapshots(), 2);
  EXPECT_EQ(committer.committed_files(), 8);
  EXPECT_EQ(committer.table().metadata().snapshots.size(), 2u);

  io->set_hook(nullptr);
  hold(1);  // 5 pending: a full group and one more
  ASSERT_THAT(committer.Flush(), IsOk());
  EXPECT_EQ(committer.commits(), 2);
  EXPECT_EQ(committer.snapshots(), 4);
  EXPECT_EQ(committer.committed_files(), 13);
  const auto& snapshots = table.Refresh()->metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 4u);
  EXPECT_EQ(snapshots[2]->summary.at("added-data-files"), "4");
  EXPECT_EQ(snapshots[3]->summary.at("added-data-files"), "1");
  EXPECT_EQ(snapshots[3]->first_row_id, 120);
}

}  // namespace
}  // namespace skade::ingest
