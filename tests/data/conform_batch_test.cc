#include "skade/data/conform_batch.h"

#include <arrow/api.h>
#include <arrow/compute/cast.h>
#include <arrow/extension/uuid.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "data_test_util.h"
#include "skade/data/arrow_schema.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using spec::Type;
using testing::ArrayFromJson;
using testing::BatchFromJson;
using testing::MakeSchema;
using testing::Optional;
using testing::Required;

TEST(ConformBatchTest, ResultHasTheCanonicalSchemaWithIds) {
  auto schema = MakeSchema({
      Required(1, "id", Type::Long()),
      Optional(2, "name", Type::String()),
      Optional(3, "tags", Type::List(Optional(4, "element", Type::String()))),
      Optional(5, "attrs",
               Type::Map(Required(6, "key", Type::String()), Optional(7, "value", Type::Int()))),
  });
  // Different column order, large types, narrower ints, no ids.
  auto input = arrow::schema({
      arrow::field("name", arrow::large_utf8()),
      arrow::field("attrs", arrow::map(arrow::utf8(), arrow::int16())),
      arrow::field("tags", arrow::large_list(arrow::large_utf8())),
      arrow::field("id", arrow::int32(), false),
  });
  auto batch = BatchFromJson(input, R"([
      {"name": "a", "attrs": [["k", 1]], "tags": ["x", null], "id": 1},
      {"name": null, "attrs": null, "tags": [], "id": 2}])");
  auto conformed = ConformBatch(batch, *schema);
  ASSERT_THAT(conformed, IsOk());
  EXPECT_TRUE((*conformed)->schema()->Equals(*ToArrowSchema(*schema).value(), true))
      << (*conformed)->schema()->ToString(true);
  ASSERT_TRUE((*conformed)->ValidateFull().ok());
  auto expected = BatchFromJson(ToArrowSchema(*schema).value(), R"([
      {"id": 1, "name": "a", "tags": ["x", null], "attrs": [["k", 1]]},
      {"id": 2, "name": null, "tags": [], "attrs": null}])");
  EXPECT_TRUE((*conformed)->Equals(*expected)) << (*conformed)->ToString();
}

TEST(ConformBatchTest, ConformedBatchIsReturnedAsIs) {
  auto schema = MakeSchema({Required(1, "id", Type::Long()),
                            Optional(2, "s", Type::Struct({Optional(3, "x", Type::Double())}))});
  auto batch = BatchFromJson(ToArrowSchema(*schema).value(),
                             R"([{"id": 1, "s": {"x": 1.5}}, {"id": 2, "s": null}])");
  auto conformed = ConformBatch(batch, *schema);
  ASSERT_THAT(conformed, IsOk());
  EXPECT_EQ(conformed->get(), batch.get());
}

TEST(ConformBatchTest, RetagsUuidDecimalAndUtcSpellings) {
  auto schema = MakeSchema({Optional(1, "u", Type::Uuid()), Optional(2, "d", Type::Decimal(10, 2)),
                            Optional(3, "t", Type::TimestampTz())});
  auto input = arrow::schema({
      arrow::field("u", arrow::fixed_size_binary(16)),
      arrow::field("d", arrow::decimal128(5, 2)),
      arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO, "Etc/UTC")),
  });
  auto batch = BatchFromJson(
      input,
      R"([{"u": "0123456789abcdef", "d": "123.45", "t": 7}, {"u": null, "d": null, "t": null}])");
  auto conformed = ConformBatch(batch, *schema).value();
  EXPECT_TRUE(conformed->column(0)->type()->Equals(arrow::extension::uuid()));
  EXPECT_TRUE(conformed->column(1)->type()->Equals(arrow::decimal128(10, 2)));
  EXPECT_TRUE(
      conformed->column(2)->type()->Equals(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  // Zero-copy: the value buffers are shared.
  EXPECT_EQ(conformed->column_data(1)->buffers[1], batch->column_data(1)->buffers[1]);
  EXPECT_EQ(conformed->column_data(2)->buffers[1], batch->column_data(2)->buffers[1]);
}

TEST(ConformBatchTest, WidensLosslessly) {
  auto schema = MakeSchema({Optional(1, "i", Type::Int()), Optional(2, "l", Type::Long()),
                            Optional(3, "d", Type::Double()), Optional(4, "t", Type::Timestamp())});
  auto input =
      arrow::schema({arrow::field("i", arrow::uint16()), arrow::field("l", arrow::uint32()),
                     arrow::field("d", arrow::float32()),
                     arrow::field("t", arrow::timestamp(arrow::TimeUnit::MILLI))});
  auto batch = BatchFromJson(input, R"([{"i": 65535, "l": 4294967295, "d": 0.5, "t": -1},
                                        {"i": null, "l": null, "d": null, "t": null}])");
  auto conformed = ConformBatch(batch, *schema).value();
  auto expected = BatchFromJson(ToArrowSchema(*schema).value(),
                                R"([{"i": 65535, "l": 4294967295, "d": 0.5, "t": -1000},
                                    {"i": null, "l": null, "d": null, "t": null}])");
  EXPECT_TRUE(conformed->Equals(*expected)) << conformed->ToString();
}

