#include "skade/ingest/ingest.h"

#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include "ingest_test_util.h"
#include "skade/data/arrow_schema.h"
#include "skade/table/partition_filter.h"
#include "skade/util/worker_pool.h"
#include "testing/latency_file_io.h"

namespace skade::ingest {
namespace {

using testing::IngestTest;
using testing::IsError;
using testing::IsOk;
using testing::RowsPerRegion;

TEST_F(IngestTest, AppendRollsFilesAndCommitsOnce) {
  table::Table table = Create("events", nullptr, {{"write.target-file-size-bytes", "20000"}});
  RecordBatchGroup batches;
  for (int i = 0; i < 10; ++i) {
    for (auto& batch : testing::EventGroup(i * 1000, 1000, 1)) batches.push_back(batch);
  }
  auto result = Append(table, batches);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.commits, 1);
  EXPECT_EQ(result->stats.rows, 10000);
  EXPECT_GT(result->stats.files, 1);
  EXPECT_EQ(result->table.metadata().snapshots.size(), 1u);
  std::vector<RecordBatchGroup> groups = {batches};
  EXPECT_EQ(testing::CommittedRows(result->table), testing::RowsOf(groups));
}

TEST_F(IngestTest, ParallelIngestIsOneSnapshot) {
  table::Table table = Create("events");
  auto groups = testing::EventGroups(6, 300);
  IngestOptions options;
  options.files_per_commit = 2;  // ignored
  auto result = IngestParallel(table, groups, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.commits, 1);
  EXPECT_EQ(result->stats.files, 6);
  EXPECT_EQ(result->table.metadata().CurrentSnapshot()->summary.at("added-data-files"), "6");
  EXPECT_EQ(testing::CommittedRows(result->table), testing::RowsOf(groups));
}

TEST_F(IngestTest, PartitionedGroupsSplitIntoOneFilePerPartition) {
  table::Table table = Create("events", testing::RegionSpec());
  auto groups = testing::EventGroups(4, 90);
  IngestOptions options;
  options.files_per_commit = 6;
  options.file_prefix = "p";
  auto result = IngestPipelinedOverlap(table, groups, options);
  ASSERT_THAT(result, IsOk());
  // Each group of 90 rows touches all three regions: 12 files, 2 snapshots
  // (in one catalog commit if the second group was written by the time the
  // first could commit).
  EXPECT_EQ(result->stats.files, 12);
  EXPECT_EQ(result->stats.snapshots, 2);
  EXPECT_GE(result->stats.commits, 1);
  EXPECT_LE(result->stats.commits, 2);
  auto entries = testing::CommittedInOrder(result->table);
  ASSERT_EQ(entries.size(), 12u);
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string& path = entries[i].data_file.file_path;
    std::string region = std::get<std::string>(entries[i].data_file.partition[0].value());
    EXPECT_NE(path.find("/data/region=" + region + "/"), std::string::npos) << path;
    char name[32];
    std::snprintf(name, sizeof(name), "p-%08zu.parquet", i);
    EXPECT_EQ(testing::FileName(path), name);
  }
  EXPECT_EQ(RowsPerRegion(result->table),
            (std::map<std::string, int64_t>{{"ap", 120}, {"eu", 120}, {"us", 120}}));
  // Rows of one partition keep their input order.
  std::vector<int64_t> eu_ids;
  for (const auto& entry : entries) {
    if (std::get<std::string>(entry.data_file.partition[0].value()) != "eu") continue;
    for (const auto& row : testing::RowsOf(*testing::ReadParquet(entry.data_file.file_path))) {
      eu_ids.push_back(row.id);
    }
  }
  EXPECT_TRUE(std::is_sorted(eu_ids.begin(), eu_ids.end()));
}

TEST_F(IngestTest, ReplacePartitionsReplacesOnlyTheWrittenPartitions) {
  table::Table table = Create("events", testing::RegionSpec());
  auto first = IngestParallel(table, testing::EventGroups(2, 90));
  ASSERT_THAT(first, IsOk());
  // New data for "eu" only (ids 0-2 are eu).
  IngestOptions options;
  options.replace_partitions = true;
  auto replaced = IngestParallel(first->table, {testing::EventGroup(0, 3)}, options);
  ASSERT_THAT(replaced, IsOk());
  auto snapshot = replaced->table.metadata().CurrentSnapshot();
  EXPECT_EQ(snapshot->operation(), "overwrite");
  EXPECT_EQ(snapshot->summary.at("deleted-records"), "60");
  EXPECT_EQ(RowsPerRegion(replaced->table),
            (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 3}, {"us", 60}}));
}

