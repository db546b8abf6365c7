#include "skade/table/fast_append.h"

#include <gtest/gtest.h>

#include <regex>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"
#include "skade/table/snapshot_scan.h"
#include "table_fixture.h"

namespace skade::table {
namespace {

using testing::IsOk;
using testing::TableTest;

using Summary = std::map<std::string, std::string>;

avro::ManifestList ReadList(io::FileIO& io, const spec::Snapshot& snapshot) {
  auto bytes = io.ReadFile(snapshot.manifest_list);
  EXPECT_TRUE(bytes) << bytes.error().ToString();
  auto list = avro::ReadManifestList(*bytes);
  EXPECT_TRUE(list) << list.error().ToString();
  return *list;
}

class FastAppendTest : public TableTest {};

TEST_F(FastAppendTest, FirstAppendWritesManifestListAndSummaryAsJava) {
  Table table = Create("events");
  FastAppend append(table);
  append.AppendFile(File(table, "a", 10)).AppendFile(File(table, "b", 20));
  auto committed = append.Commit();
  ASSERT_THAT(committed, IsOk());

  const spec::TableMetadata& m = committed->metadata();
  auto snapshot = m.CurrentSnapshot();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->snapshot_id, append.snapshot_id());
  EXPECT_FALSE(snapshot->parent_snapshot_id.has_value());
  EXPECT_EQ(snapshot->sequence_number, 1);
  EXPECT_EQ(m.last_sequence_number, 1);
  EXPECT_EQ(snapshot->schema_id, 0);
  EXPECT_EQ(snapshot->summary, (Summary{{"operation", "append"},
                                        {"added-data-files", "2"},
                                        {"added-records", "30"},
                                        {"added-files-size", "500"},
                                        {"changed-partition-count", "1"},
                                        {"total-records", "30"},
                                        {"total-files-size", "500"},
                                        {"total-data-files", "2"},
                                        {"total-delete-files", "0"},
                                        {"total-position-deletes", "0"},
                                        {"total-equality-deletes", "0"}}));

  // Names as Iceberg Java writes them.
  const std::string dir = spec::MetadataDirectory(m);
  EXPECT_EQ(snapshot->manifest_list,
            StrCat(dir, "/snap-", append.snapshot_id(), "-1-", append.commit_uuid(), ".avro"));
  avro::ManifestList list = ReadList(*io_, *snapshot);
  EXPECT_EQ(list.metadata.snapshot_id, append.snapshot_id());
  EXPECT_EQ(list.metadata.sequence_number, 1);
  ASSERT_EQ(list.manifests.size(), 1u);
  const spec::ManifestFile& manifest = list.manifests[0];
  EXPECT_EQ(manifest.manifest_path, StrCat(dir, "/", append.commit_uuid(), "-m0.avro"));
  EXPECT_EQ(manifest.added_files_count, 2);
  EXPECT_EQ(manifest.added_rows_count, 30);
  EXPECT_EQ(manifest.sequence_number, 1);
  EXPECT_EQ(manifest.min_sequence_number, 1);
  EXPECT_EQ(manifest.added_snapshot_id, append.snapshot_id());

  auto files = CurrentDataFiles(*committed);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(Paths(*files), Paths({File(table, "a", 10), File(table, "b", 20)}));
}

TEST_F(FastAppendTest, SecondAppendReusesParentManifestsAndCarriesTotals) {
  Table table = Create("events");
  auto first = FastAppend(table).AppendFile(File(table, "a", 10)).Commit();
  ASSERT_THAT(first, IsOk());
  FastAppend second(*first);
  second.AppendFile(File(table, "b", 5));
  auto committed = second.Commit();
  ASSERT_THAT(committed, IsOk());

  auto parent = first->metadata().CurrentSnapshot();
  auto snapshot = committed->metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->parent_snapshot_id, parent->snapshot_id);
  EXPECT_EQ(snapshot->sequence_number, 2);
  EXPECT_EQ(snapshot->summary.at("added-records"), "5");
  EXPECT_EQ(snapshot->summary.at("total-records"), "15");
  EXPECT_EQ(snapshot->summary.at("total-data-files"), "2");
  EXPECT_EQ(snapshot->summary.at("total-files-size"), "350");