// Parquet from pandas or Spark (INT96) holds nanoseconds; a v1/v2 table's
// timestamps are microseconds: floored, as Iceberg Java converts them (so a
// value before 1970 does not move to a later microsecond, or day).
TEST(ConformBatchTest, NanosecondsIntoMicrosecondsAreTruncated) {
  auto schema =
      MakeSchema({Optional(1, "t", Type::Timestamp()), Optional(2, "z", Type::TimestampTz())});
  auto input = arrow::schema({arrow::field("t", arrow::timestamp(arrow::TimeUnit::NANO)),
                              arrow::field("z", arrow::timestamp(arrow::TimeUnit::NANO, "UTC"))});
  auto batch = BatchFromJson(input, R"([{"t": 1700000000123456789, "z": 1999},
                                        {"t": null, "z": 1000}, {"t": -1500, "z": -1}])");
  auto conformed = ConformBatch(batch, *schema);
  ASSERT_THAT(conformed, IsOk());
  auto expected = BatchFromJson(ToArrowSchema(*schema).value(),
                                R"([{"t": 1700000000123456, "z": 1},
                                    {"t": null, "z": 1}, {"t": -2, "z": -1}])");
  EXPECT_TRUE((*conformed)->Equals(*expected)) << (*conformed)->ToString();
  // Microseconds never become nanoseconds (a v3 timestamp_ns column): refused.
  auto nanos = MakeSchema({Optional(1, "t", Type::TimestampNs())});
  auto micros =
      BatchFromJson(arrow::schema({arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO))}),
                    R"([{"t": 1}])");
  EXPECT_THAT(ConformBatch(micros, *nanos),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 't'"));
}

// JSON has no timestamps: its text converts as the CSV reader's does, an
// offset allowed only in a zoned column and required there.
TEST(ConformBatchTest, TimestampTextConvertsStrictlyAboutZones) {
  auto schema =
      MakeSchema({Optional(1, "t", Type::Timestamp()), Optional(2, "z", Type::TimestampTz())});
  auto text = arrow::schema({arrow::field("t", arrow::utf8()), arrow::field("z", arrow::utf8())});
  auto good =
      BatchFromJson(text, R"([{"t": "2024-01-01T10:00:00.000001", "z": "2024-01-01T10:00:00+05:00"},
                                      {"t": null, "z": "1970-01-01T00:00:00Z"}])");
  auto conformed = ConformBatch(good, *schema);
  ASSERT_THAT(conformed, IsOk());
  auto expected = BatchFromJson(ToArrowSchema(*schema).value(),
                                R"([{"t": 1704103200000001, "z": 1704085200000000},
                                    {"t": null, "z": 0}])");
  EXPECT_TRUE((*conformed)->Equals(*expected)) << (*conformed)->ToString();
  auto offset_in_local = BatchFromJson(text, R"([{"t": "2024-01-01T10:00:00+05:00", "z": null}])");
  EXPECT_THAT(ConformBatch(offset_in_local, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "expected no zone offset"));
  auto local_in_zoned = BatchFromJson(text, R"([{"t": null, "z": "2024-01-01T10:00:00"}])");
  EXPECT_THAT(ConformBatch(local_in_zoned, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "expected a zone offset"));
}

