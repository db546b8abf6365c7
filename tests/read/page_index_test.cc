// Page pruning from the Parquet page index: on files with many small pages
// per row group (sorted and unsorted columns, nulls, NaN, strings), a scan
// with a random residual returns exactly the rows a full read filtered by
// expr::EvaluateRow keeps, at their true positions (position deletes across
// skipped pages), and selective filters on sorted columns leave pages
// undecoded. A file without a page index reads the same rows, none skipped.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>
#include <parquet/file_reader.h>

#include <cstdio>
#include <limits>
#include <set>

#include "read/random_filters.h"
#include "read/read_test_util.h"
#include "skade/data/arrow_schema.h"
#include "skade/expr/row_evaluator.h"
#include "skade/read/file_projection_internal.h"
#include "skade/read/row_ranges_internal.h"
#include "testing/temp_dir.h"

namespace skade::read {
namespace {

using expr::BoundExpression;
using expr::BoundExpressionPtr;
using spec::Literal;
using spec::Type;
using testing::Column;

constexpr int64_t kRows = 2000;

// The random filters' columns plus sorted ones: seq (long, a null every
// 97th row), key (zero-padded string of seq), score (double, NaN every 50th
// row).
std::vector<Column> PageColumns() {
  std::vector<Column> columns = testing::Columns();
  columns.push_back({11, Type::Long(), {}});
  for (int64_t v : {0, 5, 17, 100, 512, 1000, 1500, 1999, 2500}) {
    columns.back().pool.push_back(Literal::Long(v));
  }
  columns.push_back({12, Type::String(), {}});
  for (const char* v : {"k00010", "k00500", "k01500", "k", "k005", "k0199", "z", ""}) {
    columns.back().pool.push_back(Literal::String(v));
  }
  columns.push_back({13, Type::Double(), {}});
  for (double v : {0.0, 10.5, 100.0, 999.5, 1999.0, -1.0}) {
    columns.back().pool.push_back(Literal::Double(v));
  }
  return columns;
}

spec::SchemaPtr SchemaOf(const std::vector<Column>& columns) {
  std::vector<spec::NestedField> fields;
  for (const auto& column : columns) {
    fields.push_back({column.id, "c" + std::to_string(column.id), column.type, false});
  }
  return testing::MakeSchema(std::move(fields));
}

Literal SortedValue(int32_t id, int64_t row) {
  switch (id) {
    case 11:
      return row % 97 == 5 ? Literal::Null(Type::Long()) : Literal::Long(row);
    case 12: {
      char key[16];
      std::snprintf(key, sizeof(key), "k%05lld", static_cast<long long>(row));
      return Literal::String(key);
    }
    default:
      return row % 50 == 7 ? Literal::Double(std::numeric_limits<double>::quiet_NaN())
                           : Literal::Double(static_cast<double>(row));
  }
}

// Random table data: values[id][row], and the same as a batch.
struct Data {
  std::map<int32_t, std::vector<Literal>> values;
  std::shared_ptr<arrow::RecordBatch> batch;
};

Data MakeData(const std::vector<Column>& columns, testing::RandomFilters& random) {
  Data data;
  arrow::ArrayVector arrays;
  for (const auto& column : columns) {
    auto type = data::ToArrowType(*column.type).value();
    std::unique_ptr<arrow::ArrayBuilder> builder;
    EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder).ok());
    for (int64_t r = 0; r < kRows; ++r) {
      Literal value =
          column.id > 10 ? SortedValue(column.id, r)
          : random.Uniform(0, 99) < 15
              ? Literal::Null(column.type)
              : column.pool[random.Uniform(0, static_cast<int>(column.pool.size()) - 1)];
      auto appended = value.is_null()
                          ? builder->AppendNull()
                          : builder->AppendScalar(*ScalarFromLiteral(value, type).value());
      EXPECT_TRUE(appended.ok());
      data.values[column.id].push_back(std::move(value));
    }
    arrays.push_back(builder->Finish().ValueOrDie());
  }
  auto schema = data::ToArrowSchema(*SchemaOf(columns)).value();
  data.batch = arrow::RecordBatch::Make(schema, kRows, std::move(arrays));
  return data;
}

