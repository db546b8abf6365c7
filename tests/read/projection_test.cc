// Columns by field id: renamed, added (null or initial default), dropped and
// promoted columns, nested structs, lists and maps, other Arrow spellings of
// the same types, identity partition values, and files without field ids
// read through a name mapping.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <gtest/gtest.h>

#include "read/read_test_util.h"
#include "skade/read/name_mapping.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::read {
namespace {

using spec::NestedField;
using spec::Type;
using testing::Plan;
using testing::Task;

// The whole scan as one batch.
std::shared_ptr<arrow::RecordBatch> ReadBatch(scan::ScanPlan plan, io::FileIO& io) {
  auto reader = ReadScan(std::move(plan), io, {});
  EXPECT_TRUE(reader) << reader.error().ToString();
  if (!reader) return nullptr;
  auto table = (*reader)->ToTable();
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return nullptr;
  auto combined = (*table)->CombineChunksToBatch();
  EXPECT_TRUE(combined.ok()) << combined.status().ToString();
  return combined.ok() ? *combined : nullptr;
}

void ExpectBatch(const std::shared_ptr<arrow::RecordBatch>& actual,
                 const std::shared_ptr<arrow::Schema>& schema, const std::string& json) {
  ASSERT_NE(actual, nullptr);
  auto expected = testing::BatchFromJson(schema, json);
  EXPECT_TRUE(actual->schema()->Equals(*schema, /*check_metadata=*/true))
      << actual->schema()->ToString(true) << "\nvs\n"
      << schema->ToString(true);
  EXPECT_TRUE(actual->Equals(*expected)) << actual->ToString() << "\nvs\n" << expected->ToString();
}

spec::SchemaPtr WrittenSchema() {
  return testing::MakeSchema({
      NestedField{1, "id", Type::Int(), true},
      NestedField{2, "name", Type::String(), false},
      NestedField{3, "price", Type::Float(), false},
      NestedField{4, "gone", Type::Long(), false},
      NestedField{5, "amount", Type::Decimal(9, 2), false},
      NestedField{6, "loc",
                  Type::Struct({NestedField{7, "lat", Type::Float(), false},
                                NestedField{8, "lon", Type::Float(), false}}),
                  false},
      NestedField{9, "tags", Type::List(NestedField{10, "element", Type::Int(), false}), false},
      NestedField{11, "props",
                  Type::Map(NestedField{12, "key", Type::String(), true},
                            NestedField{13, "value", Type::Int(), false}),
                  false},
  });
}

constexpr char kWrittenRows[] = R"([
  {"id": 1, "name": "a", "price": 1.5, "gone": 10, "amount": "1.25",
   "loc": {"lat": 0.5, "lon": 2.5}, "tags": [1, 2], "props": [["k", 1]]},
  {"id": 2, "name": null, "price": null, "gone": 20, "amount": null,
   "loc": null, "tags": null, "props": []},
  {"id": 3, "name": "c", "price": -4, "gone": 30, "amount": "-9.99",
   "loc": {"lat": null, "lon": 1}, "tags": [], "props": [["x", 7], ["y", null]]}
])";

