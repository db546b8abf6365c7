// ReadScan as a whole: the pool of decoders, ordered and completion-order
// output, limits, progress, errors, residual filters and early destruction.
#include "skade/read/scan_reader.h"

#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "read/read_test_util.h"
#include "skade/expr/row_evaluator.h"
#include "skade/io/forwarding_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::read {
namespace {

using spec::NestedField;
using spec::Type;
using testing::Plan;
using testing::Task;

// `files` files of `rows` rows each; ids count up across files.
std::vector<scan::FileScanTask> WriteFiles(io::FileIO& io, const skade::testing::TempDir& dir,
                                           int files, int rows) {
  auto schema = testing::IdNameSchema();
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
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1, 2}, tasks), *io, options);
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
  auto one = testing::ReadAll(Plan(testing::IdNameSchema(), {2, 1}, tasks), *io, serial);
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  ScanReadOptions parallel;
  parallel.threads = 4;
  parallel.batch_rows = 3;
  auto many = testing::ReadAll(Plan(testing::IdNameSchema(), {2, 1}, tasks), *io, parallel);
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
    auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io, options);
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
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io, none);
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
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1, 2}, tasks), *io, options);
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
    auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io, options);
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
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io);
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
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  // Nulls at multiples of 5; "n3" at id % 7 == 3.
  EXPECT_EQ(output.rows, (std::vector<std::string>{"0", "3", "5", "10", "15", "17", "20", "24"}));
  for (auto& task : tasks) task.residual = expr::BoundExpression::False();
  output = testing::ReadAll(Plan(testing::IdNameSchema(), {1}, tasks), *io, options);
  ASSERT_TRUE(output.status.ok());
  EXPECT_TRUE(output.rows.empty());
}

// Counts the bytes read through its input files.
class CountingReadsFileIO : public io::ForwardingFileIO {
 public:
  CountingReadsFileIO() : ForwardingFileIO(io::NewLocalFileIO()) {}

  Result<std::unique_ptr<io::InputFile>> NewInputFile(std::string_view location) override {
    SKADE_ASSIGN_OR_RAISE(auto file, inner().NewInputFile(location));
    ++opened;
    return std::unique_ptr<io::InputFile>(new CountingInputFile(std::move(file), &bytes_));
  }

  int64_t bytes() const { return bytes_.load(); }

 private:
  class CountingInputFile : public io::InputFile {
   public:
    CountingInputFile(std::unique_ptr<io::InputFile> inner, std::atomic<int64_t>* bytes)
        : inner_(std::move(inner)), bytes_(bytes) {}
    int64_t Size() const override { return inner_->Size(); }
    Result<int64_t> ReadAt(int64_t offset, int64_t length, char* out) override {
      auto read = inner_->ReadAt(offset, length, out);
      if (read) *bytes_ += *read;
      return read;
    }

   private:
    std::unique_ptr<io::InputFile> inner_;
    std::atomic<int64_t>* bytes_;
  };

  std::atomic<int64_t> bytes_{0};

 public:
  std::atomic<int> opened{0};
};

