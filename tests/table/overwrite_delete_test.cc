#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/spec/table_properties.h"
#include "skade/table/delete_files.h"
#include "skade/table/fast_append.h"
#include "skade/table/overwrite_files.h"
#include "skade/table/snapshot_scan.h"
#include "skade/table/transaction.h"
#include "table_fixture.h"
#include "testing/read_overlap_file_io.h"

namespace skade::table {
namespace {

using ::testing::HasSubstr;
using testing::IsError;
using testing::IsOk;
using testing::TableTest;
using ::testing::UnorderedElementsAre;

class OverwriteDeleteTest : public TableTest {
 protected:
  // Two snapshots: eu/a (10 rows) + us/b (20 rows), then eu/c (5 rows).
  Table Populated() {
    Table table = Create("events", testing::RegionSpec());
    auto first = FastAppend(table)
                     .AppendFile(File(table, "a", 10, "eu"))
                     .AppendFile(File(table, "b", 20, "us"))
                     .Commit();
    EXPECT_THAT(first, IsOk());
    auto second = FastAppend(*first).AppendFile(File(table, "c", 5, "eu")).Commit();
    EXPECT_THAT(second, IsOk());
    return *second;
  }

  std::vector<spec::ManifestEntry> AllEntries(const spec::Snapshot& snapshot) {
    auto list = avro::ReadManifestList(*io_->ReadFile(snapshot.manifest_list));
    std::vector<spec::ManifestEntry> all;
    for (const auto& manifest : list->manifests) {
      auto entries = avro::ReadManifestEntries(*io_, manifest);
      EXPECT_THAT(entries, IsOk());
      all.insert(all.end(), entries->begin(), entries->end());
    }
    return all;
  }
};

TEST_F(OverwriteDeleteTest, OverwriteReplacesOnePartition) {
  Table table = Populated();
  OverwriteFiles overwrite(table,
                           PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}));
  overwrite.AddFile(File(table, "d", 7, "eu"));
  auto committed = overwrite.Commit();
  ASSERT_THAT(committed, IsOk());

  auto snapshot = committed->metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->operation(), "overwrite");
  EXPECT_EQ(snapshot->summary.at("added-data-files"), "1");
  EXPECT_EQ(snapshot->summary.at("added-records"), "7");
  EXPECT_EQ(snapshot->summary.at("deleted-data-files"), "2");
  EXPECT_EQ(snapshot->summary.at("deleted-records"), "15");
  EXPECT_EQ(snapshot->summary.at("removed-files-size"), "350");
  EXPECT_EQ(snapshot->summary.at("changed-partition-count"), "1");
  EXPECT_EQ(snapshot->summary.at("total-records"), "27");
  EXPECT_EQ(snapshot->summary.at("total-data-files"), "2");

  auto files = CurrentDataFiles(*committed);
  ASSERT_THAT(files, IsOk());
  EXPECT_THAT(Paths(*files), UnorderedElementsAre(File(table, "d", 7, "eu").file_path,
                                                  File(table, "b", 20, "us").file_path));

  // The removed files are DELETED entries of this snapshot, with their
  // original sequence numbers; "b" stays EXISTING.
  int deleted = 0;
  for (const auto& entry : AllEntries(*snapshot)) {
    if (entry.status == spec::ManifestEntryStatus::kDeleted) {
      ++deleted;
      EXPECT_EQ(entry.snapshot_id, overwrite.snapshot_id());
      EXPECT_LE(*entry.sequence_number, 2);
    }
    if (entry.data_file.file_path == File(table, "b", 20, "us").file_path) {
      EXPECT_EQ(entry.status, spec::ManifestEntryStatus::kExisting);
      EXPECT_EQ(entry.sequence_number, 1);
    }
  }
  EXPECT_EQ(deleted, 2);
}

