#include "skade/avro/type_conversion.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::avro {
namespace {

using ::skade::testing::IsError;
using ::skade::testing::IsOk;
using spec::NestedField;
using spec::Type;
using spec::TypePtr;

NestedField Optional(int32_t id, const char* name, TypePtr type) {
  return NestedField{id, name, std::move(type), false, {}, {}, {}};
}

NestedField Required(int32_t id, const char* name, TypePtr type) {
  return NestedField{id, name, std::move(type), true, {}, {}, {}};
}

TEST(TypeConversionTest, NestedTypesRoundTripThroughAvro) {
  TypePtr type = Type::Struct({
      Required(1, "id", Type::Long()),
      Optional(2, "tags", Type::List(Optional(3, "element", Type::String()))),
      Optional(4, "props",
               Type::Map(Required(5, "key", Type::String()), Optional(6, "value", Type::Double()))),
      Optional(7, "counts",
               Type::Map(Required(8, "key", Type::Int()), Required(9, "value", Type::Long()))),
      Optional(
          10, "location",
          Type::Struct({Required(11, "lat", Type::Double()), Optional(12, "lon", Type::Double())})),
      Optional(13, "ts", Type::Timestamp()),
      Optional(14, "ts_tz", Type::TimestampTz()),
      Optional(15, "ts_ns", Type::TimestampNs()),
      Optional(16, "ts_tz_ns", Type::TimestampTzNs()),
      Optional(17, "t", Type::Time()),
      Optional(18, "d", Type::Date()),
      Optional(19, "u", Type::Uuid()),
      Optional(20, "f", Type::Fixed(7)),
      Optional(21, "amount", Type::Decimal(38, 10)),
      Optional(22, "other_amount", Type::Decimal(38, 10)),
      Optional(23, "b", Type::Binary()),
      Optional(24, "nothing", Type::Unknown()),
      Optional(25, "flag", Type::Boolean()),
      Optional(26, "x", Type::Float()),
      Optional(27, "v", Type::Variant()),
  });
  auto avro = ToAvroSchema(*type, "table");
  ASSERT_THAT(avro, IsOk());
  const Node& record = **avro;
  EXPECT_EQ(record.name, "table");
  EXPECT_EQ(record.fields[0].type->type, AvroType::kLong);
  EXPECT_EQ(record.fields[1].default_json, "null");
  EXPECT_EQ(record.fields[1].type->NonNullBranch()->IntAttribute("element-id"), 3);
  const Node& props = *record.fields[2].type->NonNullBranch();
  EXPECT_EQ(props.type, AvroType::kMap);
  EXPECT_EQ(props.IntAttribute("key-id"), 5);
  const Node& counts = *record.fields[3].type->NonNullBranch();
  EXPECT_EQ(counts.type, AvroType::kArray);
  EXPECT_EQ(counts.logical_type, "map");
  EXPECT_EQ(counts.items->name, "k8_v9");
  EXPECT_EQ(record.fields[4].type->NonNullBranch()->name, "r10");
  EXPECT_EQ(record.fields[5].type->NonNullBranch()->BoolAttribute("adjust-to-utc"), false);
  EXPECT_EQ(record.fields[6].type->NonNullBranch()->BoolAttribute("adjust-to-utc"), true);
  EXPECT_EQ(record.fields[11].type->NonNullBranch()->name, "uuid_fixed");
  EXPECT_EQ(record.fields[12].type->NonNullBranch()->name, "fixed_7");
  const Node& decimal = *record.fields[13].type->NonNullBranch();
  EXPECT_EQ(decimal.name, "decimal_38_10");
  EXPECT_EQ(decimal.fixed_size, 16);
  // An unknown column is just null, not a union with null.
  EXPECT_EQ(record.fields[16].type->type, AvroType::kNull);

  // Through JSON (the second decimal becomes a reference) and back.
  std::string json = SchemaToJson(record);
  auto parsed = ParseSchema(json);
  ASSERT_THAT(parsed, IsOk()) << json;
  auto back = ToIcebergType(**parsed);
  ASSERT_THAT(back, IsOk());
  EXPECT_TRUE(spec::TypeEquals(*back, type)) << json;
}

TEST(TypeConversionTest, InvalidNamesAreSanitizedAndKept) {
  EXPECT_TRUE(IsValidAvroName("_ok_1"));
  EXPECT_FALSE(IsValidAvroName("1st"));
  EXPECT_FALSE(IsValidAvroName("a-b"));
  EXPECT_FALSE(IsValidAvroName(""));
  EXPECT_EQ(SanitizeAvroName("1st"), "_1st");
  EXPECT_EQ(SanitizeAvroName("a-b.c"), "a_x2Db_x2Ec");
  EXPECT_EQ(SanitizeAvroName("caf\xc3\xa9"), "caf_xE9");

  TypePtr type = Type::Struct({Optional(1, "event-time", Type::Long())});
  auto avro = ToAvroSchema(*type, "r");
  ASSERT_THAT(avro, IsOk());
  EXPECT_EQ((*avro)->fields[0].name, "event_x2Dtime");
  auto back = ToIcebergType(**ParseSchema(SchemaToJson(**avro)));
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ((*back)->fields()[0].name, "event-time");
}

TEST(TypeConversionTest, AcceptsOtherWritersForms) {
  auto schema = ParseSchema(R"({"type": "record", "name": "r", "fields": [
      {"name": "a", "field-id": 1, "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
      {"name": "b", "field-id": 2, "type": {"type": "long", "logicalType": "timestamp-micros"}},
      {"name": "c", "field-id": 3, "type": {"type": "bytes", "logicalType": "decimal",
                                            "precision": 10, "scale": 3}},
      {"name": "d", "field-id": 4, "type": {"type": "string", "logicalType": "uuid"}},
      {"name": "e", "field-id": 5, "type": {"type": "enum", "name": "e", "symbols": ["X"]}}]})");
  ASSERT_THAT(schema, IsOk());
  auto type = ToIcebergType(**schema);
  ASSERT_THAT(type, IsOk());
  const auto& fields = (*type)->fields();
  EXPECT_TRUE(spec::TypeEquals(fields[0].type, Type::Timestamp()));
  // Without adjust-to-utc, timestamp-micros is a timestamp with zone, as
  // Iceberg Java reads it.
  EXPECT_TRUE(spec::TypeEquals(fields[1].type, Type::TimestampTz()));
  EXPECT_TRUE(spec::TypeEquals(fields[2].type, Type::Decimal(10, 3)));
  EXPECT_TRUE(spec::TypeEquals(fields[3].type, Type::Uuid()));
  EXPECT_TRUE(spec::TypeEquals(fields[4].type, Type::String()));
}

