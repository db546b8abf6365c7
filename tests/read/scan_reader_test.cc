// ReadScan as a whole: the pool of decoders, ordered and completion-order
// output, limits, progress, errors, residual filters and early destruction.
#include "skade/read/scan_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "read/read_test_util.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::read {
namespace {

using spec::NestedField;
using spec::Type;
using testing::Plan;
using testing::Task;

spec::SchemaPtr Schema() {
  return testing::MakeSchema(
      {NestedField{1, "id", Type::Long(), true}, NestedField{2, "name", Type::String(), false}});
}

// `files` files of `rows` rows each; ids count up across files.
std::vector<scan::FileScanTask> WriteFiles(io::FileIO& io, const skade::testing::TempDir& dir,
                                           int files, int rows) {
  auto schema = Schema();
  std::vector<scan::FileScanTask> tasks;
  for (int f = 0; f < files; ++f) {
    std::string json = "[";
    for (int r = 0; r < rows; ++r) {
      int id = f * rows + r;
      if (r > 0) json += ",";
      json += "{\"id\": " + std::to_string(id) + ", \"name\": " +
              (id % 5 == 0 ? std::string("null") : "\"n" + std::to_string(id % 7) + "\"") + "}";
    }
    json += "]";
    tasks.push_back(Task(testing::WriteDataFile(io, dir.Sub("f" + std::to_string(f) + ".parquet"),
                                                schema, {testing::Rows(*schema, json)})));
  }
  return tasks;
}

std::vector<std::string> AllRows(int files, int rows) {
  std::vector<std::string> out;
  for (int id = 0; id < files * rows; ++id) {
    out.push_back(std::to_string(id) + "|" +
                  (id % 5 == 0 ? std::string("null") : "n" + std::to_string(id % 7)));
  }
  return out;
}

TEST(ScanReaderTest, OrderedOutputFollowsTheTasks) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 12, 50);
  ScanReadOptions options;
  options.ordered = true;
  options.threads = 4;
  options.batch_rows = 7;
  auto output = testing::ReadAll(Plan(Schema(), {1, 2}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, AllRows(12, 50));
  EXPECT_GE(output.batches, 12 * 8);  // at most 7 rows a batch
}

TEST(ScanReaderTest, ParallelUnorderedReadsTheSameRowsAsSerial) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 10, 40);
  ScanReadOptions serial;
  serial.threads = 1;
  serial.ordered = true;
  auto one = testing::ReadAll(Plan(Schema(), {2, 1}, tasks), *io, serial);
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  ScanReadOptions parallel;
  parallel.threads = 4;
  parallel.batch_rows = 3;
  auto many = testing::ReadAll(Plan(Schema(), {2, 1}, tasks), *io, parallel);
  ASSERT_TRUE(many.status.ok()) << many.status.ToString();
  EXPECT_EQ(many.rows.size(), 400u);
  EXPECT_EQ(testing::Sorted(many.rows), testing::Sorted(one.rows));
}

TEST(ScanReaderTest, LimitStopsEarly) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 20, 30);
  for (bool ordered : {true, false}) {
    ScanReadOptions options;
    options.ordered = ordered;
    options.threads = 3;
    options.batch_rows = 8;
    options.limit = 45;
    int64_t last_tasks_done = 0;
    options.on_progress = [&](const ScanProgress& progress) {
      last_tasks_done = progress.tasks_done;
    };
    auto output = testing::ReadAll(Plan(Schema(), {1}, tasks), *io, options);
    ASSERT_TRUE(output.status.ok()) << output.status.ToString();
    EXPECT_EQ(output.rows.size(), 45u);
    if (ordered) {
      auto all = AllRows(20, 30);
      for (size_t i = 0; i < 45; ++i) EXPECT_EQ(output.rows[i], all[i].substr(0, all[i].find('|')));
    }
    EXPECT_LT(last_tasks_done, 20);
  }
  ScanReadOptions none;
  none.limit = 0;
  auto output = testing::ReadAll(Plan(Schema(), {1}, tasks), *io, none);
  ASSERT_TRUE(output.status.ok());
  EXPECT_TRUE(output.rows.empty());
}

