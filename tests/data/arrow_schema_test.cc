#include "skade/data/arrow_schema.h"

#include <arrow/api.h>
#include <arrow/extension/uuid.h>
#include <gtest/gtest.h>

#include "data_test_util.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using spec::Type;
using testing::MakeSchema;
using testing::Optional;
using testing::Required;

std::shared_ptr<const arrow::KeyValueMetadata> Id(int32_t id) {
  return arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(id)});
}

int32_t IdOf(const arrow::Field& field) { return FieldIdOf(field).value(); }

spec::SchemaPtr AllTypesSchema() {
  return MakeSchema({
      Required(1, "b", Type::Boolean()),
      Optional(2, "i", Type::Int()),
      Optional(3, "l", Type::Long()),
      Optional(4, "f", Type::Float()),
      Optional(5, "d", Type::Double()),
      Optional(6, "dec", Type::Decimal(38, 10)),
      Optional(7, "date", Type::Date()),
      Optional(8, "time", Type::Time()),
      Optional(9, "ts", Type::Timestamp()),
      Optional(10, "tstz", Type::TimestampTz()),
      Optional(11, "ts_ns", Type::TimestampNs()),
      Optional(12, "tstz_ns", Type::TimestampTzNs()),
      Optional(13, "s", Type::String()),
      Optional(14, "u", Type::Uuid()),
      Optional(15, "fx", Type::Fixed(7)),
      Optional(16, "bin", Type::Binary()),
      Optional(17, "st",
               Type::Struct({Required(18, "x", Type::Int()), Optional(19, "y", Type::String())})),
      Optional(20, "lst", Type::List(Optional(21, "element", Type::Long()))),
      Optional(
          22, "m",
          Type::Map(Required(23, "key", Type::String()), Optional(24, "value", Type::Double()))),
  });
}