// Written with the first schema; read with the second: renamed, promoted,
// dropped, added, reordered, at every level.
TEST(ProjectionTest, ReadsEvolvedSchemaById) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto written = WrittenSchema();
  auto file = testing::WriteDataFile(*io, dir.Sub("a.parquet"), written,
                                     {testing::Rows(*written, kWrittenRows)});
  NestedField with_default{16, "with_default", Type::Int(), false};
  with_default.initial_default_json = "42";
  auto read = testing::MakeSchema({
      NestedField{1, "id", Type::Long(), true},
      NestedField{2, "label", Type::String(), false},
      NestedField{3, "price", Type::Double(), false},
      NestedField{5, "amount", Type::Decimal(12, 2), false},
      NestedField{6, "where",
                  Type::Struct({NestedField{8, "longitude", Type::Double(), false},
                                NestedField{7, "lat", Type::Float(), false},
                                NestedField{14, "alt", Type::Int(), false}}),
                  false},
      NestedField{9, "tags", Type::List(NestedField{10, "element", Type::Long(), false}), false},
      NestedField{11, "props",
                  Type::Map(NestedField{12, "key", Type::String(), true},
                            NestedField{13, "value", Type::Long(), false}),
                  false},
      NestedField{15, "added", Type::Int(), false},
      with_default,
  });
  auto plan = Plan(read, {2, 1, 16, 15, 3, 5, 6, 9, 11}, {Task(file)});
  auto schema = ScanSchema(plan);
  ASSERT_THAT(schema, skade::testing::IsOk());
  ExpectBatch(ReadBatch(plan, *io), *schema, R"([
    {"label": "a", "id": 1, "with_default": 42, "added": null, "price": 1.5, "amount": "1.25",
     "where": {"longitude": 2.5, "lat": 0.5, "alt": null}, "tags": [1, 2], "props": [["k", 1]]},
    {"label": null, "id": 2, "with_default": 42, "added": null, "price": null, "amount": null,
     "where": null, "tags": null, "props": []},
    {"label": "c", "id": 3, "with_default": 42, "added": null, "price": -4, "amount": "-9.99",
     "where": {"longitude": 1, "lat": null, "alt": null}, "tags": [],
     "props": [["x", 7], ["y", null]]}
  ])");
}

TEST(ProjectionTest, OutputFieldsCarryTheirIds) {
  auto read = testing::MakeSchema(
      {NestedField{7, "x", Type::Long(), true}, NestedField{3, "y", Type::String(), false}});
  auto schema = ScanSchema(Plan(read, {3, 7}, {}));
  ASSERT_THAT(schema, skade::testing::IsOk());
  ASSERT_EQ((*schema)->num_fields(), 2);
  EXPECT_EQ((*schema)->field(0)->name(), "y");
  EXPECT_EQ(*data::FieldIdOf(*(*schema)->field(0)), 3);
  EXPECT_EQ(*data::FieldIdOf(*(*schema)->field(1)), 7);
  EXPECT_FALSE((*schema)->field(1)->nullable());
  EXPECT_THAT(ScanSchema(Plan(read, {99}, {})),
              skade::testing::IsError(ErrorKind::kInvalidArgument));
}

TEST(ProjectionTest, ARequiredColumnTheFileLacksIsAnError) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto written = testing::MakeSchema({NestedField{1, "id", Type::Long(), true}});
  auto file = testing::WriteDataFile(*io, dir.Sub("a.parquet"), written,
                                     {testing::Rows(*written, R"([{"id": 1}])")});
  auto read = testing::MakeSchema(
      {NestedField{1, "id", Type::Long(), true}, NestedField{2, "must", Type::Long(), true}});
  auto output = testing::ReadAll(Plan(read, {1, 2}, {Task(file)}), *io);
  EXPECT_FALSE(output.status.ok());
  EXPECT_NE(output.status.message().find("must"), std::string::npos) << output.status.ToString();
}

TEST(ProjectionTest, AnIncompatibleTypeIsAnError) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto written = testing::MakeSchema({NestedField{1, "id", Type::String(), true}});
  auto file = testing::WriteDataFile(*io, dir.Sub("a.parquet"), written,
                                     {testing::Rows(*written, R"([{"id": "12"}])")});
  auto read = testing::MakeSchema({NestedField{1, "id", Type::Long(), true}});
  auto output = testing::ReadAll(Plan(read, {1}, {Task(file)}), *io);
  EXPECT_FALSE(output.status.ok());
  EXPECT_NE(output.status.message().find("cannot be read as long"), std::string::npos)
      << output.status.ToString();
}

