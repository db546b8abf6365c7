#include "skade/avro/schema.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::avro {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;

// A manifest_entry schema in the shape Iceberg writers produce: field ids,
// element ids, a map as an array of key/value records, logical types.
constexpr char kManifestEntrySchema[] = R"({
  "type": "record", "name": "manifest_entry", "fields": [
    {"name": "status", "type": "int", "field-id": 0},
    {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
    {"name": "data_file", "type": {"type": "record", "name": "r2", "fields": [
      {"name": "file_path", "type": "string", "doc": "Location URI", "field-id": 100},
      {"name": "partition", "type": {"type": "record", "name": "r102", "fields": [
        {"name": "ts_day", "type": ["null", {"type": "int", "logicalType": "date"}],
         "default": null, "field-id": 1000},
        {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros",
         "adjust-to-utc": true}], "default": null, "field-id": 1001},
        {"name": "price", "type": ["null", {"type": "fixed", "name": "decimal_9_2", "size": 4,
         "logicalType": "decimal", "precision": 9, "scale": 2}], "default": null, "field-id": 1002},
        {"name": "other_price", "type": ["null", "decimal_9_2"], "default": null, "field-id": 1003}
      ]}, "field-id": 102},
      {"name": "column_sizes", "type": ["null", {"type": "array", "logicalType": "map",
        "items": {"type": "record", "name": "k117_v118", "fields": [
          {"name": "key", "type": "int", "field-id": 117},
          {"name": "value", "type": "long", "field-id": 118}]}}], "default": null, "field-id": 108},
      {"name": "split_offsets", "type": ["null", {"type": "array", "items": "long",
        "element-id": 133}], "default": null, "field-id": 132}
    ]}, "field-id": 2}
  ]})";

TEST(AvroSchemaTest, ParsesIcebergAttributes) {
  auto schema = ParseSchema(kManifestEntrySchema);
  ASSERT_THAT(schema, testing::IsOk());
  const Node& root = **schema;
  ASSERT_EQ(root.type, AvroType::kRecord);
  EXPECT_EQ(root.name, "manifest_entry");
  ASSERT_EQ(root.fields.size(), 3u);
  EXPECT_EQ(root.fields[0].field_id, 0);
  EXPECT_EQ(root.fields[1].field_id, 1);
  EXPECT_EQ(root.fields[1].default_json, "null");
  ASSERT_EQ(root.fields[1].type->type, AvroType::kUnion);
  EXPECT_EQ(root.fields[1].type->NonNullBranch()->type, AvroType::kLong);

  const Node& data_file = *root.fields[2].type;
  EXPECT_EQ(data_file.name, "r2");
  EXPECT_EQ(data_file.fields[0].doc, "Location URI");
  const Node& partition = *data_file.fields[1].type;
  EXPECT_EQ(partition.name, "r102");
  const Node& day = *partition.fields[0].type->NonNullBranch();
  EXPECT_EQ(day.logical_type, "date");
  const Node& ts = *partition.fields[1].type->NonNullBranch();
  EXPECT_EQ(ts.BoolAttribute("adjust-to-utc"), true);
  const Node& price = *partition.fields[2].type->NonNullBranch();
  EXPECT_EQ(price.fixed_size, 4);
  EXPECT_EQ(price.IntAttribute("precision"), 9);
  // A reference to a named type is the same node.
  EXPECT_EQ(partition.fields[3].type->NonNullBranch(), &price);

  const Node& column_sizes = *data_file.fields[2].type->NonNullBranch();
  EXPECT_EQ(column_sizes.logical_type, "map");
  EXPECT_EQ(column_sizes.items->fields[1].field_id, 118);
  const Node& split_offsets = *data_file.fields[3].type->NonNullBranch();
  EXPECT_EQ(split_offsets.IntAttribute("element-id"), 133);
}