// An overwrite by filter is one snapshot whatever files_per_commit says:
// split over several, readers would see the replaced rows gone before the
// new ones were all there.
TEST_F(IngestTest, OverwriteFilterCommitsOneSnapshotAtTheEnd) {
  table::Table table = Create("events", testing::RegionSpec());
  auto first = IngestParallel(table, testing::EventGroups(2, 90));
  ASSERT_THAT(first, IsOk());
  IngestOptions options;
  options.overwrite =
      table::PartitionFilter::FieldsEqual({{"region", spec::Literal::String("us")}});
  options.files_per_commit = 1;
  // Ids 3-5 and 12-14 are us: rows inside the filter only (others are
  // refused, see ReplaceTest.AnOverwriteRefusesRowsOutsideItsFilter).
  auto result = IngestPipelined(first->table,
                                {testing::EventGroup(3, 3), testing::EventGroup(12, 3)}, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.commits, 1);
  const auto& snapshots = result->table.metadata().snapshots;
  ASSERT_EQ(snapshots.size(), 2u);
  EXPECT_EQ(snapshots[1]->operation(), "overwrite");
  EXPECT_EQ(snapshots[1]->summary.at("added-data-files"), "2");
  EXPECT_EQ(RowsPerRegion(result->table),
            (std::map<std::string, int64_t>{{"ap", 60}, {"eu", 60}, {"us", 6}}));
}

TEST_F(IngestTest, NestedColumnsRoundTrip) {
  using spec::Type;
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", Type::Long(), true, {}, {}, {}},
             {2,
              "point",
              Type::Struct({{3, "x", Type::Double(), false, {}, {}, {}},
                            {4, "label", Type::String(), false, {}, {}, {}}}),
              false,
              {},
              {},
              {}},
             {5,
              "tags",
              Type::List({6, "element", Type::String(), false, {}, {}, {}}),
              false,
              {},
              {},
              {}},
             {7,
              "props",
              Type::Map({8, "key", Type::String(), true, {}, {}, {}},
                        {9, "value", Type::Long(), false, {}, {}, {}}),
              false,
              {},
              {},
              {}},
         });
  table::Table table = Create("nested", nullptr, {{"format-version", "3"}}, schema);
  auto arrow_schema = *data::ToArrowSchema(*schema);
  auto rows = arrow::json::ArrayFromJSONString(arrow::struct_(arrow_schema->fields()), R"([
      {"id": 1, "point": {"x": 1.5, "label": "a"}, "tags": ["x", null], "props": [["k", 1]]},
      {"id": 2, "point": null, "tags": [], "props": null},
      {"id": 3, "point": {"x": null, "label": null}, "tags": null, "props": [["a", null], ["b", 2]]}
  ])");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  auto batch = arrow::RecordBatch::FromStructArray(*rows).ValueOrDie();
  auto result = IngestPipelinedOverlap(table, {{batch}, {batch}});
  ASSERT_THAT(result, IsOk());
  auto entries = testing::CommittedInOrder(result->table);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].data_file.first_row_id, 3);  // v3 row lineage
  auto read = testing::ReadParquet(entries[0].data_file.file_path);
  auto expected = arrow::Table::FromRecordBatches({batch}).ValueOrDie();
  EXPECT_TRUE(read->Equals(*expected)) << read->ToString() << "\n" << expected->ToString();
  EXPECT_EQ(result->table.metadata().next_row_id, 6);
}

TEST_F(IngestTest, RejectsBatchesThatDoNotFitTheSchemaAndWritesNothing) {
  table::Table table = Create("events");
  auto bad = arrow::RecordBatch::Make(arrow::schema({arrow::field("other", arrow::int64())}), 0,
                                      std::vector<std::shared_ptr<arrow::Array>>{
                                          arrow::MakeArrayOfNull(arrow::int64(), 0).ValueOrDie()});
  auto result = IngestPipelined(table, {testing::EventGroup(0, 10), {bad}});
  EXPECT_THAT(result, IsError(ErrorKind::kInvalidArgument));
  EXPECT_TRUE(DataFilesOnDisk(table).empty());
  EXPECT_TRUE(table.Refresh()->metadata().snapshots.empty());
}