  // New manifest first, the parent's manifest untouched after it.
  avro::ManifestList parent_list = ReadList(*io_, *parent);
  avro::ManifestList list = ReadList(*io_, *snapshot);
  ASSERT_EQ(list.manifests.size(), 2u);
  EXPECT_EQ(list.manifests[0].added_snapshot_id, second.snapshot_id());
  EXPECT_EQ(list.manifests[0].sequence_number, 2);
  EXPECT_EQ(list.manifests[1], parent_list.manifests[0]);

  auto files = CurrentDataFiles(*committed);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(Paths(*files), Paths({File(table, "b", 5), File(table, "a", 10)}));
}

// Each append through the committed handle copies its parent's manifests
// as encoded blocks; past the limit one list encodes them all again. Every
// list reads back as if each had been encoded whole.
TEST_F(FastAppendTest, ChainedAppendsCopyTheParentsBlocksUpToTheLimit) {
  Table table = Create("events", nullptr, {{"format-version", "3"}});
  constexpr int kAppends = 2 * avro::EncodedManifests::kMaxCopiedBlocks + 3;
  int64_t max_blocks = 0;
  bool encoded_again = false;
  for (int i = 0; i < kAppends; ++i) {
    SCOPED_TRACE(i);
    auto committed = FastAppend(table).AppendFile(File(table, "f" + std::to_string(i), 2)).Commit();
    ASSERT_THAT(committed, IsOk());
    table = *committed;
    ASSERT_NE(table.written_list(), nullptr);
    int64_t blocks = table.written_list()->encoded->block_count;
    max_blocks = std::max(max_blocks, blocks);
    encoded_again |= i > 0 && blocks == 1;

    auto snapshot = table.metadata().CurrentSnapshot();
    avro::ManifestList list = ReadList(*io_, *snapshot);
    EXPECT_EQ(list.manifests, table.written_list()->manifests);
    ASSERT_EQ(list.manifests.size(), static_cast<size_t>(i + 1));
    for (int k = 0; k <= i; ++k) {
      const spec::ManifestFile& manifest = list.manifests[static_cast<size_t>(i - k)];
      EXPECT_EQ(manifest.sequence_number, k + 1);
      EXPECT_EQ(manifest.first_row_id, 2 * k);
    }
  }
  EXPECT_EQ(max_blocks, avro::EncodedManifests::kMaxCopiedBlocks);
  EXPECT_TRUE(encoded_again);
  auto files = CurrentDataFiles(table);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(files->size(), static_cast<size_t>(kAppends));
}

TEST_F(FastAppendTest, PartitionedAppendCountsChangedPartitions) {
  Table table = Create("events", testing::RegionSpec());
  auto committed = FastAppend(table)
                       .AppendFile(File(table, "a", 1, "eu"))
                       .AppendFile(File(table, "b", 2, "us"))
                       .AppendFile(File(table, "c", 3, "eu"))
                       .Commit();
  ASSERT_THAT(committed, IsOk());
  auto snapshot = committed->metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->summary.at("changed-partition-count"), "2");
  EXPECT_EQ(snapshot->summary.at("added-data-files"), "3");

  avro::ManifestList list = ReadList(*io_, *snapshot);
  ASSERT_EQ(list.manifests.size(), 1u);
  ASSERT_EQ(list.manifests[0].partitions.size(), 1u);
  EXPECT_EQ(list.manifests[0].partitions[0].lower_bound, "eu");
  EXPECT_EQ(list.manifests[0].partitions[0].upper_bound, "us");
}

