// The ScanTasks JSON of server-side scan planning, from hand-built plans:
// every DataFile field in the spec's shapes (partition values and bounds as
// single-value JSON, metrics as key/value arrays, only for stats-fields),
// delete files listed once and referenced by index, residuals that parse
// and bind back to the same expression.
#include "skade/rest/scan_tasks_json.h"

#include <gtest/gtest.h>

#include "skade/expr/bound_expression.h"
#include "skade/expr/expression_json.h"
#include "skade/expr/expression_parser.h"
#include "skade/util/json_reader.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::rest {
namespace {

using spec::Literal;
using spec::NestedField;
using spec::Type;

std::shared_ptr<const spec::Schema> TestSchema() {
  std::vector<NestedField> fields = {{1, "id", Type::Long(), true},
                                     {2, "name", Type::String(), false},
                                     {3, "day", Type::Date(), false},
                                     {4, "price", Type::Decimal(9, 2), false},
                                     {5, "raw", Type::Binary(), false}};
  return std::make_shared<const spec::Schema>(0, std::move(fields));
}

spec::DataFile DataFileAt(std::string path, int32_t day) {
  spec::DataFile file;
  file.file_path = std::move(path);
  file.spec_id = 1;
  file.partition = {Literal::Date(day), Literal::Null(Type::String())};
  file.record_count = 10;
  file.file_size_in_bytes = 1234;
  file.column_sizes = {{1, 80}, {2, 90}};
  file.value_counts = {{1, 10}, {2, 10}};
  file.null_value_counts = {{1, 0}, {2, 3}};
  file.nan_value_counts = {};
  file.lower_bounds = {
      {1, Literal::Long(-5).ToBytes()}, {3, Literal::Date(day).ToBytes()}, {99, "dropped column"}};
  file.upper_bounds = {{1, Literal::Long(1LL << 40).ToBytes()},
                       {2, Literal::String("zz").ToBytes()},
                       {3, "bad"}};  // a date is 4 bytes: left out
  file.split_offsets = {4, 800};
  file.sort_order_id = 0;
  file.key_metadata = std::string("\x01\xab", 2);
  return file;
}

spec::DataFile PositionDeletes(std::string path) {
  spec::DataFile file;
  file.content = spec::DataFileContent::kPositionDeletes;
  file.file_path = std::move(path);
  file.file_format = spec::FileFormat::kPuffin;
  file.spec_id = 1;
  file.partition = {Literal::Date(20000), Literal::Null(Type::String())};
  file.record_count = 2;
  file.file_size_in_bytes = 99;
  file.lower_bounds = {{2147483546, "s3://b/d1.parquet"}};
  file.referenced_data_file = "s3://b/d1.parquet";
  file.content_offset = 4;
  file.content_size_in_bytes = 40;
  return file;
}

spec::DataFile EqualityDeletes(std::string path) {
  spec::DataFile file;
  file.content = spec::DataFileContent::kEqualityDeletes;
  file.file_path = std::move(path);
  file.spec_id = 0;
  file.record_count = 1;
  file.file_size_in_bytes = 50;
  file.equality_ids = {1, 2};
  return file;
}

expr::BoundExpressionPtr BoundFilter(const spec::Schema& schema, std::string_view text) {
  auto parsed = expr::ParseExpression(text);
  EXPECT_TRUE(parsed) << parsed.error().ToString();
  auto bound = expr::Bind(**parsed, schema);
  EXPECT_TRUE(bound) << bound.error().ToString();
  return *bound;
}

scan::ScanPlan PlanOfThreeTasks() {
  scan::ScanPlan plan;
  plan.schema = TestSchema();
  scan::FileScanTask first;
  first.data_file = DataFileAt("s3://b/d1.parquet", 20000);
  first.deletes = {{PositionDeletes("s3://b/dv.puffin"), 3}, {EqualityDeletes("s3://b/eq"), 2}};
  first.residual = BoundFilter(*plan.schema, "name = 'x' and day >= '2024-10-01'");
  scan::FileScanTask second;
  second.data_file = DataFileAt("s3://b/d2.parquet", 20001);
  second.deletes = {{EqualityDeletes("s3://b/eq"), 2}};
  second.residual = expr::BoundExpression::True();
  scan::FileScanTask third;
  third.data_file = DataFileAt("s3://b/d3.parquet", 20002);
  plan.tasks = {first, second, third};
  return plan;
}

json::Object Written(const scan::ScanPlan& plan, const StatsFields& stats,
                     simdjson::dom::parser& parser, std::string* text) {
  JsonWriter writer;
  writer.StartObject();
  WriteScanTasks(plan, plan.tasks, stats, writer);
  writer.EndObject();
  *text = writer.Take();
  auto element = json::Parse(parser, *text);
  EXPECT_TRUE(element) << *text;
  return *json::AsObject(*element, "scan tasks");
}

TEST(ScanTasksJsonTest, DeleteFilesAreListedOnceAndReferencedByIndex) {
  simdjson::dom::parser parser;
  std::string text;
  auto object = Written(PlanOfThreeTasks(), {}, parser, &text);
  auto deletes = *json::GetArray(object, "delete-files");
  ASSERT_EQ(deletes.size(), 2u) << text;
  auto dv = *json::AsObject(deletes.at(0), "dv");
  EXPECT_EQ(*json::GetString(dv, "content"), "position-deletes");
  EXPECT_EQ(*json::GetString(dv, "file-path"), "s3://b/dv.puffin");
  EXPECT_EQ(*json::GetString(dv, "file-format"), "puffin");
  EXPECT_EQ(*json::GetString(dv, "referenced-data-file"), "s3://b/d1.parquet");
  EXPECT_EQ(*json::GetInt64(dv, "content-offset"), 4);
  EXPECT_EQ(*json::GetInt64(dv, "content-size-in-bytes"), 40);
  EXPECT_FALSE(json::Has(dv, "lower-bounds")) << "delete files carry no metrics";
  auto eq = *json::AsObject(deletes.at(1), "eq");
  EXPECT_EQ(*json::GetString(eq, "content"), "equality-deletes");
  EXPECT_EQ(*json::GetInt32List(eq, "equality-ids"), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(json::Minify(*json::GetRequired(eq, "partition")), "[]");

  auto tasks = *json::GetArray(object, "file-scan-tasks");
  ASSERT_EQ(tasks.size(), 3u);
  auto first = *json::AsObject(tasks.at(0), "task");
  EXPECT_EQ(*json::GetInt32List(first, "delete-file-references"), (std::vector<int32_t>{0, 1}));
  auto second = *json::AsObject(tasks.at(1), "task");
  EXPECT_EQ(*json::GetInt32List(second, "delete-file-references"), (std::vector<int32_t>{1}));
  auto third = *json::AsObject(tasks.at(2), "task");
  EXPECT_FALSE(json::Has(third, "delete-file-references"));
  EXPECT_FALSE(json::Has(third, "residual-filter")) << "no residual given";
}

// Iceberg Java writes the deletion vectors of a commit into one Puffin
// file, each at its own offset: each is listed, and each task refers to
// its own.
TEST(ScanTasksJsonTest, DeletionVectorsInOnePuffinFileAreListedApart) {
  scan::ScanPlan plan;
  plan.schema = TestSchema();
  for (int i = 0; i < 2; ++i) {
    scan::FileScanTask task;
    task.data_file = DataFileAt(StrCat("s3://b/d", i, ".parquet"), 20000);
    spec::DataFile dv = PositionDeletes("s3://b/dvs.puffin");
    dv.referenced_data_file = task.data_file.file_path;
    dv.content_offset = 4 + 40 * i;
    task.deletes = {{dv, 3}};
    plan.tasks.push_back(std::move(task));
  }
  simdjson::dom::parser parser;
  std::string text;
  auto object = Written(plan, {}, parser, &text);
  auto deletes = *json::GetArray(object, "delete-files");
  ASSERT_EQ(deletes.size(), 2u) << text;
  auto tasks = *json::GetArray(object, "file-scan-tasks");
  ASSERT_EQ(tasks.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    auto task = *json::AsObject(tasks.at(i), "task");
    auto references = *json::GetInt32List(task, "delete-file-references");
    ASSERT_EQ(references.size(), 1u);
    auto dv = *json::AsObject(deletes.at(references[0]), "dv");
    EXPECT_EQ(*json::GetInt64(dv, "content-offset"), 4 + 40 * i) << text;
    EXPECT_EQ(*json::GetString(dv, "referenced-data-file"), StrCat("s3://b/d", i, ".parquet"));
  }
}

TEST(ScanTasksJsonTest, DataFileFieldsInTheSpecsShapes) {
  simdjson::dom::parser parser;
  std::string text;
  auto object = Written(PlanOfThreeTasks(), {}, parser, &text);
  auto task = *json::AsObject((*json::GetArray(object, "file-scan-tasks")).at(0), "task");
  auto file = *json::GetObject(task, "data-file");
  EXPECT_EQ(*json::GetString(file, "content"), "data");
  EXPECT_EQ(*json::GetString(file, "file-path"), "s3://b/d1.parquet");
  EXPECT_EQ(*json::GetString(file, "file-format"), "parquet");
  EXPECT_EQ(*json::GetInt32(file, "spec-id"), 1);
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "partition")), R"(["2024-10-04",null])");
  EXPECT_EQ(*json::GetInt64(file, "file-size-in-bytes"), 1234);
  EXPECT_EQ(*json::GetInt64(file, "record-count"), 10);
  EXPECT_EQ(*json::GetString(file, "key-metadata"), "01AB");
  EXPECT_EQ(*json::GetInt64List(file, "split-offsets"), (std::vector<int64_t>{4, 800}));
  EXPECT_EQ(*json::GetInt32(file, "sort-order-id"), 0);
  // No stats-fields: no metrics at all.
  for (const char* key : {"column-sizes", "value-counts", "null-value-counts", "nan-value-counts",
                          "lower-bounds", "upper-bounds"}) {
    EXPECT_FALSE(json::Has(file, key)) << key;
  }
}