TEST_F(IngestTest, ReportsProgressPerFileAndCommit) {
  table::Table table = Create("events");
  std::vector<IngestProgress> reports;
  IngestOptions options;
  options.files_per_commit = 2;
  options.progress = [&](const IngestProgress& progress) { reports.push_back(progress); };
  auto result = IngestPipelinedOverlap(table, testing::EventGroups(6, 10), options);
  ASSERT_THAT(result, IsOk());
  // One report per file written and per catalog commit (a commit may
  // chain several of the 3 snapshots).
  EXPECT_EQ(result->stats.snapshots, 3);
  ASSERT_EQ(reports.size(), 6u + static_cast<size_t>(result->stats.commits));
  EXPECT_EQ(reports.back().files_written, 6);
  EXPECT_EQ(reports.back().rows_written, 60);
  EXPECT_EQ(reports.back().commits, result->stats.commits);
  EXPECT_EQ(reports.back().files_total, 6);
  EXPECT_EQ(reports.back().bytes_written, result->stats.bytes);
}

TEST_F(IngestTest, SameBytesOnAPrivatePoolOfOneWorker) {
  auto groups = testing::EventGroups(5, 200);
  WorkerPool one(1);
  IngestOptions options;
  options.file_prefix = "x";
  auto all_cores = IngestParallel(Create("a"), groups, options);
  options.pool = &one;
  auto single = IngestParallel(Create("b"), groups, options);
  ASSERT_THAT(all_cores, IsOk());
  ASSERT_THAT(single, IsOk());
  auto a = testing::CommittedInOrder(all_cores->table);
  auto b = testing::CommittedInOrder(single->table);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(*all_cores->table.io().ReadFile(a[i].data_file.file_path),
              *single->table.io().ReadFile(b[i].data_file.file_path));
  }
}

TEST_F(IngestTest, AppendAndThePipelinesNameFilesByOneRule) {
  // Partitioned and rolling, so files start in another order than the
  // writer lists them.
  catalog::Properties small = {{"write.target-file-size-bytes", "20000"}};
  RecordBatchGroup batches;
  for (int i = 0; i < 6; ++i) {
    for (auto& batch : testing::EventGroup(i * 1000, 1000, 1)) batches.push_back(batch);
  }
  IngestOptions options;
  options.file_prefix = "same";
  auto appended = Append(Create("append", testing::RegionSpec(), small), batches, options);
  auto pipelined =
      IngestPipelined(Create("pipelined", testing::RegionSpec(), small), {batches}, options);
  ASSERT_THAT(appended, IsOk());
  ASSERT_THAT(pipelined, IsOk());
  auto files = [](const table::Table& table) {
    std::map<std::string, std::string> bytes;  // partition dir + name -> bytes
    for (const auto& entry : testing::CommittedInOrder(table)) {
      const std::string& path = entry.data_file.file_path;
      std::string dir = path.substr(0, path.rfind('/'));
      bytes[StrCat(dir.substr(dir.rfind('/') + 1), "/", testing::FileName(path))] =
          *table.io().ReadFile(path);
    }
    return bytes;
  };
  auto expected = files(appended->table);
  ASSERT_GT(expected.size(), 3u);
  EXPECT_EQ(expected.count("region=eu/same-00000000.parquet"), 1u);
  EXPECT_TRUE(files(pipelined->table) == expected);
}

TEST(LatencyFileIOTest, DelaysWritesByKind) {
  skade::testing::TempDir dir;
  skade::testing::LatencyFileIO io(io::NewLocalFileIO(), std::chrono::milliseconds(1),
                                   std::chrono::milliseconds(30));
  EXPECT_EQ(io.LatencyOf("file:///t/metadata/snap-1.avro"), std::chrono::milliseconds(30));
  EXPECT_EQ(io.LatencyOf("file:///t/data/a=1/f.parquet"), std::chrono::milliseconds(1));
  auto start = std::chrono::steady_clock::now();
  ASSERT_THAT(io.WriteFile(dir.Sub("metadata/x.json"), "{}", false), IsOk());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_EQ(*io.ReadFile(dir.Sub("metadata/x.json")), "{}");
}

}  // namespace
}  // namespace skade::ingest