TEST(AvroSchemaTest, JsonRoundTripKeepsEveryAttribute) {
  auto schema = ParseSchema(kManifestEntrySchema);
  ASSERT_TRUE(schema);
  std::string json = SchemaToJson(**schema);
  // Ids and logical types survive, and the repeated named type is written as
  // a reference, not a second definition.
  for (const char* expected :
       {R"("field-id":1002)", R"("element-id":133)", R"("adjust-to-utc":true)",
        R"("logicalType":"map")", R"("precision":9)", R"(["null","decimal_9_2"])"}) {
    EXPECT_NE(json.find(expected), std::string::npos) << expected << " in " << json;
  }
  auto reparsed = ParseSchema(json);
  ASSERT_THAT(reparsed, testing::IsOk());
  EXPECT_EQ(SchemaToJson(**reparsed), json);
}

TEST(AvroSchemaTest, NamespacesQualifyReferences) {
  auto schema = ParseSchema(R"({"type": "record", "name": "outer", "namespace": "a.b", "fields": [
      {"name": "x", "type": {"type": "fixed", "name": "f16", "size": 16}},
      {"name": "y", "type": "f16"},
      {"name": "z", "type": "a.b.f16"}]})");
  ASSERT_THAT(schema, testing::IsOk());
  const Node& root = **schema;
  EXPECT_EQ(root.FullName(), "a.b.outer");
  EXPECT_EQ(root.fields[0].type->FullName(), "a.b.f16");
  EXPECT_EQ(root.fields[1].type, root.fields[0].type);
  EXPECT_EQ(root.fields[2].type, root.fields[0].type);
  auto reparsed = ParseSchema(SchemaToJson(root));
  ASSERT_THAT(reparsed, testing::IsOk());
  EXPECT_EQ((*reparsed)->fields[2].type->fixed_size, 16);
}

TEST(AvroSchemaTest, PrimitivesWithAndWithoutAttributes) {
  auto plain = ParseSchema(R"("long")");
  ASSERT_TRUE(plain);
  EXPECT_EQ(SchemaToJson(**plain), R"("long")");
  auto annotated =
      ParseSchema(R"({"type": "long", "logicalType": "time-micros", "x-custom": [1]})");
  ASSERT_TRUE(annotated);
  EXPECT_EQ(SchemaToJson(**annotated),
            R"({"type":"long","logicalType":"time-micros","x-custom":[1]})");
  auto map = ParseSchema(R"({"type": "map", "values": "string", "key-id": 5, "value-id": 6})");
  ASSERT_TRUE(map);
  EXPECT_EQ((*map)->IntAttribute("key-id"), 5);
  auto enumeration = ParseSchema(R"({"type": "enum", "name": "e", "symbols": ["A", "B"]})");
  ASSERT_TRUE(enumeration);
  EXPECT_EQ((*enumeration)->symbols.size(), 2u);
}

TEST(AvroSchemaTest, StringFieldIdsAreAccepted) {
  auto schema = ParseSchema(
      R"({"type": "record", "name": "r", "fields": [{"name": "a", "type": "int", "field-id": "7"}]})");
  ASSERT_TRUE(schema);
  EXPECT_EQ((*schema)->fields[0].field_id, 7);
}

TEST(AvroSchemaTest, RejectsInvalidSchemas) {
  EXPECT_THAT(ParseSchema("{"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseSchema(R"("nosuchtype")"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Unknown"));
  EXPECT_THAT(ParseSchema(R"({"type": "record", "fields": []})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseSchema("[]"), IsErrorWithMessage(ErrorKind::kInvalidArgument, "empty union"));
  EXPECT_THAT(ParseSchema("42"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseSchema(R"({"type": "fixed", "name": "f", "size": -1})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseSchema(R"({"type": "record", "name": "r", "fields": [
                  {"name": "a", "type": "int", "field-id": "x"}]})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "field-id"));
  // Recursive types would make every walk infinite.
  EXPECT_THAT(ParseSchema(R"({"type": "record", "name": "node", "fields": [
                  {"name": "next", "type": ["null", "node"]}]})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Recursive"));
}

TEST(AvroSchemaTest, RejectsExcessiveNesting) {
  std::string deep;
  for (int i = 0; i < kMaxSchemaDepth + 5; ++i) deep += R"({"type": "array", "items": )";
  deep += R"("int")";
  for (int i = 0; i < kMaxSchemaDepth + 5; ++i) deep += "}";
  EXPECT_THAT(ParseSchema(deep), IsErrorWithMessage(ErrorKind::kInvalidArgument, "deeper"));
}

}  // namespace
}  // namespace skade::avro