TEST_F(FastAppendTest, FormatV3AssignsRowLineage) {
  Table table = Create("events", nullptr, {{"format-version", "3"}});
  auto first = FastAppend(table).AppendFile(File(table, "a", 10)).Commit();
  ASSERT_THAT(first, IsOk());
  auto second =
      FastAppend(*first).AppendFile(File(table, "b", 7)).AppendFile(File(table, "c", 3)).Commit();
  ASSERT_THAT(second, IsOk());

  auto s1 = first->metadata().CurrentSnapshot();
  EXPECT_EQ(s1->first_row_id, 0);
  EXPECT_EQ(s1->added_rows, 10);
  auto s2 = second->metadata().CurrentSnapshot();
  EXPECT_EQ(s2->first_row_id, 10);
  EXPECT_EQ(s2->added_rows, 10);
  EXPECT_EQ(second->metadata().next_row_id, 20);

  avro::ManifestList list = ReadList(*io_, *s2);
  EXPECT_EQ(list.metadata.first_row_id, 10);
  ASSERT_EQ(list.manifests.size(), 2u);
  EXPECT_EQ(list.manifests[0].first_row_id, 10);
  EXPECT_EQ(list.manifests[1].first_row_id, 0);

  auto entries = LiveEntries(*second, *s2);
  ASSERT_THAT(entries, IsOk());
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].data_file.first_row_id, 10);  // b
  EXPECT_EQ((*entries)[1].data_file.first_row_id, 17);  // c
  EXPECT_EQ((*entries)[2].data_file.first_row_id, 0);   // a
}

TEST_F(FastAppendTest, FormatV1HasNoSequenceNumbers) {
  Table table = Create("events", nullptr, {{"format-version", "1"}});
  auto first = FastAppend(table).AppendFile(File(table, "a", 10)).Commit();
  ASSERT_THAT(first, IsOk());
  auto second = FastAppend(*first).AppendFile(File(table, "b", 1)).Commit();
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->metadata().CurrentSnapshot()->sequence_number, 0);
  EXPECT_EQ(second->metadata().last_sequence_number, 0);
  auto files = CurrentDataFiles(*second);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(files->size(), 2u);
}

TEST_F(FastAppendTest, HonoursWriteMetadataPath) {
  std::string metadata_dir = "file://" + dir_.Sub("elsewhere/meta");
  Table table = Create("events", nullptr, {{"write.metadata.path", metadata_dir + "/"}});
  FastAppend append(table);
  auto committed = append.AppendFile(File(table, "a", 1)).Commit();
  ASSERT_THAT(committed, IsOk());
  EXPECT_TRUE(
      committed->metadata().CurrentSnapshot()->manifest_list.starts_with(metadata_dir + "/snap-"));
  EXPECT_TRUE(Exists(StrCat(metadata_dir, "/", append.commit_uuid(), "-m0.avro")));
  EXPECT_EQ(spec::DataFileLocation(committed->metadata(), "a=1", "f.parquet"),
            committed->metadata().location + "/data/a=1/f.parquet");
}

TEST_F(FastAppendTest, HonoursWriteDataPath) {
  const std::string data = "file://" + dir_.Sub("lake/data");
  Table table = Create("events", nullptr, {{"write.data.path", data + "/"}});
  EXPECT_EQ(spec::DataFileLocation(table.metadata(), "", "f.parquet"), data + "/f.parquet");
  EXPECT_EQ(spec::DataFileLocation(table.metadata(), "a=1", "f.parquet"), data + "/a=1/f.parquet");
}

TEST_F(FastAppendTest, RejectsFilesOfUnknownSpecAndLeavesNothing) {
  Table table = Create("events");
  spec::DataFile file = File(table, "a", 1);
  file.spec_id = 7;
  auto committed = FastAppend(table).AppendFile(file).Commit();
  EXPECT_THAT(committed, testing::IsError(ErrorKind::kInvalidArgument));
  auto reloaded = table.Refresh();
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_EQ(reloaded->metadata().CurrentSnapshot(), nullptr);
  for (const std::string& name : MetadataFiles(table)) {
    EXPECT_TRUE(name.ends_with(".metadata.json")) << name;
  }
}

}  // namespace
}  // namespace skade::table