// Small pages and row groups: several row groups of many pages.
data::DataWriterOptions SmallPages() {
  data::DataWriterOptions options;
  options.page_row_limit = 37;
  options.page_size_bytes = 512;
  options.row_group_size_bytes = 40 << 10;
  return options;
}

struct Read {
  std::vector<std::string> rows;
  ScanProgress progress;
};

Read ReadTask(io::FileIO& io, const spec::SchemaPtr& schema, std::vector<int32_t> ids,
              scan::FileScanTask task) {
  ScanReadOptions options;
  options.ordered = true;
  options.threads = 1;
  options.batch_rows = 100;
  Read read;
  options.on_progress = [&](const ScanProgress& p) { read.progress = p; };
  auto output =
      testing::ReadAll(testing::Plan(schema, std::move(ids), {std::move(task)}), io, options);
  EXPECT_TRUE(output.status.ok()) << output.status.ToString();
  read.rows = std::move(output.rows);
  return read;
}

// The rows of `all` (a full read, in file order) that are not deleted and
// that `filter` keeps.
std::vector<std::string> Expected(const std::vector<std::string>& all, const Data& data,
                                  const expr::BoundExpression& filter,
                                  const std::set<int64_t>& deleted = {}) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < static_cast<int64_t>(all.size()); ++r) {
    if (deleted.contains(r)) continue;
    if (expr::EvaluateRow(filter,
                          [&](int32_t id) -> const Literal& { return data.values.at(id)[r]; })) {
      rows.push_back(all[r]);
    }
  }
  return rows;
}

std::vector<int32_t> IdsOf(const std::vector<Column>& columns) {
  std::vector<int32_t> ids;
  for (const auto& column : columns) ids.push_back(column.id);
  return ids;
}

BoundExpressionPtr Compare(expr::Operation op, int32_t id, const spec::TypePtr& type,
                           Literal value) {
  expr::BoundTerm term;
  term.field_id = id;
  term.source_type = type;
  term.type = type;
  return BoundExpression::Predicate(op, term, {std::move(value)});
}

TEST(RowRangesTest, UnitesAndIntersects) {
  RowRanges a;
  a.Add(0, 10);
  a.Add(10, 20);  // adjacent: merged
  a.Add(30, 40);
  RowRanges b;
  b.Add(5, 12);
  b.Add(35, 50);
  EXPECT_EQ(a.ranges().size(), 2u);
  RowRanges both = RowRanges::Intersection(a, b);
  EXPECT_EQ(both.ranges(), (std::vector<RowRanges::Range>{{5, 12}, {35, 40}}));
  RowRanges either = RowRanges::Union(a, b);
  EXPECT_EQ(either.ranges(), (std::vector<RowRanges::Range>{{0, 20}, {30, 50}}));
  EXPECT_EQ(either.row_count(), 40);
  EXPECT_EQ(a.CountIn(15, 35), 10);
  EXPECT_FALSE(a.Overlaps(20, 30));
  EXPECT_TRUE(RowRanges::Intersection(a, RowRanges()).empty());
}

// A table of PageColumns() and one data file of random rows.
class PageIndexTest : public ::testing::Test {
 protected:
  PageIndexTest()
      : columns_(PageColumns()), schema_(SchemaOf(columns_)), io_(io::NewLocalFileIO()) {
    // Every column, the decimal (stored as INT32) too: a projected column
    // the page-skipping reader cannot read sends its row group to a whole
    // read, and the tests that count skipped pages would fail.
    ids_ = IdsOf(columns_);
  }

  // Writes data_ (from `random`) with skade's writer into file_, and reads
  // it whole into all_.
  void WriteFile(testing::RandomFilters& random, const std::string& name) {
    data_ = MakeData(columns_, random);
    file_ = testing::WriteDataFile(*io_, dir_.Sub(name), schema_, {data_.batch}, SmallPages());
    ReadWhole();
  }