TEST(ArrowSchemaTest, IcebergToArrowTypes) {
  auto arrow_schema = ToArrowSchema(*AllTypesSchema());
  ASSERT_THAT(arrow_schema, IsOk());
  const arrow::Schema& s = **arrow_schema;
  EXPECT_TRUE(s.field(0)->type()->Equals(arrow::boolean()));
  EXPECT_FALSE(s.field(0)->nullable());
  EXPECT_TRUE(s.field(1)->nullable());
  EXPECT_TRUE(s.field(1)->type()->Equals(arrow::int32()));
  EXPECT_TRUE(s.field(2)->type()->Equals(arrow::int64()));
  EXPECT_TRUE(s.field(3)->type()->Equals(arrow::float32()));
  EXPECT_TRUE(s.field(4)->type()->Equals(arrow::float64()));
  EXPECT_TRUE(s.field(5)->type()->Equals(arrow::decimal128(38, 10)));
  EXPECT_TRUE(s.field(6)->type()->Equals(arrow::date32()));
  EXPECT_TRUE(s.field(7)->type()->Equals(arrow::time64(arrow::TimeUnit::MICRO)));
  EXPECT_TRUE(s.field(8)->type()->Equals(arrow::timestamp(arrow::TimeUnit::MICRO)));
  EXPECT_TRUE(s.field(9)->type()->Equals(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  EXPECT_TRUE(s.field(10)->type()->Equals(arrow::timestamp(arrow::TimeUnit::NANO)));
  EXPECT_TRUE(s.field(11)->type()->Equals(arrow::timestamp(arrow::TimeUnit::NANO, "UTC")));
  EXPECT_TRUE(s.field(12)->type()->Equals(arrow::utf8()));
  EXPECT_TRUE(s.field(13)->type()->Equals(arrow::extension::uuid()));
  EXPECT_TRUE(s.field(14)->type()->Equals(arrow::fixed_size_binary(7)));
  EXPECT_TRUE(s.field(15)->type()->Equals(arrow::binary()));
  for (int i = 0; i < s.num_fields(); ++i) {
    EXPECT_GT(IdOf(*s.field(i)), 0) << s.field(i)->name();
  }
}

TEST(ArrowSchemaTest, IcebergToArrowPutsIdsOnNestedFields) {
  auto arrow_schema = ToArrowSchema(*AllTypesSchema()).value();
  const auto& st = arrow_schema->GetFieldByName("st");
  EXPECT_EQ(IdOf(*st), 17);
  EXPECT_EQ(IdOf(*st->type()->field(0)), 18);
  EXPECT_FALSE(st->type()->field(0)->nullable());
  EXPECT_EQ(IdOf(*st->type()->field(1)), 19);

  const auto& lst = arrow_schema->GetFieldByName("lst");
  ASSERT_EQ(lst->type()->id(), arrow::Type::LIST);
  EXPECT_EQ(IdOf(*lst), 20);
  EXPECT_EQ(lst->type()->field(0)->name(), "element");
  EXPECT_EQ(IdOf(*lst->type()->field(0)), 21);

  const auto& m = arrow_schema->GetFieldByName("m");
  ASSERT_EQ(m->type()->id(), arrow::Type::MAP);
  const auto& map = static_cast<const arrow::MapType&>(*m->type());
  EXPECT_EQ(IdOf(*m), 22);
  EXPECT_EQ(IdOf(*map.key_field()), 23);
  EXPECT_EQ(IdOf(*map.item_field()), 24);
}

TEST(ArrowSchemaTest, RoundTripKeepsSchema) {
  auto schema = AllTypesSchema();
  auto arrow_schema = ToArrowSchema(*schema).value();
  auto back = FromArrowSchema(*arrow_schema);
  ASSERT_THAT(back, IsOk());
  EXPECT_TRUE((*back)->SameSchema(*schema));
}

TEST(ArrowSchemaTest, UnsupportedIcebergTypes) {
  EXPECT_THAT(ToArrowSchema(*MakeSchema({Optional(1, "v", Type::Variant())})),
              IsErrorWithMessage(ErrorKind::kUnsupported, "'v'"));
  EXPECT_THAT(ToArrowSchema(*MakeSchema({Optional(1, "g", Type::Geometry(""))})),
              IsErrorWithMessage(ErrorKind::kUnsupported, "geometry"));
}

TEST(ArrowSchemaTest, ArrowToIcebergAcceptsOtherRepresentations) {
  auto arrow_schema = arrow::schema({
      arrow::field("i8", arrow::int8()),
      arrow::field("u16", arrow::uint16()),
      arrow::field("u32", arrow::uint32()),
      arrow::field("ls", arrow::large_utf8()),
      arrow::field("lb", arrow::large_binary()),
      arrow::field("ll", arrow::large_list(arrow::int32())),
      arrow::field("ms", arrow::timestamp(arrow::TimeUnit::MILLI)),
      arrow::field("etc", arrow::timestamp(arrow::TimeUnit::MICRO, "Etc/UTC")),
      arrow::field("fsb16", arrow::fixed_size_binary(16)),
  });
  auto schema = FromArrowSchema(*arrow_schema);
  ASSERT_THAT(schema, IsOk());
  const auto& fields = (*schema)->fields();
  EXPECT_EQ(fields[0].type->id(), spec::TypeId::kInt);
  EXPECT_EQ(fields[1].type->id(), spec::TypeId::kInt);
  EXPECT_EQ(fields[2].type->id(), spec::TypeId::kLong);
  EXPECT_EQ(fields[3].type->id(), spec::TypeId::kString);
  EXPECT_EQ(fields[4].type->id(), spec::TypeId::kBinary);
  EXPECT_EQ(fields[5].type->id(), spec::TypeId::kList);
  EXPECT_EQ(fields[6].type->id(), spec::TypeId::kTimestamp);
  EXPECT_EQ(fields[7].type->id(), spec::TypeId::kTimestampTz);
  EXPECT_TRUE(spec::TypeEquals(fields[8].type, Type::Fixed(16)));
}

TEST(ArrowSchemaTest, ArrowToIcebergAssignsFreshIdsInIcebergOrder) {
  // Iceberg assigns a struct's direct children first, then nested fields.
  auto arrow_schema = arrow::schema({
      arrow::field("a", arrow::int32(), false),
      arrow::field("b", arrow::struct_({arrow::field("c", arrow::utf8()),
                                        arrow::field("d", arrow::list(arrow::float64()))})),
      arrow::field("e", arrow::map(arrow::utf8(), arrow::int64())),
      arrow::field("f", arrow::boolean()),
  });
  auto schema = FromArrowSchema(*arrow_schema).value();
  EXPECT_EQ(schema->FindFieldByName("a")->id, 1);
  EXPECT_TRUE(schema->FindFieldByName("a")->required);
  EXPECT_EQ(schema->FindFieldByName("b")->id, 2);
  EXPECT_EQ(schema->FindFieldByName("e")->id, 3);
  EXPECT_EQ(schema->FindFieldByName("f")->id, 4);
  EXPECT_EQ(schema->FindFieldByName("b.c")->id, 5);
  EXPECT_EQ(schema->FindFieldByName("b.d")->id, 6);
  EXPECT_EQ(schema->FindFieldByName("b.d.element")->id, 7);
  EXPECT_EQ(schema->FindFieldByName("e.key")->id, 8);
  EXPECT_TRUE(schema->FindFieldByName("e.key")->required);
  EXPECT_EQ(schema->FindFieldByName("e.value")->id, 9);
}

TEST(ArrowSchemaTest, ArrowToIcebergKeepsIdsAndFillsGapsAboveThem) {
  auto arrow_schema = arrow::schema({
      arrow::field("a", arrow::int32(), true, Id(10)),
      arrow::field("b", arrow::list(arrow::field("item", arrow::utf8(), true, Id(20)))),
      arrow::field("c", arrow::int64()),
  });
  auto schema = FromArrowSchema(*arrow_schema).value();
  EXPECT_EQ(schema->FindFieldByName("a")->id, 10);
  EXPECT_EQ(schema->FindFieldByName("b.element")->id, 20);
  EXPECT_EQ(schema->FindFieldByName("b")->id, 21);
  EXPECT_EQ(schema->FindFieldByName("c")->id, 22);
}

TEST(ArrowSchemaTest, ArrowToIcebergRejectsDuplicateAndBadIds) {
  EXPECT_THAT(FromArrowSchema(*arrow::schema({arrow::field("a", arrow::int32(), true, Id(1)),
                                              arrow::field("b", arrow::int32(), true, Id(1))})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than once"));
  auto bad = arrow::key_value_metadata({kParquetFieldIdKey}, {"x"});
  EXPECT_THAT(FromArrowSchema(*arrow::schema({arrow::field("a", arrow::int32(), true, bad)})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "invalid PARQUET:field_id"));
}

TEST(ArrowSchemaTest, ArrowToIcebergRejectsUnwritableTypesNamingTheColumn) {
  struct Case {
    std::shared_ptr<arrow::DataType> type;
    const char* why;
  };
  const Case cases[] = {
      {arrow::uint64(), "unsigned 64-bit"},
      {arrow::float16(), "16-bit float"},
      {arrow::time32(arrow::TimeUnit::MILLI), "microseconds"},
      {arrow::time64(arrow::TimeUnit::NANO), "microseconds"},
      {arrow::date64(), "date32"},
      {arrow::timestamp(arrow::TimeUnit::MICRO, "Europe/Oslo"), "UTC"},
      {arrow::duration(arrow::TimeUnit::MICRO), "no Iceberg equivalent"},
      {arrow::month_interval(), "no Iceberg equivalent"},
      {arrow::dictionary(arrow::int32(), arrow::utf8()), "dictionary"},
      {arrow::null(), "only nulls"},
      {arrow::decimal256(40, 2), "decimal128"},
      {arrow::utf8_view(), "large variants"},
      {arrow::fixed_size_list(arrow::int32(), 2), "list or large_list"},
      {arrow::sparse_union({arrow::field("x", arrow::int32())}), "no Iceberg equivalent"},
  };
  for (const auto& c : cases) {
    auto schema = arrow::schema({arrow::field(
        "outer", arrow::struct_({arrow::field("inner", arrow::list(arrow::field("e", c.type)))}))});
    auto result = FromArrowSchema(*schema);
    EXPECT_THAT(result, IsErrorWithMessage(ErrorKind::kInvalidArgument, "outer.inner.element"))
        << c.type->ToString();
    EXPECT_THAT(result, IsErrorWithMessage(ErrorKind::kInvalidArgument, c.why))
        << c.type->ToString();
  }
}

// Regression: a 600-byte JSON input nested 100 levels deep made --create
// commit a table that neither skade scan nor PyIceberg could read.
TEST(ArrowSchemaTest, ArrowToIcebergRejectsSchemasNestedTooDeep) {
  // `levels` nested types around a long, cycling struct, list and map.
  auto nested = [](int levels) {
    std::shared_ptr<arrow::DataType> type = arrow::int64();
    for (int i = 0; i < levels; ++i) {
      switch (i % 3) {
        case 0:
          type = arrow::struct_({arrow::field("a", type)});
          break;
        case 1:
          type = arrow::list(type);
          break;
        default:
          type = arrow::map(arrow::utf8(), type);
          break;
      }
    }
    return arrow::schema({arrow::field("c", type)});
  };
  auto at_limit = FromArrowSchema(*nested(32));
  ASSERT_THAT(at_limit, IsOk());
  EXPECT_EQ((*at_limit)->fields().size(), 1u);

  auto deeper = FromArrowSchema(*nested(33));
  EXPECT_THAT(deeper, IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than 32 levels"));
  // The path to the 33rd nested type: the outermost of the 33 is a map.
  std::string path = "c";
  for (int i = 32; i > 0; --i) path += i % 3 == 0 ? ".a" : i % 3 == 1 ? ".element" : ".value";
  EXPECT_THAT(deeper, IsErrorWithMessage(ErrorKind::kInvalidArgument, "Column '" + path + "'"));

  // Far deeper input (the fuzzed JSON case) stops at the limit too.
  EXPECT_THAT(FromArrowSchema(*nested(5000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than 32 levels"));
}

}  // namespace
}  // namespace skade::data