// Row groups whose statistics rule the residual out are not read; what is
// read still matches EvaluateRow row for row.
TEST(ScanReaderTest, RowGroupsThatCannotMatchAreSkipped) {
  skade::testing::TempDir dir;
  CountingReadsFileIO io;
  // 20 row groups of 1000 ids each, names long enough that the data
  // dwarfs the footer.
  constexpr int kRows = 20000;
  std::vector<std::string> names;
  arrow::Int64Builder ids;
  arrow::StringBuilder strings;
  for (int id = 0; id < kRows; ++id) {
    names.push_back("n" + std::to_string(id % 7) + "-" + std::to_string(id * 2654435761u));
    ASSERT_TRUE(ids.Append(id).ok());
    ASSERT_TRUE(strings.Append(names.back()).ok());
  }
  auto arrow_schema = data::ToArrowSchema(*testing::IdNameSchema()).value();
  auto batch = arrow::RecordBatch::Make(arrow_schema, kRows,
                                        {ids.Finish().ValueOrDie(), strings.Finish().ValueOrDie()});
  auto file = testing::WriteArrowFile(dir.Sub("a.parquet"), batch, 1000);
  expr::BoundTerm id{1, Type::Long(), std::nullopt, Type::Long(), false};
  expr::BoundTerm name{2, Type::String(), std::nullopt, Type::String(), true};
  auto lt = [&](int64_t v) {
    return expr::BoundExpression::Predicate(expr::Operation::kLt, id, {spec::Literal::Long(v)});
  };
  auto gt = [&](int64_t v) {
    return expr::BoundExpression::Predicate(expr::Operation::kGt, id, {spec::Literal::Long(v)});
  };
  auto starts_n3 = expr::BoundExpression::Predicate(expr::Operation::kStartsWith, name,
                                                    {spec::Literal::String("n3")});
  struct Case {
    expr::BoundExpressionPtr residual;
    bool prunes;
  };
  std::vector<Case> cases = {
      {expr::BoundExpression::True(), false},
      {gt(19499), true},
      {expr::BoundExpression::Or(lt(5), gt(19994)), true},
      {expr::BoundExpression::And(gt(10000), lt(11000)), true},
      {starts_n3, false},
      {expr::BoundExpression::Predicate(expr::Operation::kIn, id,
                                        {spec::Literal::Long(3), spec::Literal::Long(15000)}),
       true},
  };
  // Arrow writes a page index by default; a scan with a residual reads it
  // (all of it here: the pages of a row group that may match are
  // searched for the rows that may).
  int64_t page_index_bytes = 0;
  {
    auto metadata =
        parquet::ReadMetaData(arrow::io::ReadableFile::Open(file.file_path).ValueOrDie());
    for (int rg = 0; rg < metadata->num_row_groups(); ++rg) {
      for (int c = 0; c < metadata->num_columns(); ++c) {
        auto chunk = metadata->RowGroup(rg)->ColumnChunk(c);
        if (auto at = chunk->GetColumnIndexLocation()) page_index_bytes += at->length;
        if (auto at = chunk->GetOffsetIndexLocation()) page_index_bytes += at->length;
      }
    }
  }
  ASSERT_GT(page_index_bytes, 0);
  int64_t full_bytes = 0;
  for (const auto& test : cases) {
    int64_t before = io.bytes();
    ScanReadOptions options;
    options.ordered = true;
    auto output = testing::ReadAll(
        Plan(testing::IdNameSchema(), {1, 2}, {Task(file, test.residual)}), io, options);
    ASSERT_TRUE(output.status.ok()) << output.status.ToString();
    int64_t bytes = io.bytes() - before;
    if (test.residual->IsTrue()) full_bytes = bytes;
    std::vector<std::string> expected;
    for (int64_t r = 0; r < kRows; ++r) {
      spec::Literal id_value = spec::Literal::Long(r);
      spec::Literal name_value = spec::Literal::String(names[r]);
      if (expr::EvaluateRow(*test.residual, [&](int32_t field) -> const spec::Literal& {
            return field == 1 ? id_value : name_value;
          })) {
        expected.push_back(std::to_string(r) + "|" + names[r]);
      }
    }
    EXPECT_EQ(output.rows, expected) << test.residual->ToString();
    if (test.prunes) {
      EXPECT_LT(bytes * 4, full_bytes) << test.residual->ToString();
    } else if (test.residual->IsTrue()) {
      EXPECT_EQ(bytes, full_bytes);
    } else {
      EXPECT_EQ(bytes, full_bytes + page_index_bytes) << test.residual->ToString();
    }
  }
}

