// PartitionSplitter, FanoutDataWriter and partition paths.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "data_test_util.h"
#include "skade/data/arrow_literal.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/fanout_data_writer.h"
#include "skade/data/partition_path.h"
#include "skade/data/partition_splitter.h"
#include "skade/spec/bucket_hash.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsError;
using skade::testing::IsOk;
using spec::Literal;
using spec::PartitionField;
using spec::PartitionSpec;
using spec::Transform;
using spec::Type;
using testing::BatchFromJson;
using testing::MakeSchema;
using testing::Optional;
using testing::ReadTable;
using testing::Required;
using testing::TempDir;

spec::SchemaPtr EventsSchema() {
  return MakeSchema({
      Required(1, "id", Type::Long()),
      Optional(2, "category", Type::String()),
      Optional(3, "ts", Type::Timestamp()),
      Optional(4, "meta", Type::Struct({Optional(5, "region", Type::String())})),
      Optional(6, "tags", Type::List(Optional(7, "element", Type::String()))),
  });
}

spec::PartitionSpecPtr Spec(std::vector<PartitionField> fields, int32_t spec_id = 0) {
  auto spec = std::make_shared<PartitionSpec>();
  spec->spec_id = spec_id;
  spec->fields = std::move(fields);
  return spec;
}

PartitionField Field(int32_t source, int32_t id, std::string name, Transform transform) {
  PartitionField field;
  field.source_id = source;
  field.field_id = id;
  field.name = std::move(name);
  field.transform = transform;
  return field;
}

std::shared_ptr<arrow::RecordBatch> Events(const std::string& rows) {
  return BatchFromJson(ToArrowSchema(*EventsSchema()).value(), rows);
}

std::vector<int64_t> Ids(const arrow::RecordBatch& batch) {
  std::vector<int64_t> ids;
  const auto& column = static_cast<const arrow::Int64Array&>(*batch.column(0));
  for (int64_t i = 0; i < column.length(); ++i) ids.push_back(column.Value(i));
  return ids;
}

TEST(PartitionSplitterTest, SplitsInFirstSeenOrderAndKeepsRowOrder) {
  auto splitter = PartitionSplitter::Make(
      EventsSchema(), Spec({Field(2, 1000, "category", Transform::Identity())}));
  ASSERT_THAT(splitter, IsOk());
  auto batch = Events(R"([{"id": 1, "category": "b"}, {"id": 2, "category": "a"},
                          {"id": 3, "category": null}, {"id": 4, "category": "b"},
                          {"id": 5, "category": "a"}, {"id": 6, "category": null}])");
  auto parts = splitter->Split(batch);
  ASSERT_THAT(parts, IsOk());
  ASSERT_EQ(parts->size(), 3U);
  EXPECT_EQ((*parts)[0].partition, std::vector<Literal>{Literal::String("b")});
  EXPECT_EQ(Ids(*(*parts)[0].batch), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ((*parts)[1].partition, std::vector<Literal>{Literal::String("a")});
  EXPECT_EQ(Ids(*(*parts)[1].batch), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ((*parts)[2].partition, std::vector<Literal>{Literal::Null(Type::String())});
  EXPECT_EQ(Ids(*(*parts)[2].batch), (std::vector<int64_t>{3, 6}));
  for (const auto& part : *parts) EXPECT_TRUE(part.batch->ValidateFull().ok());
}

TEST(PartitionSplitterTest, SinglePartitionAndRunsAreZeroCopy) {
  auto splitter =
      PartitionSplitter::Make(EventsSchema(), Spec({Field(3, 1000, "ts_day", Transform::Day())}))
          .value();
  constexpr int64_t kDay = 86'400'000'000LL;
  auto one = Events(R"([{"id": 1, "ts": 5}, {"id": 2, "ts": 6}])");
  auto parts = splitter.Split(one).value();
  ASSERT_EQ(parts.size(), 1U);
  EXPECT_EQ(parts[0].batch, one);
  EXPECT_EQ(parts[0].partition, std::vector<Literal>{Literal::Date(0)});

  auto runs = Events(R"([{"id": 1, "ts": -1}, {"id": 2, "ts": -2}, {"id": 3, "ts": )" +
                     std::to_string(kDay) + "}]");
  parts = splitter.Split(runs).value();
  ASSERT_EQ(parts.size(), 2U);
  EXPECT_EQ(parts[0].partition, std::vector<Literal>{Literal::Date(-1)});
  EXPECT_EQ(parts[1].partition, std::vector<Literal>{Literal::Date(1)});
  EXPECT_EQ(parts[0].batch->column_data(0)->buffers[1], runs->column_data(0)->buffers[1]);
}

TEST(PartitionSplitterTest, MultipleFieldsNestedSourceAndVoid) {
  auto splitter = PartitionSplitter::Make(EventsSchema(),
                                          Spec({Field(5, 1000, "region", Transform::Identity()),
                                                Field(1, 1001, "id_bucket", Transform::Bucket(2)),
                                                Field(2, 1002, "dropped", Transform::Void())}))
                      .value();
  auto batch = Events(R"([{"id": 1, "meta": {"region": "eu"}}, {"id": 2, "meta": {"region": "eu"}},
                          {"id": 3, "meta": null}, {"id": 4, "meta": {"region": null}}])");
  auto parts = splitter.Split(batch).value();
  std::map<std::string, std::vector<int64_t>> rows_by_key;
  for (const auto& part : parts) {
    ASSERT_EQ(part.partition.size(), 3U);
    EXPECT_TRUE(part.partition[2].is_null());
    int32_t bucket = std::get<int32_t>(part.partition[1].value());
    std::string key = part.partition[0].ToString() + "/" + std::to_string(bucket);
    rows_by_key[key] = Ids(*part.batch);
  }
  // A null struct gives a null region, like a null region in a struct.
  for (int64_t id : {1, 2, 3, 4}) {
    std::string region = id <= 2 ? "eu" : "null";
    std::string key = region + "/" + std::to_string(spec::BucketOf(spec::BucketHashLong(id), 2));
    auto& ids = rows_by_key[key];
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << key;
  }
}