TEST_F(OverwriteDeleteTest, DeleteByPartitionTuple) {
  Table table = Populated();
  DeleteFiles remove(table, PartitionFilter::Tuples(0, {{spec::Literal::String("us")}}));
  auto committed = remove.Commit();
  ASSERT_THAT(committed, IsOk());
  auto snapshot = committed->metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->operation(), "delete");
  EXPECT_EQ(snapshot->summary.at("deleted-data-files"), "1");
  EXPECT_EQ(snapshot->summary.at("deleted-records"), "20");
  EXPECT_EQ(snapshot->summary.count("added-data-files"), 0u);
  EXPECT_EQ(snapshot->summary.at("total-records"), "15");
  EXPECT_EQ(snapshot->summary.at("total-data-files"), "2");

  auto files = CurrentDataFiles(*committed);
  ASSERT_THAT(files, IsOk());
  EXPECT_THAT(Paths(*files), UnorderedElementsAre(File(table, "a", 10, "eu").file_path,
                                                  File(table, "c", 5, "eu").file_path));

  // The manifest without a match (the second append's) is reused as is.
  auto parent_list =
      avro::ReadManifestList(*io_->ReadFile(table.metadata().CurrentSnapshot()->manifest_list));
  auto list = avro::ReadManifestList(*io_->ReadFile(snapshot->manifest_list));
  ASSERT_EQ(list->manifests.size(), 2u);
  EXPECT_EQ(list->manifests[0], parent_list->manifests[0]);
  EXPECT_EQ(list->manifests[1].added_snapshot_id, remove.snapshot_id());
  EXPECT_EQ(list->manifests[1].deleted_files_count, 1);
  EXPECT_EQ(list->manifests[1].existing_files_count, 1);
}

// A delete reads every manifest of the snapshot; against an object store one
// at a time adds up to seconds, so they are read several at once.
TEST_F(OverwriteDeleteTest, ManifestsAreReadConcurrently) {
  auto io = std::make_shared<skade::testing::ReadOverlapFileIO>(io_, "-m0.avro");
  io_ = io;
  Table table = Populated();
  table = *FastAppend(table).AppendFile(File(table, "d", 7, "us")).Commit();
  DeleteFiles remove(table, PartitionFilter::Tuples(0, {{spec::Literal::String("us")}}));
  auto committed = remove.Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_TRUE(io->overlapped());
  EXPECT_EQ(committed->metadata().CurrentSnapshot()->summary.at("deleted-data-files"), "2");
  auto files = CurrentDataFiles(*committed);
  ASSERT_THAT(files, IsOk());
  EXPECT_THAT(Paths(*files), UnorderedElementsAre(File(table, "a", 10, "eu").file_path,
                                                  File(table, "c", 5, "eu").file_path));
}