// A file written without the identity partition column (as files added
// from a Hive layout are) reads it from the task's partition tuple.
TEST(ProjectionTest, IdentityPartitionValuesFillAMissingColumn) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto written = testing::MakeSchema({NestedField{1, "id", Type::Long(), true}});
  auto file = testing::WriteDataFile(*io, dir.Sub("a.parquet"), written,
                                     {testing::Rows(*written, R"([{"id": 1}, {"id": 2}])")});
  file.partition = {spec::Literal::String("eu")};
  auto read = testing::MakeSchema(
      {NestedField{1, "id", Type::Long(), true}, NestedField{2, "region", Type::String(), false}});
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back(spec::PartitionField{2, {}, 1000, "region", spec::Transform::Identity()});
  auto task = Task(file);
  task.spec = spec;
  auto output = testing::ReadAll(Plan(read, {2, 1}, {task}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"eu|1", "eu|2"}));
}

// Only the partition column is read: no column of the file is decoded.
TEST(ProjectionTest, AScanOfConstantsOnlyCountsRows) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto written = testing::MakeSchema({NestedField{1, "id", Type::Long(), true}});
  auto file =
      testing::WriteDataFile(*io, dir.Sub("a.parquet"), written,
                             {testing::Rows(*written, R"([{"id": 1}, {"id": 2}, {"id": 3}])")});
  auto read = testing::MakeSchema(
      {NestedField{1, "id", Type::Long(), true}, NestedField{5, "later", Type::Int(), false}});
  auto output = testing::ReadAll(Plan(read, {5}, {Task(file)}), *io);
  ASSERT_TRUE(output.status.ok()) << output.status.ToString();
  EXPECT_EQ(output.rows, (std::vector<std::string>{"null", "null", "null"}));
}

std::shared_ptr<arrow::Field> FieldWithId(const std::string& name,
                                          std::shared_ptr<arrow::DataType> type, int id) {
  return arrow::field(name, std::move(type))
      ->WithMetadata(arrow::key_value_metadata({"PARQUET:field_id"}, {std::to_string(id)}));
}

std::shared_ptr<arrow::Array> CastTo(const std::shared_ptr<arrow::Array>& array,
                                     const std::shared_ptr<arrow::DataType>& type) {
  auto cast = arrow::compute::Cast(array, type);
  EXPECT_TRUE(cast.ok()) << cast.status().ToString();
  return cast.ok() ? cast->make_array() : nullptr;
}