// Arrow's text readers rescale a decimal to the column's type without
// checking its digits: one too wide is refused, not written.
TEST(ConformBatchTest, DecimalsWiderThanTheColumnAreRefused) {
  auto schema = MakeSchema({Optional(1, "d", Type::Decimal(10, 2))});
  auto same_type = arrow::schema({arrow::field("d", arrow::decimal128(10, 2))});
  auto fits = BatchFromJson(same_type, R"([{"d": "99999999.99"}, {"d": null}])");
  EXPECT_THAT(ConformBatch(fits, *schema), IsOk());
  auto wide = BatchFromJson(same_type, R"([{"d": "1.00"}, {"d": "123456789.50"}])");
  EXPECT_THAT(ConformBatch(wide, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Column 'd': 123456789.50 does not fit decimal(10, 2)"));
  auto narrower = arrow::schema({arrow::field("d", arrow::decimal128(5, 2))});
  EXPECT_THAT(ConformBatch(BatchFromJson(narrower, R"([{"d": "999.99"}])"), *schema), IsOk());
}

// JSON has no dates or times: ISO-8601 text converts, strictly.
TEST(ConformBatchTest, DateAndTimeTextConverts) {
  auto schema = MakeSchema({Optional(1, "d", Type::Date()), Optional(2, "t", Type::Time())});
  auto text = arrow::schema({arrow::field("d", arrow::utf8()), arrow::field("t", arrow::utf8())});
  auto good = BatchFromJson(text, R"([{"d": "2026-02-01", "t": "10:00:00.5"},
                                      {"d": null, "t": "23:59:59.9999999"}])");
  auto conformed = ConformBatch(good, *schema);
  ASSERT_THAT(conformed, IsOk());
  auto expected = BatchFromJson(ToArrowSchema(*schema).value(),
                                R"([{"d": 20485, "t": 36000500000},
                                    {"d": null, "t": 86399999999}])");
  EXPECT_TRUE((*conformed)->Equals(*expected)) << (*conformed)->ToString();
  EXPECT_THAT(
      ConformBatch(BatchFromJson(text, R"([{"d": "2026-02-01T00:00:00", "t": null}])"), *schema),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 'd'"));
  EXPECT_THAT(
      ConformBatch(BatchFromJson(text, R"([{"d": null, "t": "25:00"}])"), *schema),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 't': '25:00' is not a time of day"));

  // As Arrow's JSON reader infers them: dates as midnights in seconds, or
  // numbers (days, microseconds), or nulls alone.
  auto inferred = arrow::schema({arrow::field("d", arrow::timestamp(arrow::TimeUnit::SECOND)),
                                 arrow::field("t", arrow::int64())});
  conformed = ConformBatch(BatchFromJson(inferred, R"([{"d": 1769904000, "t": 36000500000},
                                                        {"d": null, "t": 86399999999}])"),
                           *schema);
  ASSERT_THAT(conformed, IsOk());
  EXPECT_TRUE((*conformed)->Equals(*expected)) << (*conformed)->ToString();
  EXPECT_THAT(ConformBatch(BatchFromJson(inferred, R"([{"d": 1769904001, "t": null}])"), *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "is not a date"));
  EXPECT_THAT(ConformBatch(BatchFromJson(inferred, R"([{"d": null, "t": 86400000000}])"), *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "is not a time of day"));
  auto days = arrow::schema({arrow::field("d", arrow::int64()), arrow::field("t", arrow::null())});
  conformed = ConformBatch(BatchFromJson(days, R"([{"d": 20485, "t": null}])"), *schema);
  ASSERT_THAT(conformed, IsOk());
  EXPECT_TRUE(
      (*conformed)
          ->Equals(*BatchFromJson(ToArrowSchema(*schema).value(), R"([{"d": 20485, "t": null}])")));
}

TEST(ConformBatchTest, MissingOptionalColumnsBecomeNulls) {
  auto schema = MakeSchema(
      {Required(1, "id", Type::Long()), Optional(2, "note", Type::String()),
       Optional(3, "s",
                Type::Struct({Optional(4, "a", Type::Int()), Optional(5, "b", Type::Int())}))});
  auto input =
      arrow::schema({arrow::field("id", arrow::int64(), false),
                     arrow::field("s", arrow::struct_({arrow::field("a", arrow::int32())}))});
  auto batch = BatchFromJson(input, R"([{"id": 1, "s": {"a": 1}}, {"id": 2, "s": null}])");
  auto conformed = ConformBatch(batch, *schema);
  ASSERT_THAT(conformed, IsOk());
  ASSERT_TRUE((*conformed)->ValidateFull().ok());
  EXPECT_EQ((*conformed)->column(1)->null_count(), 2);
  auto expected = BatchFromJson(ToArrowSchema(*schema).value(), R"([
      {"id": 1, "note": null, "s": {"a": 1, "b": null}},
      {"id": 2, "note": null, "s": null}])");
  EXPECT_TRUE((*conformed)->Equals(*expected)) << (*conformed)->ToString();
}