// Overwrites and deletes merge the manifests they keep unchanged, as
// appends do; what they rewrite (with this snapshot's DELETED entries) and
// add stays apart.
TEST_F(OverwriteDeleteTest, OverwritesAndDeletesMergeTheManifestsTheyKeep) {
  Table table =
      Create("events", testing::RegionSpec(),
             {{spec::kManifestMergeEnabled, "false"}, {spec::kManifestMinCountToMerge, "2"}});
  for (const auto& [name, region] : std::vector<std::pair<std::string, std::string>>{
           {"a", "eu"}, {"b", "us"}, {"c", "eu"}, {"e", "ap"}}) {
    table = *FastAppend(table).AppendFile(File(table, name, 10, region)).Commit();
  }
  auto appended = LiveEntries(table, *table.metadata().CurrentSnapshot());
  ASSERT_THAT(appended, IsOk());
  std::map<std::string, spec::ManifestEntry> before;
  for (const auto& entry : *appended) before[entry.data_file.file_path] = entry;
  catalog::CommitTableRequest enable{table.identifier(), {}, {}};
  enable.updates.push_back(spec::SetProperties{{{spec::kManifestMergeEnabled, "true"}}});
  ASSERT_THAT(catalog_->CommitTable(enable), IsOk());
  table = *table.Refresh();

  OverwriteFiles overwrite(table, PartitionFilter::Tuples(0, {{spec::Literal::String("us")}}));
  overwrite.AddFile(File(table, "d", 7, "us"));
  auto overwritten = overwrite.Commit();
  ASSERT_THAT(overwritten, IsOk());
  auto list = avro::ReadManifestList(
      *io_->ReadFile(overwritten->metadata().CurrentSnapshot()->manifest_list));
  ASSERT_THAT(list, IsOk());
  // d's, b's rewritten one (b DELETED), then a, c and e merged into one.
  ASSERT_EQ(list->manifests.size(), 3u);
  EXPECT_EQ(list->manifests[0].added_files_count, 1);
  EXPECT_EQ(list->manifests[1].deleted_files_count, 1);
  EXPECT_EQ(list->manifests[1].existing_files_count, 0);
  EXPECT_EQ(list->manifests[2].existing_files_count, 3);
  EXPECT_EQ(list->manifests[2].added_snapshot_id, overwrite.snapshot_id());
  // The kept files keep the snapshots and sequence numbers that added them.
  auto live = LiveEntries(*overwritten, *overwritten->metadata().CurrentSnapshot());
  ASSERT_THAT(live, IsOk());
  ASSERT_EQ(live->size(), 4u);
  for (const auto& entry : *live) {
    if (entry.data_file.file_path == File(table, "d", 7, "us").file_path) continue;
    const spec::ManifestEntry& was = before.at(entry.data_file.file_path);
    EXPECT_EQ(entry.snapshot_id, was.snapshot_id);
    EXPECT_EQ(entry.sequence_number, was.sequence_number);
    EXPECT_EQ(entry.file_sequence_number, was.file_sequence_number);
  }

  // A delete merges the same way: it rewrites the merged manifest (e is
  // DELETED) and keeps d's and b's, which merge into one listing d (b's
  // DELETED entry is the overwrite's history, not content).
  DeleteFiles remove(*overwritten, PartitionFilter::Tuples(0, {{spec::Literal::String("ap")}}));
  auto removed = remove.Commit();
  ASSERT_THAT(removed, IsOk());
  list =
      avro::ReadManifestList(*io_->ReadFile(removed->metadata().CurrentSnapshot()->manifest_list));
  ASSERT_THAT(list, IsOk());
  ASSERT_EQ(list->manifests.size(), 2u);
  EXPECT_EQ(list->manifests[0].deleted_files_count, 1);
  EXPECT_EQ(list->manifests[0].existing_files_count, 2);
  EXPECT_EQ(list->manifests[1].existing_files_count, 1);
  EXPECT_EQ(list->manifests[1].deleted_files_count, 0);
  auto files = CurrentDataFiles(*removed);
  ASSERT_THAT(files, IsOk());
  EXPECT_THAT(Paths(*files), UnorderedElementsAre(File(table, "a", 10, "eu").file_path,
                                                  File(table, "c", 10, "eu").file_path,
                                                  File(table, "d", 7, "us").file_path));
  EXPECT_EQ(removed->metadata().CurrentSnapshot()->summary.at("deleted-data-files"), "1");
}

TEST_F(OverwriteDeleteTest, OverwriteEverythingThenDeleteEverything) {
  Table table = Populated();
  auto replaced =
      OverwriteFiles(table, PartitionFilter::All()).AddFile(File(table, "z", 3, "us")).Commit();
  ASSERT_THAT(replaced, IsOk());
  auto files = CurrentDataFiles(*replaced);
  EXPECT_EQ(Paths(*files), Paths({File(table, "z", 3, "us")}));
  EXPECT_EQ(replaced->metadata().CurrentSnapshot()->summary.at("total-records"), "3");

  auto emptied = DeleteFiles(*replaced, PartitionFilter::All()).Commit();
  ASSERT_THAT(emptied, IsOk());
  EXPECT_TRUE(CurrentDataFiles(*emptied)->empty());
  const auto& summary = emptied->metadata().CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("total-records"), "0");
  EXPECT_EQ(summary.at("total-data-files"), "0");
  EXPECT_EQ(summary.at("total-files-size"), "0");
}

TEST_F(OverwriteDeleteTest, DeleteMatchingNothingCommitsAnEmptySnapshot) {
  Table table = Populated();
  auto committed =
      DeleteFiles(table, PartitionFilter::FieldsEqual({{"region", spec::Literal::String("ap")}}))
          .Commit();
  ASSERT_THAT(committed, IsOk());
  auto snapshot = committed->metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->summary.at("changed-partition-count"), "0");
  EXPECT_EQ(snapshot->summary.at("total-records"), "35");
  EXPECT_EQ(CurrentDataFiles(*committed)->size(), 3u);
}

TEST_F(OverwriteDeleteTest, FilterOnAnUnknownFieldMatchesNothing) {
  Table table = Populated();
  auto committed =
      DeleteFiles(table, PartitionFilter::FieldsEqual({{"nope", spec::Literal::String("eu")}}))
          .Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(CurrentDataFiles(*committed)->size(), 3u);
}