  void ReadWhole() {
    all_ = Scan(testing::Task(file_)).rows;
    ASSERT_EQ(static_cast<int64_t>(all_.size()), kRows);
  }

  Read Scan(scan::FileScanTask task) { return ReadTask(*io_, schema_, ids_, std::move(task)); }

  std::vector<Column> columns_;
  spec::SchemaPtr schema_;
  skade::testing::TempDir dir_;
  std::shared_ptr<io::FileIO> io_;
  std::vector<int32_t> ids_;
  Data data_;
  spec::DataFile file_;
  std::vector<std::string> all_;
};

TEST_F(PageIndexTest, RandomFiltersReturnWhatAFullReadKeeps) {
  int64_t pages_skipped = 0;
  int64_t filters_reading_pages = 0;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    testing::RandomFilters random(columns_, seed);
    WriteFile(random, "data" + std::to_string(seed) + ".parquet");
    ASSERT_GT(parquet::ParquetFileReader::OpenFile(file_.file_path)->metadata()->num_row_groups(),
              1);
    for (int f = 0; f < 60; ++f) {
      BoundExpressionPtr filter = random.Filter(3);
      Read read = Scan(testing::Task(file_, filter));
      ASSERT_EQ(read.rows, Expected(all_, data_, *filter))
          << "seed " << seed << " filter " << filter->ToString();
      pages_skipped += read.progress.pages_skipped;
      if (read.progress.pages_skipped > 0) ++filters_reading_pages;
    }
  }
  // Filters on the sorted columns are selective page by page.
  EXPECT_GT(pages_skipped, 0);
  EXPECT_GT(filters_reading_pages, 10);
}

TEST_F(PageIndexTest, SelectiveFiltersOnSortedColumnsSkipPages) {
  testing::RandomFilters random(columns_, 7);
  WriteFile(random, "data.parquet");

  std::vector<BoundExpressionPtr> filters = {
      Compare(expr::Operation::kLt, 11, Type::Long(), Literal::Long(100)),
      Compare(expr::Operation::kEq, 12, Type::String(), Literal::String("k01234")),
      Compare(expr::Operation::kStartsWith, 12, Type::String(), Literal::String("k015")),
      BoundExpression::Or(
          Compare(expr::Operation::kGtEq, 13, Type::Double(), Literal::Double(1900)),
          Compare(expr::Operation::kLt, 11, Type::Long(), Literal::Long(40))),
  };
  for (const auto& filter : filters) {
    Read read = Scan(testing::Task(file_, filter));
    EXPECT_EQ(read.rows, Expected(all_, data_, *filter)) << filter->ToString();
    // Row groups the statistics rule out are not counted: only pages and
    // rows of the row groups read.
    EXPECT_GT(read.progress.pages_skipped, 10) << filter->ToString();
    EXPECT_GT(read.progress.rows_skipped, 200) << filter->ToString();
  }
  // Not equal keeps pages whose NaNs it matches; nothing proved, nothing skipped.
  auto not_equal = Compare(expr::Operation::kNotEq, 13, Type::Double(), Literal::Double(5));
  Read read = Scan(testing::Task(file_, not_equal));
  EXPECT_EQ(read.rows, Expected(all_, data_, *not_equal));
  EXPECT_EQ(read.progress.pages_skipped, 0);
}

TEST_F(PageIndexTest, PositionDeletesKeepTheirRowsAcrossSkippedPages) {
  testing::RandomFilters random(columns_, 11);
  WriteFile(random, "data.parquet");

  // Every 7th row, and runs on both sides of the kept ranges' edges.
  std::set<int64_t> deleted;
  for (int64_t r = 0; r < kRows; r += 7) deleted.insert(r);
  for (int64_t r = 495; r < 505; ++r) deleted.insert(r);
  for (int64_t r = 1395; r < 1410; ++r) deleted.insert(r);
  std::vector<std::pair<std::string, int64_t>> positions;
  for (int64_t r : deleted) positions.emplace_back(file_.file_path, r);
  auto deletes = testing::PositionDeleteFile(*io_, dir_.Sub("pos.parquet"), positions);

  auto filter = BoundExpression::Or(
      BoundExpression::And(Compare(expr::Operation::kGtEq, 11, Type::Long(), Literal::Long(500)),
                           Compare(expr::Operation::kLt, 11, Type::Long(), Literal::Long(700))),
      Compare(expr::Operation::kGt, 12, Type::String(), Literal::String("k01400")));
  scan::FileScanTask task = testing::Task(file_, filter);
  task.deletes.push_back(deletes);
  Read read = Scan(task);
  EXPECT_EQ(read.rows, Expected(all_, data_, *filter, deleted));
  EXPECT_GT(read.progress.pages_skipped, 0);
}