// Regression: files whose stored Arrow schema (pyarrow, pandas and Polars
// keep one) spells a string as a dictionary (a pandas categorical) or a view,
// or a list as a large, view or fixed-size list, failed with "…has Arrow type
// dictionary<…>, which cannot be read as string", though PyIceberg reads
// them. They read as the canonical Arrow type of the read schema.
TEST(ProjectionTest, ReadsOtherArrowSpellingsOfTheSameTypes) {
  skade::testing::TempDir dir;
  using data::testing::ArrayFromJson;
  auto strings = ArrayFromJson(arrow::utf8(), R"(["x", "y", null])");
  auto encoded = arrow::compute::DictionaryEncode(strings);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  auto string_lists = ArrayFromJson(arrow::list(arrow::utf8()), R"([["s", null], null, []])");
  std::vector<std::pair<std::shared_ptr<arrow::Field>, std::shared_ptr<arrow::Array>>> columns = {
      {FieldWithId("id", arrow::int64(), 1), ArrayFromJson(arrow::int64(), "[1, 2, 3]")},
      {FieldWithId("cat", arrow::dictionary(arrow::int32(), arrow::utf8()), 2),
       encoded->make_array()},
      {FieldWithId("view", arrow::utf8_view(), 3),
       CastTo(ArrayFromJson(arrow::utf8(), R"(["a", null, "c"])"), arrow::utf8_view())},
      {FieldWithId("bytes", arrow::binary_view(), 4),
       CastTo(ArrayFromJson(arrow::binary(), R"(["p", null, ""])"), arrow::binary_view())},
      {FieldWithId("wide", arrow::large_utf8(), 5),
       ArrayFromJson(arrow::large_utf8(), R"(["w", null, ""])")},
      {FieldWithId("blob", arrow::large_binary(), 6),
       ArrayFromJson(arrow::large_binary(), R"(["b", null, ""])")},
      {FieldWithId("nums", arrow::large_list(FieldWithId("element", arrow::int32(), 8)), 7),
       ArrayFromJson(arrow::large_list(FieldWithId("element", arrow::int32(), 8)),
                     "[[1, 2], null, []]")},
      {FieldWithId("views", arrow::list_view(FieldWithId("element", arrow::utf8_view(), 10)), 9),
       arrow::ListViewArray::FromList(
           *std::static_pointer_cast<arrow::ListArray>(
               CastTo(string_lists, arrow::list(FieldWithId("element", arrow::utf8_view(), 10)))),
           arrow::default_memory_pool())
           .ValueOrDie()},
      {FieldWithId("pairs", arrow::fixed_size_list(FieldWithId("element", arrow::int32(), 12), 2),
                   11),
       ArrayFromJson(arrow::fixed_size_list(FieldWithId("element", arrow::int32(), 12), 2),
                     "[[1, 2], null, [3, 4]]")},
  };
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (auto& [field, array] : columns) {
    ASSERT_NE(array, nullptr) << field->ToString();
    fields.push_back(field);
    arrays.push_back(array);
  }
  auto table = arrow::Table::Make(arrow::schema(fields), arrays);
  std::string path = dir.Sub("spellings.parquet");
  auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  // As pyarrow writes: with the Arrow schema, which is what restores the
  // spellings on reading.
  auto status = parquet::arrow::WriteTable(
      *table, arrow::default_memory_pool(), out, 1000, parquet::default_writer_properties(),
      parquet::ArrowWriterProperties::Builder().store_schema()->build());
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_TRUE(out->Close().ok());
  spec::DataFile file;
  file.file_path = path;
  file.record_count = table->num_rows();
  file.file_size_in_bytes = static_cast<int64_t>(std::filesystem::file_size(path));

  auto read = testing::MakeSchema({
      NestedField{1, "id", Type::Long(), true},
      NestedField{2, "cat", Type::String(), false},
      NestedField{3, "view", Type::String(), false},
      NestedField{4, "bytes", Type::Binary(), false},
      NestedField{5, "wide", Type::String(), false},
      NestedField{6, "blob", Type::Binary(), false},
      NestedField{7, "nums", Type::List(NestedField{8, "element", Type::Long(), false}), false},
      NestedField{9, "views", Type::List(NestedField{10, "element", Type::String(), false}), false},
      NestedField{11, "pairs", Type::List(NestedField{12, "element", Type::Int(), false}), false},
  });
  auto io = io::NewLocalFileIO();
  auto plan = Plan(read, {1, 2, 3, 4, 5, 6, 7, 9, 11}, {Task(file)});
  auto schema = ScanSchema(plan);
  ASSERT_THAT(schema, skade::testing::IsOk());
  ExpectBatch(ReadBatch(plan, *io), *schema, R"([
    {"id": 1, "cat": "x", "view": "a", "bytes": "p", "wide": "w", "blob": "b", "nums": [1, 2],
     "views": ["s", null], "pairs": [1, 2]},
    {"id": 2, "cat": "y", "view": null, "bytes": null, "wide": null, "blob": null, "nums": null,
     "views": null, "pairs": null},
    {"id": 3, "cat": null, "view": "c", "bytes": "", "wide": "", "blob": "", "nums": [],
     "views": [], "pairs": [3, 4]}
  ])");
}

constexpr char kNameMapping[] = R"([
  {"field-id": 1, "names": ["id", "record_id"]},
  {"field-id": 2, "names": ["data"]},
  {"field-id": 3, "names": ["loc"], "fields": [
    {"field-id": 4, "names": ["lat"]}, {"field-id": 5, "names": ["lon"]}]},
  {"field-id": 6, "names": ["vals"], "fields": [{"field-id": 7, "names": ["element"]}]}
])";