TEST_F(OverwriteDeleteTest, SnapshotIsolationRebaseAlsoRemovesFilesAConcurrentCommitAdded) {
  Table table = Populated();
  OverwriteFiles overwrite(table,
                           PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}));
  overwrite.SetIsolationLevel(IsolationLevel::kSnapshot);
  overwrite.AddFile(File(table, "d", 7, "eu"));
  // A concurrent append lands first, into the partition being replaced.
  ASSERT_THAT(FastAppend(table).AppendFile(File(table, "late", 4, "eu")).Commit(), IsOk());

  auto committed = overwrite.Commit();
  ASSERT_THAT(committed, IsOk());
  auto files = CurrentDataFiles(*committed);
  EXPECT_THAT(Paths(*files), UnorderedElementsAre(File(table, "d", 7, "eu").file_path,
                                                  File(table, "b", 20, "us").file_path));
  EXPECT_EQ(committed->metadata().CurrentSnapshot()->summary.at("deleted-data-files"), "3");
  EXPECT_EQ(committed->metadata().CurrentSnapshot()->summary.at("total-records"), "27");
}

// Regression: the overwrite used to rebase over the concurrent append and
// delete its file, dropping rows the overwrite's writer never saw.
TEST_F(OverwriteDeleteTest, OverwriteFailsOnAConcurrentAppendToAReplacedPartition) {
  Table table = Populated();
  OverwriteFiles overwrite(table,
                           PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}));
  overwrite.AddFile(File(table, "d", 7, "eu"));
  // The second writer appends to "eu" between the overwrite's base and its
  // commit.
  auto appended = FastAppend(table).AppendFile(File(table, "late", 4, "eu")).Commit();
  ASSERT_THAT(appended, IsOk());

  auto committed = overwrite.Commit();
  ASSERT_THAT(committed, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(committed.error().message,
              HasSubstr("Found conflicting data files that can contain records matching "
                        "region = eu"));
  EXPECT_THAT(committed.error().message, HasSubstr(File(table, "late", 4, "eu").file_path));
  EXPECT_FALSE(committed.error().retryable);
  // Nothing changed, and the overwrite left no metadata files behind.
  auto current = table.Refresh();
  EXPECT_EQ(current->metadata_location(), appended->metadata_location());
  EXPECT_EQ(CurrentDataFiles(*current)->size(), 4u);
  for (const std::string& name : MetadataFiles(table)) {
    EXPECT_EQ(name.find(overwrite.commit_uuid()), std::string::npos) << name;
  }
}

TEST_F(OverwriteDeleteTest, OverwriteRebasesOverAConcurrentAppendToAnotherPartition) {
  Table table = Populated();
  OverwriteFiles overwrite(table,
                           PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}));
  overwrite.AddFile(File(table, "d", 7, "eu"));
  auto appended = FastAppend(table).AppendFile(File(table, "late", 4, "us")).Commit();
  ASSERT_THAT(appended, IsOk());

  auto committed = overwrite.Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(committed->metadata().CurrentSnapshot()->parent_snapshot_id,
            appended->metadata().CurrentSnapshot()->snapshot_id);
  EXPECT_THAT(Paths(*CurrentDataFiles(*committed)),
              UnorderedElementsAre(File(table, "d", 7, "eu").file_path,
                                   File(table, "b", 20, "us").file_path,
                                   File(table, "late", 4, "us").file_path));
}

TEST_F(OverwriteDeleteTest, ConflictDetectionFilterNarrowsTheCheck) {
  Table table = Populated();
  OverwriteFiles overwrite(table, PartitionFilter::All());
  overwrite.ConflictDetectionFilter(
      PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}));
  overwrite.AddFile(File(table, "d", 7, "eu"));
  ASSERT_THAT(FastAppend(table).AppendFile(File(table, "late", 4, "us")).Commit(), IsOk());
  EXPECT_THAT(overwrite.Commit(), IsOk());
}

TEST_F(OverwriteDeleteTest, OverwriteOnAnEmptyTableFailsOnAConcurrentAppend) {
  Table table = Create("events", testing::RegionSpec());
  OverwriteFiles overwrite(table, PartitionFilter::All());
  overwrite.AddFile(File(table, "d", 7, "eu"));
  ASSERT_THAT(FastAppend(table).AppendFile(File(table, "late", 4, "us")).Commit(), IsOk());
  EXPECT_THAT(overwrite.Commit(), IsError(ErrorKind::kCommitFailed));
}