// A residual on a field inside a struct: a null struct reads as a null
// field, which no comparison matches.
TEST(ScanReaderTest, ResidualOnAStructField) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto schema = testing::MakeSchema(
      {NestedField{1, "id", Type::Long(), true},
       NestedField{2, "loc", Type::Struct({NestedField{3, "lat", Type::Double(), false}}), false}});
  auto file = testing::WriteDataFile(
      *io, dir.Sub("a.parquet"), schema,
      {testing::Rows(*schema, R"([{"id": 0, "loc": {"lat": 2}}, {"id": 1, "loc": null},
                                  {"id": 2, "loc": {"lat": null}}, {"id": 3, "loc": {"lat": 0.5}},
                                  {"id": 4, "loc": {"lat": 7}}])")});
  expr::BoundTerm lat{3, Type::Double(), std::nullopt, Type::Double(), true};
  auto gt = expr::BoundExpression::Predicate(expr::Operation::kGt, lat, {spec::Literal::Double(1)});
  auto output = testing::ReadAll(Plan(schema, {1}, {Task(file, gt)}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"0", "4"}));
  auto is_null = expr::BoundExpression::Predicate(expr::Operation::kIsNull, lat);
  output = testing::ReadAll(Plan(schema, {1}, {Task(file, is_null)}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"1", "2"}));
}

TEST(ScanReaderTest, AnEmptyPlanReadsNothing) {
  auto io = io::NewLocalFileIO();
  auto output = testing::ReadAll(Plan(testing::IdNameSchema(), {1, 2}, {}), *io);
  ASSERT_TRUE(output.status.ok());
  EXPECT_TRUE(output.rows.empty());
  EXPECT_EQ(output.schema->num_fields(), 2);
}

// A consumer that stops reading holds the decoders back: what is decoded
// ahead is bounded, not the table.
TEST(ScanReaderTest, DecodingAheadIsBounded) {
  skade::testing::TempDir dir;
  CountingReadsFileIO io;
  auto tasks = WriteFiles(io, dir, 40, 500);
  for (bool ordered : {true, false}) {
    io.opened = 0;
    ScanReadOptions options;
    options.ordered = ordered;
    options.threads = 2;
    options.batch_rows = 50;  // 10 batches a file
    auto reader = ReadScan(Plan(testing::IdNameSchema(), {1, 2}, tasks), io, options);
    ASSERT_THAT(reader, skade::testing::IsOk());
    std::shared_ptr<arrow::RecordBatch> batch;
    ASSERT_TRUE((*reader)->ReadNext(&batch).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // At most 6 batches wait, and each of the 2 decoders is in one file.
    EXPECT_LE(io.opened.load(), 4) << ordered;
    int64_t rows = batch->num_rows();
    while (batch != nullptr) {
      ASSERT_TRUE((*reader)->ReadNext(&batch).ok());
      if (batch != nullptr) rows += batch->num_rows();
    }
    EXPECT_EQ(rows, 40 * 500);
    EXPECT_EQ(io.opened.load(), 40);
  }
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
    auto reader = ReadScan(Plan(testing::IdNameSchema(), {1, 2}, tasks), *io, options);
    ASSERT_THAT(reader, skade::testing::IsOk());
    std::shared_ptr<arrow::RecordBatch> batch;
    ASSERT_TRUE((*reader)->ReadNext(&batch).ok());
    ASSERT_NE(batch, nullptr);
    reader->reset();
  }
  auto unread = ReadScan(Plan(testing::IdNameSchema(), {1, 2}, tasks), *io, {});
  ASSERT_THAT(unread, skade::testing::IsOk());
  unread->reset();
  // Closed, the stream has ended.
  auto closed = ReadScan(Plan(testing::IdNameSchema(), {1, 2}, tasks), *io, {});
  ASSERT_THAT(closed, skade::testing::IsOk());
  ASSERT_TRUE((*closed)->Close().ok());
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_TRUE((*closed)->ReadNext(&batch).ok());
  EXPECT_EQ(batch, nullptr);
}

}  // namespace
}  // namespace skade::read