TEST(ConformBatchTest, RejectsMissingRequiredAndUnknownColumns) {
  auto schema = MakeSchema({Required(1, "id", Type::Long()), Optional(2, "x", Type::Int())});
  auto only_x = BatchFromJson(arrow::schema({arrow::field("x", arrow::int32())}), R"([{"x": 1}])");
  EXPECT_THAT(ConformBatch(only_x, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "'id' is required but missing"));
  auto extra = BatchFromJson(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("zzz", arrow::int32())}),
      R"([{"id": 1, "zzz": 1}])");
  EXPECT_THAT(
      ConformBatch(extra, *schema),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "'zzz' is not in the Iceberg schema"));
}

TEST(ConformBatchTest, RejectsTypesThatDoNotFit) {
  auto schema = MakeSchema({Optional(1, "i", Type::Int()), Optional(2, "s", Type::String())});
  auto wide = BatchFromJson(
      arrow::schema({arrow::field("i", arrow::int64()), arrow::field("s", arrow::utf8())}),
      R"([{"i": 1, "s": "a"}])");
  EXPECT_THAT(
      ConformBatch(wide, *schema),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 'i': cannot write Arrow type int64"));
  auto nested = MakeSchema({Optional(1, "s", Type::Struct({Optional(2, "t", Type::Timestamp())}))});
  auto zoned = BatchFromJson(
      arrow::schema({arrow::field(
          "s",
          arrow::struct_({arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))}))}),
      R"([{"s": {"t": 1}}])");
  EXPECT_THAT(ConformBatch(zoned, *nested),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 's.t'"));
}

TEST(ConformBatchTest, RequiredFieldsMustNotHoldNulls) {
  auto schema = MakeSchema({Required(1, "id", Type::Long())});
  auto batch = BatchFromJson(arrow::schema({arrow::field("id", arrow::int64())}),
                             R"([{"id": 1}, {"id": null}])");
  EXPECT_THAT(ConformBatch(batch, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "'id' is required but has null"));
}

TEST(ConformBatchTest, RequiredChildMayBeNullUnderNullParent) {
  auto schema = MakeSchema({Optional(1, "s", Type::Struct({Required(2, "x", Type::Int())})),
                            Optional(3, "l", Type::List(Required(4, "element", Type::Int())))});
  // The child array has a null only where the struct itself is null.
  auto x = ArrayFromJson(arrow::int32(), "[1, null, 3]");
  auto validity = ArrayFromJson(arrow::boolean(), "[true, false, true]");
  auto s = arrow::StructArray::Make({x}, {arrow::field("x", arrow::int32())},
                                    validity->data()->buffers[1], 1, 0)
               .ValueOrDie();
  auto l = ArrayFromJson(arrow::list(arrow::int32()), "[[1], null, []]");
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("s", s->type()), arrow::field("l", l->type())}), 3, {s, l});
  EXPECT_THAT(ConformBatch(batch, *schema), IsOk());

  auto null_under_valid = ArrayFromJson(arrow::list(arrow::int32()), "[[1, null], null, []]");
  auto bad = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("s", s->type()), arrow::field("l", l->type())}), 3,
      {s, null_under_valid});
  EXPECT_THAT(ConformBatch(bad, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "'l.element' is required"));
}