TEST(ScanTasksJsonTest, MetricsOnlyForTheStatsFields) {
  simdjson::dom::parser parser;
  std::string text;
  auto object = Written(PlanOfThreeTasks(), {1, 3, 99}, parser, &text);
  auto task = *json::AsObject((*json::GetArray(object, "file-scan-tasks")).at(0), "task");
  auto file = *json::GetObject(task, "data-file");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "column-sizes")),
            R"({"keys":[1],"values":[80]})");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "value-counts")),
            R"({"keys":[1],"values":[10]})");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "null-value-counts")),
            R"({"keys":[1],"values":[0]})");
  EXPECT_FALSE(json::Has(file, "nan-value-counts"));
  // Column 99 is not in the schema and column 3's upper bound does not decode.
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "lower-bounds")),
            R"({"keys":[1,3],"values":[-5,"2024-10-04"]})");
  EXPECT_EQ(json::Minify(*json::GetRequired(file, "upper-bounds")),
            R"({"keys":[1],"values":[1099511627776]})");
}

TEST(ScanTasksJsonTest, ResidualsBindBackToTheSameExpression) {
  const scan::ScanPlan plan = PlanOfThreeTasks();
  simdjson::dom::parser parser;
  std::string text;
  auto object = Written(plan, {}, parser, &text);
  auto tasks = *json::GetArray(object, "file-scan-tasks");
  for (size_t i = 0; i < 2; ++i) {
    auto task = *json::AsObject(tasks.at(i), "task");
    auto residual = expr::ExpressionFromJson(*json::GetRequired(task, "residual-filter"));
    ASSERT_TRUE(residual) << residual.error().ToString() << "\n" << text;
    auto bound = expr::Bind(**residual, *plan.schema);
    ASSERT_TRUE(bound) << bound.error().ToString();
    EXPECT_TRUE((*bound)->Equals(*plan.tasks[i].residual)) << (*bound)->ToString(plan.schema.get());
  }
}

TEST(ScanTasksJsonTest, AnEmptyPageHasEmptyLists) {
  scan::ScanPlan plan;
  plan.schema = TestSchema();
  JsonWriter writer;
  writer.StartObject();
  WriteScanTasks(plan, {}, {}, writer);
  writer.EndObject();
  EXPECT_EQ(writer.str(), R"({"delete-files":[],"file-scan-tasks":[]})");
}

}  // namespace
}  // namespace skade::rest