std::shared_ptr<arrow::RecordBatch> NoIdBatch() {
  auto schema = arrow::schema(
      {arrow::field("record_id", arrow::int64()), arrow::field("data", arrow::utf8()),
       arrow::field("loc", arrow::struct_({arrow::field("lon", arrow::float64()),
                                           arrow::field("lat", arrow::float64())})),
       arrow::field("vals", arrow::list(arrow::int32())), arrow::field("extra", arrow::int32())});
  return testing::BatchFromJson(schema, R"([
    {"record_id": 1, "data": "a", "loc": {"lon": 1, "lat": 2}, "vals": [1], "extra": 9},
    {"record_id": 2, "data": null, "loc": null, "vals": [], "extra": 8}
  ])");
}

spec::SchemaPtr MappedSchema() {
  return testing::MakeSchema({
      NestedField{1, "id", Type::Long(), true},
      NestedField{2, "data", Type::String(), false},
      NestedField{3, "loc",
                  Type::Struct({NestedField{4, "lat", Type::Double(), false},
                                NestedField{5, "lon", Type::Double(), false}}),
                  false},
      NestedField{6, "vals", Type::List(NestedField{7, "element", Type::Long(), false}), false},
  });
}

// A malformed mapping breaks every read of the table: the error names the
// property, which is where the fix is.
TEST(ProjectionTest, AMalformedNameMappingIsAnErrorNamingTheProperty) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto file = testing::WriteArrowFile(dir.Sub("a.parquet"), NoIdBatch(), 1000);
  auto plan = Plan(MappedSchema(), {1}, {Task(file)});
  auto metadata = std::make_shared<spec::TableMetadata>();
  metadata->properties[kDefaultNameMappingProperty] = "[{";
  plan.metadata = metadata;
  auto read = ReadScan(plan, *io, {});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(read.error().message.find(kDefaultNameMappingProperty), std::string::npos)
      << read.error().message;
}

TEST(ProjectionTest, FilesWithoutFieldIdsReadThroughTheNameMapping) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto file = testing::WriteArrowFile(dir.Sub("a.parquet"), NoIdBatch(), 1000);
  auto plan = Plan(MappedSchema(), {1, 2, 3, 6}, {Task(file)});
  auto metadata = std::make_shared<spec::TableMetadata>();
  metadata->properties[kDefaultNameMappingProperty] = kNameMapping;
  plan.metadata = metadata;
  auto schema = ScanSchema(plan);
  ASSERT_THAT(schema, skade::testing::IsOk());
  ExpectBatch(ReadBatch(plan, *io), *schema, R"([
    {"id": 1, "data": "a", "loc": {"lat": 2, "lon": 1}, "vals": [1]},
    {"id": 2, "data": null, "loc": null, "vals": []}
  ])");
}

TEST(ProjectionTest, FilesWithoutFieldIdsOrNameMappingFailClearly) {
  skade::testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  auto file = testing::WriteArrowFile(dir.Sub("a.parquet"), NoIdBatch(), 1000);
  auto output = testing::ReadAll(Plan(MappedSchema(), {1}, {Task(file)}), *io);
  EXPECT_FALSE(output.status.ok());
  EXPECT_NE(output.status.message().find("no field ids"), std::string::npos)
      << output.status.ToString();
}

TEST(ProjectionTest, NameMappingRejectsMalformedJson) {
  EXPECT_THAT(NameMapping::Parse("{"), skade::testing::IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(NameMapping::Parse(R"([{"field-id": "x", "names": []}])"),
              skade::testing::IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(NameMapping::Parse(R"([{"field-id": 1}])"),
              skade::testing::IsError(ErrorKind::kInvalidArgument));
  auto mapping = NameMapping::Parse(R"([{"names": ["a"]}, {"field-id": 2, "names": ["b", "c"]}])");
  ASSERT_THAT(mapping, skade::testing::IsOk());
  ASSERT_EQ(mapping->fields().size(), 2u);
  EXPECT_FALSE(mapping->fields()[0].field_id.has_value());
  EXPECT_EQ(mapping->fields()[1].names, (std::vector<std::string>{"b", "c"}));
}

}  // namespace
}  // namespace skade::read