TEST(ScanReaderTest, ProgressCountsTasksBytesAndRows) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 5, 20);
  int64_t bytes = 0;
  for (const auto& task : tasks) bytes += task.data_file.file_size_in_bytes;
  std::vector<ScanProgress> seen;
  ScanReadOptions options;
  options.threads = 2;
  options.on_progress = [&](const ScanProgress& progress) { seen.push_back(progress); };
  auto output = testing::ReadAll(Plan(Schema(), {1, 2}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().tasks_done, 5);
  EXPECT_EQ(seen.back().tasks_total, 5);
  EXPECT_EQ(seen.back().bytes_done, bytes);
  EXPECT_EQ(seen.back().bytes_total, bytes);
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GT(seen[i].tasks_done, seen[i - 1].tasks_done);
    EXPECT_GE(seen[i].rows_out, seen[i - 1].rows_out);
  }
}

TEST(ScanReaderTest, AMissingFileEndsTheStreamWithAnError) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 4, 10);
  tasks[2].data_file.file_path = dir.Sub("missing.parquet");
  for (bool ordered : {true, false}) {
    ScanReadOptions options;
    options.ordered = ordered;
    options.threads = 2;
    auto output = testing::ReadAll(Plan(Schema(), {1}, tasks), *io, options);
    EXPECT_FALSE(output.status.ok());
    EXPECT_NE(output.status.message().find("missing.parquet"), std::string::npos)
        << output.status.ToString();
    if (ordered) {
      EXPECT_EQ(output.rows.size(), 20u);  // the two tasks before it
    }
  }
}

TEST(ScanReaderTest, AFileThatIsNotParquetIsAnError) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 1, 10);
  std::ofstream(dir.Sub("junk.parquet")) << "this is not a parquet file at all";
  tasks[0].data_file.file_path = dir.Sub("junk.parquet");
  auto output = testing::ReadAll(Plan(Schema(), {1}, tasks), *io);
  EXPECT_FALSE(output.status.ok());
  EXPECT_NE(output.status.message().find("junk.parquet"), std::string::npos)
      << output.status.ToString();
}

TEST(ScanReaderTest, ResidualFiltersRows) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 3, 20);
  expr::BoundTerm id{1, Type::Long(), std::nullopt, Type::Long(), false};
  expr::BoundTerm name{2, Type::String(), std::nullopt, Type::String(), true};
  // id < 25 and (name is null or name = "n3"), on a column not projected.
  auto residual = expr::BoundExpression::And(
      expr::BoundExpression::Predicate(expr::Operation::kLt, id, {spec::Literal::Long(25)}),
      expr::BoundExpression::Or(expr::BoundExpression::Predicate(expr::Operation::kIsNull, name),
                                expr::BoundExpression::Predicate(expr::Operation::kEq, name,
                                                                 {spec::Literal::String("n3")})));
  for (auto& task : tasks) task.residual = residual;
  ScanReadOptions options;
  options.ordered = true;
  auto output = testing::ReadAll(Plan(Schema(), {1}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  // Nulls at multiples of 5; "n3" at id % 7 == 3.
  EXPECT_EQ(output.rows, (std::vector<std::string>{"0", "3", "5", "10", "15", "17", "20", "24"}));
  for (auto& task : tasks) task.residual = expr::BoundExpression::False();
  output = testing::ReadAll(Plan(Schema(), {1}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok());
  EXPECT_TRUE(output.rows.empty());
}

TEST(ScanReaderTest, AnEmptyPlanReadsNothing) {
  auto io = io::NewLocalFileIO();
  auto output = testing::ReadAll(Plan(Schema(), {1, 2}, {}), *io);
  ASSERT_TRUE(output.status.ok());
  EXPECT_TRUE(output.rows.empty());
  EXPECT_EQ(output.schema->num_fields(), 2);
}

// Destroying the reader with decoders blocked on the full hand-over (and
// tasks not started) returns; run under the test, not timed.
TEST(ScanReaderTest, DestroyingTheReaderEarlyStopsThePool) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto tasks = WriteFiles(*io, dir, 16, 100);
  for (bool ordered : {true, false}) {
    ScanReadOptions options;
    options.ordered = ordered;
    options.threads = 4;
    options.batch_rows = 5;
    auto reader = ReadScan(Plan(Schema(), {1, 2}, tasks), *io, options);
    ASSERT_THAT(reader, skade::testing::IsOk());
    std::shared_ptr<arrow::RecordBatch> batch;
    ASSERT_TRUE((*reader)->ReadNext(&batch).ok());
    ASSERT_NE(batch, nullptr);
    reader->reset();
  }
  auto unread = ReadScan(Plan(Schema(), {1, 2}, tasks), *io, {});
  ASSERT_THAT(unread, skade::testing::IsOk());
  unread->reset();
}

}  // namespace
}  // namespace skade::read