TEST(PartitionSplitterTest, InterleavedRowsAreGathered) {
  auto splitter = PartitionSplitter::Make(
                      EventsSchema(), Spec({Field(1, 1000, "id_trunc", Transform::Truncate(2))}))
                      .value();
  std::string rows = "[";
  for (int i = 0; i < 100; ++i) {
    rows += (i ? "," : "") + std::string("{\"id\": ") + std::to_string(i) + ", \"tags\": [\"t" +
            std::to_string(i) + "\"]}";
  }
  auto batch = Events(rows + "]");
  auto parts = splitter.Split(batch).value();
  ASSERT_EQ(parts.size(), 50U);
  for (size_t p = 0; p < parts.size(); ++p) {
    EXPECT_EQ(parts[p].partition, std::vector<Literal>{Literal::Long(2 * static_cast<int64_t>(p))});
    EXPECT_EQ(Ids(*parts[p].batch),
              (std::vector<int64_t>{2 * static_cast<int64_t>(p), 2 * static_cast<int64_t>(p) + 1}));
  }
}

TEST(PartitionSplitterTest, RejectsBadSpecs) {
  EXPECT_THAT(
      PartitionSplitter::Make(EventsSchema(), Spec({Field(99, 1000, "x", Transform::Identity())})),
      IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(
      PartitionSplitter::Make(EventsSchema(), Spec({Field(7, 1000, "tag", Transform::Identity())})),
      IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(
      PartitionSplitter::Make(EventsSchema(), Spec({Field(2, 1000, "c", Transform::Year())})),
      IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(PartitionSplitter::Make(
                  EventsSchema(), Spec({Field(2, 1000, "c", Transform::Parse("zorder").value())})),
              IsError(ErrorKind::kUnsupported));
}

TEST(FanoutDataWriterTest, OneFileSetPerPartition) {
  TempDir dir;
  auto schema = EventsSchema();
  auto spec = Spec({Field(2, 1000, "category", Transform::Identity()),
                    Field(3, 1001, "ts_hour", Transform::Hour())},
                   5);
  std::vector<std::vector<Literal>> seen;
  auto writer =
      FanoutDataWriter::Make(io::NewLocalFileIO(), schema, spec, DataWriterOptions(),
                             [&](const std::vector<Literal>& partition) -> Result<std::string> {
                               seen.push_back(partition);
                               return dir.Path(PartitionPath(*spec, *schema, partition).value() +
                                               "/" + std::to_string(seen.size()) + ".parquet");
                             });
  ASSERT_THAT(writer, IsOk());
  constexpr int64_t kHour = 3'600'000'000LL;
  auto h = [](int64_t hours) { return std::to_string(hours * kHour); };
  ASSERT_THAT((*writer)->Write(Events(R"([{"id": 1, "category": "x", "ts": )" + h(0) + R"(},
      {"id": 2, "category": "y y", "ts": )" +
                                      h(-1) + R"(},
      {"id": 3, "category": "x", "ts": )" +
                                      h(0) + R"(}])")),
              IsOk());
  ASSERT_THAT((*writer)->Write(Events(R"([{"id": 4, "category": null, "ts": null},
      {"id": 5, "category": "x", "ts": )" +
                                      h(0) + R"(}])")),
              IsOk());
  auto files = (*writer)->Close();
  ASSERT_THAT(files, IsOk());
  ASSERT_EQ(files->size(), 3U);
  const std::vector<std::vector<Literal>> expected = {
      {Literal::String("x"), Literal::Int(0)},
      {Literal::String("y y"), Literal::Int(-1)},
      {Literal::Null(Type::String()), Literal::Null(Type::Int())},
  };
  const std::vector<std::vector<int64_t>> expected_ids = {{1, 3, 5}, {2}, {4}};
  const char* expected_paths[] = {"category=x/ts_hour=1970-01-01-00/1.parquet",
                                  "category=y+y/ts_hour=1969-12-31-23/2.parquet",
                                  "category=null/ts_hour=null/3.parquet"};
  for (size_t i = 0; i < files->size(); ++i) {
    const auto& file = (*files)[i];
    EXPECT_EQ(file.partition, expected[i]);
    EXPECT_EQ(file.spec_id, 5);
    EXPECT_EQ(file.file_path, dir.Path(expected_paths[i]));
    EXPECT_EQ(file.record_count, static_cast<int64_t>(expected_ids[i].size()));
    auto table = ReadTable(file.file_path);
    auto batch = table->CombineChunksToBatch().ValueOrDie();
    EXPECT_EQ(Ids(*batch), expected_ids[i]);
  }
}

TEST(PartitionPathTest, HumanStringsLikeIcebergJava) {
  auto human = [](const Transform& t, const spec::TypePtr& source, const Literal& value) {
    return PartitionValueToHumanString(t, *source, value);
  };
  EXPECT_EQ(human(Transform::Year(), Type::Date(), Literal::Int(47)), "2017");
  EXPECT_EQ(human(Transform::Year(), Type::Date(), Literal::Int(-1)), "1969");
  EXPECT_EQ(human(Transform::Month(), Type::Date(), Literal::Int(574)), "2017-11");
  EXPECT_EQ(human(Transform::Month(), Type::Date(), Literal::Int(-1)), "1969-12");
  EXPECT_EQ(human(Transform::Day(), Type::Date(), Literal::Date(17486)), "2017-11-16");
  EXPECT_EQ(human(Transform::Hour(), Type::Timestamp(), Literal::Int(419686)), "2017-11-16-22");
  EXPECT_EQ(human(Transform::Bucket(4), Type::String(), Literal::Int(3)), "3");
  EXPECT_EQ(human(Transform::Identity(), Type::String(), Literal::Null(Type::String())), "null");
  // The string "null" shows the same: `ingest --overwrite-where` tells them
  // apart by the value, not by this text.
  EXPECT_EQ(human(Transform::Identity(), Type::String(), Literal::String("null")), "null");
  EXPECT_EQ(human(Transform::Identity(), Type::Boolean(), Literal::Boolean(true)), "true");
  EXPECT_EQ(human(Transform::Identity(), Type::Int(), Literal::Int(-5)), "-5");
  EXPECT_EQ(human(Transform::Identity(), Type::Long(), Literal::Long(int64_t{1} << 40)),
            "1099511627776");
  EXPECT_EQ(human(Transform::Identity(), Type::Date(), Literal::Date(20758)), "2026-11-01");
  EXPECT_EQ(human(Transform::Identity(), Type::Timestamp(),
                  Literal(Type::Timestamp(), int64_t{1510871468000000})),
            "2017-11-16T22:31:08");
  EXPECT_EQ(human(Transform::Identity(), Type::TimestampTz(),
                  Literal(Type::TimestampTz(), int64_t{1510871468000001})),
            "2017-11-16T22:31:08.000001Z");
  EXPECT_EQ(
      human(Transform::Identity(), Type::Timestamp(), Literal(Type::Timestamp(), int64_t{-1})),
      "1969-12-31T23:59:59.999999");
  EXPECT_EQ(human(Transform::Identity(), Type::Time(), Literal(Type::Time(), int64_t{36000000000})),
            "10:00");
  EXPECT_EQ(human(Transform::Identity(), Type::Decimal(9, 2),
                  Literal(Type::Decimal(9, 2), std::string("\xff\x9c", 2))),
            "-1.00");
  EXPECT_EQ(human(Transform::Identity(), Type::Binary(), Literal::Binary("\x01\x02\x03")), "AQID");
  EXPECT_EQ(human(Transform::Identity(), Type::Uuid(),
                  Literal(Type::Uuid(), std::string("\xF7\x9C\x3E\x09\x67\x7C\x4B\xBD\xA4\x79"
                                                    "\x3F\x34\x9C\xB7\x85\xE7",
                                                    16))),
            "f79c3e09-677c-4bbd-a479-3f349cb785e7");
}

TEST(PartitionPathTest, EscapesNamesAndValues) {
  auto schema = MakeSchema({Optional(1, "a b", Type::String()), Optional(2, "d", Type::Date())});
  auto spec = Spec(
      {Field(1, 1000, "a b", Transform::Identity()), Field(2, 1001, "d/day", Transform::Day())});
  auto path = PartitionPath(*spec, *schema, {Literal::String("x/y=z&\u00fc"), Literal::Date(-1)});
  ASSERT_THAT(path, IsOk());
  EXPECT_EQ(*path, "a+b=x%2Fy%3Dz%26%C3%BC/d%2Fday=1969-12-31");
  EXPECT_THAT(PartitionPath(*spec, *schema, {Literal::String("x")}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(ArrowLiteralTest, ReadsEachRepresentation) {
  auto batch = Events(R"([{"id": 7, "category": "c", "ts": -5}, {"id": 8}])");
  EXPECT_EQ(LiteralFromArrow(*batch->column(0), 0, Type::Long()).value(), Literal::Long(7));
  EXPECT_EQ(LiteralFromArrow(*batch->column(1), 0, Type::String()).value(), Literal::String("c"));
  EXPECT_EQ(LiteralFromArrow(*batch->column(1), 1, Type::String()).value(),
            Literal::Null(Type::String()));
  EXPECT_EQ(LiteralFromArrow(*batch->column(2), 0, Type::Timestamp()).value(),
            Literal(Type::Timestamp(), int64_t{-5}));
  EXPECT_THAT(LiteralFromArrow(*batch->column(1), 0, Type::Long()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(LiteralFromArrow(*batch->column(1), 5, Type::String()),
              IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::data

namespace skade::data {
namespace {

TEST(FanoutDataWriterTest, SameInputGivesIdenticalFiles) {
  TempDir dir;
  auto schema = EventsSchema();
  auto spec = Spec({Field(1, 1000, "id_bucket", Transform::Bucket(3))});
  std::string rows = "[";
  for (int i = 0; i < 5000; ++i) {
    rows += (i ? "," : "") + std::string("{\"id\": ") + std::to_string(i * 7919) +
            ", \"category\": \"c" + std::to_string(i % 13) + "\"}";
  }
  auto batch = Events(rows + "]");
  auto write = [&](const std::string& name) {
    int n = 0;
    auto writer = FanoutDataWriter::Make(io::NewLocalFileIO(), schema, spec, DataWriterOptions(),
                                         [&](const std::vector<Literal>&) -> Result<std::string> {
                                           return dir.Path(name + std::to_string(n++));
                                         })
                      .value();
    EXPECT_THAT(writer->Write(batch->Slice(0, 2000)), IsOk());
    EXPECT_THAT(writer->Write(batch->Slice(2000)), IsOk());
    return writer->Close().value();
  };
  auto first = write("a");
  auto second = write("b");
  ASSERT_EQ(first.size(), 3U);
  ASSERT_EQ(second.size(), 3U);
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(testing::ReadBytes(first[i].file_path), testing::ReadBytes(second[i].file_path));
    EXPECT_EQ(first[i].partition, second[i].partition);
  }
}

}  // namespace
}  // namespace skade::data