TEST_F(PageIndexTest, FileWithoutPageIndexReadsTheSameRows) {
  testing::RandomFilters random(columns_, 13);
  data_ = MakeData(columns_, random);
  // Arrow's writer, small pages, no page index.
  std::string path = dir_.Sub("data.parquet");
  {
    auto table = arrow::Table::FromRecordBatches({data_.batch}).ValueOrDie();
    auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    auto properties = parquet::WriterProperties::Builder()
                          .max_rows_per_page(37)
                          ->data_pagesize(512)
                          ->disable_write_page_index()
                          ->build();
    ASSERT_TRUE(
        parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, 700, properties)
            .ok());
    ASSERT_TRUE(out->Close().ok());
  }
  ASSERT_FALSE(parquet::ParquetFileReader::OpenFile(path)
                   ->metadata()
                   ->RowGroup(0)
                   ->ColumnChunk(10)
                   ->GetOffsetIndexLocation()
                   .has_value());
  file_.file_path = path;
  file_.record_count = kRows;
  file_.file_size_in_bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  ReadWhole();
  for (int f = 0; f < 40; ++f) {
    BoundExpressionPtr filter = random.Filter(2);
    Read read = Scan(testing::Task(file_, filter));
    ASSERT_EQ(read.rows, Expected(all_, data_, *filter)) << filter->ToString();
    EXPECT_EQ(read.progress.pages_skipped, 0);
    EXPECT_EQ(read.progress.rows_skipped, 0);
  }
}

// Bounds read as the table's type: a column written as int and float, read
// after promotion to long and double.
TEST(PageIndexPromotionTest, PromotedColumnsPruneByTheirFileBounds) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto written = testing::MakeSchema({spec::NestedField{1, "v", Type::Int(), true},
                                      spec::NestedField{2, "f", Type::Float(), false}});
  std::string json = "[";
  for (int i = 0; i < 1000; ++i) {
    if (i > 0) json += ",";
    json += "{\"v\": " + std::to_string(i) +
            ", \"f\": " + (i % 10 == 3 ? std::string("null") : std::to_string(i) + ".5") + "}";
  }
  json += "]";
  spec::DataFile file = testing::WriteDataFile(*io, dir.Sub("a.parquet"), written,
                                               {testing::Rows(*written, json)}, SmallPages());
  auto read = testing::MakeSchema({spec::NestedField{1, "v", Type::Long(), true},
                                   spec::NestedField{2, "f", Type::Double(), false}});
  auto filter = BoundExpression::Or(
      Compare(expr::Operation::kLt, 1, Type::Long(), Literal::Long(20)),
      Compare(expr::Operation::kGtEq, 2, Type::Double(), Literal::Double(990.5)));
  Read out = ReadTask(*io, read, {1, 2}, testing::Task(file, filter));
  std::vector<std::string> expected;
  for (int i = 0; i < 1000; ++i) {
    bool null_f = i % 10 == 3;
    if (i < 20 || (!null_f && i >= 990)) {
      expected.push_back(std::to_string(i) + "|" + (null_f ? "null" : std::to_string(i) + ".5"));
    }
  }
  EXPECT_EQ(out.rows, expected);
  EXPECT_GT(out.progress.pages_skipped, 0);
  EXPECT_GT(out.progress.rows_skipped, 900);
}

}  // namespace
}  // namespace skade::read