TEST(TypeConversionTest, MissingIdsAndUnionsAreRejected) {
  auto no_id =
      ParseSchema(R"({"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]})");
  EXPECT_THAT(ToIcebergType(**no_id), IsError(ErrorKind::kInvalidArgument));
  auto union_type = ParseSchema(
      R"({"type": "record", "name": "r", "fields": [{"name": "a", "field-id": 1, "type": ["int", "string"]}]})");
  EXPECT_THAT(ToIcebergType(**union_type), IsError(ErrorKind::kInvalidArgument));
  auto list = ParseSchema(R"({"type": "array", "items": "int"})");
  EXPECT_THAT(ToIcebergType(**list), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ToAvroSchema(*Type::Long(), "r"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(PrimitiveToAvro(*Type::Geometry("")), IsError(ErrorKind::kUnsupported));
}

TEST(TypeConversionTest, DecimalSizesMatchIceberg) {
  EXPECT_EQ(DecimalRequiredBytes(1), 1);
  EXPECT_EQ(DecimalRequiredBytes(2), 1);
  EXPECT_EQ(DecimalRequiredBytes(3), 2);
  EXPECT_EQ(DecimalRequiredBytes(9), 4);
  EXPECT_EQ(DecimalRequiredBytes(10), 5);
  EXPECT_EQ(DecimalRequiredBytes(18), 8);
  EXPECT_EQ(DecimalRequiredBytes(19), 9);
  EXPECT_EQ(DecimalRequiredBytes(38), 16);
}

}  // namespace
}  // namespace skade::avro