TEST_F(OverwriteDeleteTest, AnAppendEarlierInTheSameTransactionIsNotAConflict) {
  Table table = Populated();
  Transaction transaction(table);
  transaction.NewFastAppend().AppendFile(File(table, "same", 4, "eu"));
  transaction.NewOverwrite(PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}))
      .AddFile(File(table, "d", 7, "eu"));
  auto committed = transaction.Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_THAT(Paths(*CurrentDataFiles(*committed)),
              UnorderedElementsAre(File(table, "d", 7, "eu").file_path,
                                   File(table, "b", 20, "us").file_path));
}

TEST_F(OverwriteDeleteTest, DeleteRebasesOverAConcurrentAppendUnlessSerializable) {
  Table table = Populated();
  PartitionFilter eu = PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}});
  DeleteFiles snapshot_delete(table, eu);
  DeleteFiles serializable_delete(table, eu);
  serializable_delete.SetIsolationLevel(IsolationLevel::kSerializable);
  ASSERT_THAT(FastAppend(table).AppendFile(File(table, "late", 4, "eu")).Commit(), IsOk());

  auto failed = serializable_delete.Commit();
  ASSERT_THAT(failed, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(failed.error().message, HasSubstr("Found conflicting data files"));
  auto deleted = snapshot_delete.Commit();
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(deleted->metadata().CurrentSnapshot()->summary.at("deleted-data-files"), "3");
}

TEST_F(OverwriteDeleteTest, FormatV3OverwriteKeepsExistingRowIds) {
  Table table = Create("v3", testing::RegionSpec(), {{"format-version", "3"}});
  auto first = FastAppend(table)
                   .AppendFile(File(table, "a", 10, "eu"))
                   .AppendFile(File(table, "b", 20, "us"))
                   .Commit();
  ASSERT_THAT(first, IsOk());
  auto replaced =
      OverwriteFiles(*first,
                     PartitionFilter::FieldsEqual({{"region", spec::Literal::String("eu")}}))
          .AddFile(File(table, "c", 5, "eu"))
          .Commit();
  ASSERT_THAT(replaced, IsOk());
  auto entries = LiveEntries(*replaced, *replaced->metadata().CurrentSnapshot());
  ASSERT_THAT(entries, IsOk());
  for (const auto& entry : *entries) {
    if (entry.data_file.file_path == File(table, "b", 20, "us").file_path) {
      EXPECT_EQ(entry.data_file.first_row_id, 10);  // assigned by the first append
    }
  }
  EXPECT_GE(replaced->metadata().next_row_id, 35);
}

// Regression: partition values were compared with ==, so a NaN partition
// never matched itself and --replace-partitions kept adding to it.
TEST(PartitionFilterTest, FloatingPointValuesCompareAsIcebergJava) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  spec::PartitionSpec spec;
  spec.fields.push_back({1, {}, 1000, "f", spec::Transform::Identity()});
  PartitionFilter tuples = PartitionFilter::Tuples(0, {{spec::Literal::Double(nan)}});
  EXPECT_TRUE(tuples.Matches(spec, std::vector<spec::Literal>{spec::Literal::Double(nan)}));
  EXPECT_TRUE(tuples.Matches(spec, std::vector<spec::Literal>{spec::Literal::Double(-nan)}));
  EXPECT_FALSE(tuples.Matches(spec, std::vector<spec::Literal>{spec::Literal::Double(1.0)}));
  PartitionFilter fields = PartitionFilter::FieldsEqual({{"f", spec::Literal::Float(NAN)}});
  EXPECT_TRUE(fields.Matches(spec, std::vector<spec::Literal>{spec::Literal::Float(NAN)}));
  // -0.0 and 0.0 are two partitions, as Double.compare and the writer's
  // partition split (by bytes) have them.
  PartitionFilter zero = PartitionFilter::Tuples(0, {{spec::Literal::Double(0.0)}});
  EXPECT_TRUE(zero.Matches(spec, std::vector<spec::Literal>{spec::Literal::Double(0.0)}));
  EXPECT_FALSE(zero.Matches(spec, std::vector<spec::Literal>{spec::Literal::Double(-0.0)}));
  EXPECT_TRUE(SamePartition({spec::Literal::Double(nan), spec::Literal::String("a")},
                            {spec::Literal::Double(nan), spec::Literal::String("a")}));
  EXPECT_FALSE(SamePartitionValue(spec::Literal::Double(nan), spec::Literal::Float(NAN)));
}

}  // namespace
}  // namespace skade::table