TEST(ConformBatchTest, SlicedBatchesConform) {
  auto schema = MakeSchema({Optional(1, "s", Type::String()), Optional(2, "i", Type::Long())});
  auto batch = BatchFromJson(
      arrow::schema({arrow::field("s", arrow::large_utf8()), arrow::field("i", arrow::int8())}),
      R"([{"s": "a", "i": 1}, {"s": "b", "i": 2}, {"s": "c", "i": 3}])");
  auto conformed = ConformBatch(batch->Slice(1, 2), *schema).value();
  auto expected =
      BatchFromJson(ToArrowSchema(*schema).value(), R"([{"s": "b", "i": 2}, {"s": "c", "i": 3}])");
  EXPECT_TRUE(conformed->Equals(*expected)) << conformed->ToString();
}

// Regression: JSON and Parquet readers pass bytes on unchecked, and a
// string column holding anything but UTF-8 made the table unreadable
// (DuckDB: "Invalid string encoding ... not valid UTF8").
TEST(ConformBatchTest, StringsThatAreNotUtf8AreRefused) {
  auto schema = MakeSchema({Optional(1, "s", Type::String()),
                            Optional(2, "l", Type::List(Optional(3, "element", Type::String())))});
  arrow::StringBuilder text;
  ASSERT_TRUE(text.Append("ok").ok());
  ASSERT_TRUE(text.Append(std::string("a\xff\xfe"
                                      "b"))
                  .ok());
  auto bad = text.Finish().ValueOrDie();
  auto good = ArrayFromJson(arrow::utf8(), R"(["ok", "é"])");
  auto lists = ArrayFromJson(arrow::list(arrow::utf8()), R"([["x"], null])");
  auto batch_of = [&](std::shared_ptr<arrow::Array> s, std::shared_ptr<arrow::Array> l) {
    return arrow::RecordBatch::Make(
        arrow::schema({arrow::field("s", s->type()), arrow::field("l", l->type())}), 2, {s, l});
  };
  EXPECT_THAT(ConformBatch(batch_of(good, lists), *schema), IsOk());
  EXPECT_THAT(ConformBatch(batch_of(bad, lists), *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Column 's' holds a value that is not valid UTF-8"));
  auto large = arrow::compute::Cast(*bad, arrow::large_utf8()).ValueOrDie();
  EXPECT_THAT(ConformBatch(batch_of(large, lists), *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 's'"));
  auto bad_elements =
      arrow::ListArray::FromArrays(*ArrayFromJson(arrow::int32(), "[0, 1, 2]"), *bad).ValueOrDie();
  EXPECT_THAT(ConformBatch(batch_of(good, bad_elements), *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 'l.element'"));
  // A null's bytes are not a value.
  auto null_over_bad = bad->data()->Copy();
  null_over_bad->buffers[0] = ArrayFromJson(arrow::boolean(), "[true, false]")->data()->buffers[1];
  null_over_bad->null_count = 1;
  EXPECT_THAT(ConformBatch(batch_of(arrow::MakeArray(null_over_bad), lists), *schema), IsOk());
}

// Regression: columns were matched by name with a scan per column, so a CSV
// of 100,000 columns took minutes to conform.
TEST(ConformBatchTest, WideBatchesConformInLinearTime) {
  constexpr int kColumns = 100000;
  std::vector<spec::NestedField> targets;
  arrow::FieldVector fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  auto value = ArrayFromJson(arrow::int64(), "[1]");
  for (int i = 0; i < kColumns; ++i) {
    const std::string name = "c" + std::to_string(i);
    targets.push_back(Optional(i + 1, name, Type::Long()));
    // The input in reverse order, so matching by position does not help.
    fields.push_back(arrow::field("c" + std::to_string(kColumns - 1 - i), arrow::int64()));
    columns.push_back(value);
  }
  auto schema = MakeSchema(targets);
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), 1, columns);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_THAT(ConformBatch(batch, *schema), IsOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  // The rules are those of the scan: an unknown input column, then a
  // table column the input names twice.
  auto twice = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("c1", arrow::int64()), arrow::field("c1", arrow::int64())}), 1,
      {value, value});
  EXPECT_THAT(ConformBatch(twice, *schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Column 'c1' appears more than once in the batch"));
  auto unknown = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("c1", arrow::int64()), arrow::field("c1", arrow::int64()),
                     arrow::field("zzz", arrow::int64())}),
      1, {value, value, value});
  EXPECT_THAT(
      ConformBatch(unknown, *schema),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column 'zzz' is not in the Iceberg schema"));
}

}  // namespace
}  // namespace skade::data
