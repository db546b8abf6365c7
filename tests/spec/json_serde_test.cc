#include "skade/spec/json_serde.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

class JsonSerdeTest : public ::testing::Test {
 protected:
  // The element lives until the next Parse call.
  json::Element Parse(std::string_view text) {
    auto element = json::Parse(parser_, text);
    EXPECT_TRUE(element) << element.error().ToString();
    return element ? *element : json::Element();
  }

  static std::string Write(const std::function<void(JsonWriter&)>& write) {
    JsonWriter writer;
    write(writer);
    return writer.Take();
  }

  simdjson::dom::parser parser_;
};

// ---- Types ---------------------------------------------------------------

TEST_F(JsonSerdeTest, EveryPrimitiveTypeRoundTrips) {
  for (const char* name : {"boolean",
                           "int",
                           "long",
                           "float",
                           "double",
                           "date",
                           "time",
                           "timestamp",
                           "timestamptz",
                           "timestamp_ns",
                           "timestamptz_ns",
                           "string",
                           "uuid",
                           "binary",
                           "unknown",
                           "variant",
                           "decimal(9, 2)",
                           "decimal(38, 38)",
                           "fixed[16]",
                           "geometry",
                           "geometry(srid:4326)",
                           "geography",
                           "geography(srid:4326, spherical)"}) {
    std::string text = StrCat("\"", name, "\"");
    auto type = TypeFromJson(Parse(text));
    ASSERT_THAT(type, IsOk()) << name;
    EXPECT_TRUE((*type)->is_primitive());
    EXPECT_EQ(Write([&](JsonWriter& w) { WriteType(w, **type); }), text);
  }
}

TEST_F(JsonSerdeTest, NonCanonicalPrimitiveSpellingsAreAccepted) {
  auto decimal = TypeFromJson(Parse(R"j("decimal(9,2)")j"));
  ASSERT_THAT(decimal, IsOk());
  EXPECT_TRUE(TypeEquals(*decimal, Type::Decimal(9, 2)));
  auto fixed = TypeFromJson(Parse(R"("fixed[ 4 ]")"));
  ASSERT_THAT(fixed, IsOk());
  EXPECT_TRUE(TypeEquals(*fixed, Type::Fixed(4)));
}

constexpr char kNestedStruct[] =
    R"({"type":"struct","fields":[)"
    R"({"id":1,"name":"id","required":true,"type":"long","doc":"the key"},)"
    R"({"id":2,"name":"tags","required":false,"type":)"
    R"({"type":"list","element-id":5,"element":"string","element-required":true}},)"
    R"({"id":3,"name":"props","required":false,"type":)"
    R"({"type":"map","key-id":6,"key":"string","value-id":7,"value":)"
    R"j({"type":"struct","fields":[{"id":8,"name":"v","required":false,"type":"decimal(9, 2)"}]},)j"
    R"("value-required":false}},)"
    R"({"id":4,"name":"matrix","required":true,"type":)"
    R"({"type":"list","element-id":9,"element":)"
    R"({"type":"list","element-id":10,"element":"double","element-required":false},)"
    R"("element-required":true}}]})";

TEST_F(JsonSerdeTest, NestedTypesParseAndWriteCanonically) {
  auto type = TypeFromJson(Parse(kNestedStruct));
  ASSERT_THAT(type, IsOk());
  const Type& root = **type;
  ASSERT_EQ(root.id(), TypeId::kStruct);
  ASSERT_EQ(root.fields().size(), 4u);
  EXPECT_EQ(root.fields()[0].doc, "the key");
  EXPECT_TRUE(root.fields()[0].required);

  const Type& tags = *root.fields()[1].type;
  ASSERT_EQ(tags.id(), TypeId::kList);
  EXPECT_EQ(tags.list_element().id, 5);
  EXPECT_TRUE(tags.list_element().required);

  const Type& props = *root.fields()[2].type;
  ASSERT_EQ(props.id(), TypeId::kMap);
  EXPECT_EQ(props.map_key().id, 6);
  EXPECT_EQ(props.map_value().id, 7);
  EXPECT_FALSE(props.map_value().required);
  ASSERT_EQ(props.map_value().type->id(), TypeId::kStruct);
  EXPECT_EQ(props.map_value().type->fields()[0].type->ToString(), "decimal(9, 2)");

  const Type& matrix = *root.fields()[3].type;
  EXPECT_EQ(matrix.list_element().type->list_element().id, 10);

  EXPECT_EQ(Write([&](JsonWriter& w) { WriteType(w, root); }), kNestedStruct);
}

TEST_F(JsonSerdeTest, DefaultsAreKeptAsJsonText) {
  constexpr char kField[] = R"({"id":1,"name":"n","required":false,"type":"int",)"
                            R"("initial-default": 34, "write-default" : 35})";
  auto field = NestedFieldFromJson(Parse(kField));
  ASSERT_THAT(field, IsOk());
  EXPECT_EQ(field->initial_default_json, "34");
  EXPECT_EQ(field->write_default_json, "35");

  constexpr char kStructDefault[] = R"({"id":2,"name":"s","required":false,"type":"string",)"
                                    R"("initial-default":"a \"b\"","write-default":{"x": [1, 2]}})";
  auto with_struct = NestedFieldFromJson(Parse(kStructDefault));
  ASSERT_THAT(with_struct, IsOk());
  EXPECT_EQ(with_struct->initial_default_json, R"("a \"b\"")");
  EXPECT_EQ(with_struct->write_default_json, R"({"x":[1,2]})");
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteNestedField(w, *with_struct); }),
            R"({"id":2,"name":"s","required":false,"type":"string",)"
            R"("initial-default":"a \"b\"","write-default":{"x":[1,2]}})");

  auto without = NestedFieldFromJson(Parse(R"({"id":3,"name":"x","required":true,"type":"int"})"));
  ASSERT_THAT(without, IsOk());
  EXPECT_FALSE(without->initial_default_json);
  EXPECT_FALSE(without->write_default_json);
  EXPECT_FALSE(without->doc);
}

TEST_F(JsonSerdeTest, MalformedTypesAreRejected) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{R"("varchar")", "Cannot parse type string to primitive: varchar"},
           Case{R"(5)", "Cannot parse type from json: 5"},
           Case{R"({"type":"tuple"})", "Cannot parse type from json"},
           Case{R"({"fields":[]})", "Cannot parse type from json"},
           Case{R"({"type":"struct"})", "Cannot parse missing list: fields"},
           Case{R"({"type":"struct","fields":{}})", "Cannot parse fields from non-array"},
           Case{R"({"type":"struct","fields":[1]})", "Cannot parse struct field from non-object"},
           Case{R"({"type":"struct","fields":[{"id":1,"name":"a","type":"int"}]})",
                "Cannot parse missing boolean: required"},
           Case{
               R"({"type":"struct","fields":[{"id":"1","name":"a","required":true,"type":"int"}]})",
               "Cannot parse to an integer value: id"},
           Case{R"({"type":"struct","fields":[{"id":1,"required":true,"type":"int"}]})",
                "Cannot parse missing string: name"},
           Case{R"({"type":"struct","fields":[{"id":1,"name":"a","required":true}]})",
                "Cannot parse missing field: type"},
           Case{R"({"type":"struct","fields":[{"id":1,"name":"a","required":1,"type":"int"}]})",
                "Cannot parse to a boolean value: required"},
           Case{R"({"type":"list","element":"int","element-required":true})",
                "Cannot parse missing int: element-id"},
           Case{R"({"type":"list","element-id":1,"element-required":true})",
                "Cannot parse missing field: element"},
           Case{R"({"type":"list","element-id":1,"element":"int"})",
                "Cannot parse missing boolean: element-required"},
           Case{R"({"type":"map","key-id":1,"key":"int","value-id":2,"value-required":true})",
                "Cannot parse missing field: value"},
           Case{R"({"type":"map","key-id":1,"key":"int","value-id":2.5,"value":"int",)"
                R"("value-required":true})",
                "Cannot parse to an integer value: value-id"},
           Case{R"({"type":"map","key":"int","value-id":2,"value":"int","value-required":true})",
                "Cannot parse missing int: key-id"},
       }) {
    EXPECT_THAT(TypeFromJson(Parse(c.json)),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.json;
  }
}

// ---- Schemas -------------------------------------------------------------

TEST_F(JsonSerdeTest, SchemaRoundTrip) {
  constexpr char kSchema[] =
      R"({"type":"struct","schema-id":7,"identifier-field-ids":[1,2],"fields":[)"
      R"({"id":1,"name":"id","required":true,"type":"long"},)"
      R"({"id":2,"name":"region","required":true,"type":"string"},)"
      R"({"id":3,"name":"data","required":false,"type":"binary"}]})";
  auto schema = SchemaFromJson(Parse(kSchema));
  ASSERT_THAT(schema, IsOk());
  EXPECT_EQ((*schema)->schema_id(), 7);
  EXPECT_EQ((*schema)->identifier_field_ids(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ((*schema)->HighestFieldId(), 3);
  EXPECT_EQ(SchemaToJson(**schema), kSchema);

  auto again = SchemaFromJsonString(SchemaToJson(**schema));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ((*again)->schema_id(), 7);
  EXPECT_TRUE((*again)->SameSchema(**schema));
}

TEST_F(JsonSerdeTest, SchemaDefaultsForOldWriters) {
  auto schema = SchemaFromJsonString(
      R"({"type":"struct","fields":[{"id":1,"name":"x","required":false,"type":"int"}]})");
  ASSERT_THAT(schema, IsOk());
  EXPECT_EQ((*schema)->schema_id(), 0);
  EXPECT_TRUE((*schema)->identifier_field_ids().empty());
  // An empty identifier list is not written.
  EXPECT_EQ(SchemaToJson(**schema), R"({"type":"struct","schema-id":0,"fields":[)"
                                    R"({"id":1,"name":"x","required":false,"type":"int"}]})");
}

TEST_F(JsonSerdeTest, MalformedSchemasAreRejected) {
  EXPECT_THAT(
      SchemaFromJsonString(R"("int")"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse schema from non-object"));
  EXPECT_THAT(SchemaFromJsonString(
                  R"({"type":"list","element-id":1,"element":"int","element-required":true})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not a struct type"));
  EXPECT_THAT(SchemaFromJsonString(R"({"type":"struct","schema-id":"1","fields":[]})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "schema-id"));
  EXPECT_THAT(SchemaFromJsonString(R"({"type":"struct","identifier-field-ids":[1.5],"fields":[]})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "identifier-field-ids"));
  EXPECT_THAT(SchemaFromJsonString(R"({"type":"struct","fields":[)"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "malformed JSON"));
}

// Each field is indexed by its full name, which grows with the square of
// the depth: long names nested deep (a few hundred KB of JSON) would make
// gigabytes of names, and are refused before any is made.
TEST_F(JsonSerdeTest, SchemasWhoseFullNamesPassTheBoundAreRejected) {
  auto nested = [](int depth, size_t name_length) {
    std::string text = R"({"type":"struct","fields":[)";
    std::string closing;
    for (int i = 0; i < depth; ++i) {
      StrAppend(&text, R"({"id":)", i + 1, R"(,"name":")", std::string(name_length, 'n'),
                R"(","required":false,"type":)",
                i + 1 == depth ? R"("int"})" : R"({"type":"struct","fields":[)");
      if (i + 1 < depth) closing += "]}}";
    }
    return text + closing + "]}";
  };
  EXPECT_THAT(SchemaFromJsonString(nested(300, 1000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "full names come to more than"));
  EXPECT_THAT(SchemaFromJsonString(nested(20, 100)), IsOk());
}

// ---- Partition specs -----------------------------------------------------

TEST_F(JsonSerdeTest, PartitionSpecRoundTrip) {
  constexpr char kSpec[] =
      R"({"spec-id":3,"fields":[)"
      R"({"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1000},)"
      R"({"name":"ts_day","transform":"day","source-id":4,"field-id":1001},)"
      R"({"name":"s_trunc","transform":"truncate[3]","source-id":2,"field-id":1002},)"
      R"({"name":"z","transform":"zorder","source-ids":[1,2],"field-id":1003}]})";
  auto spec = PartitionSpecFromJsonString(kSpec);
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ((*spec)->spec_id, 3);
  ASSERT_EQ((*spec)->fields.size(), 4u);
  EXPECT_EQ((*spec)->fields[0].transform, Transform::Bucket(16));
  EXPECT_EQ((*spec)->fields[1].transform, Transform::Day());
  EXPECT_EQ((*spec)->fields[2].transform, Transform::Truncate(3));
  EXPECT_EQ((*spec)->fields[3].transform.kind(), TransformKind::kUnknown);
  EXPECT_EQ((*spec)->fields[3].source_ids, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ((*spec)->fields[3].source_id, 1);
  EXPECT_EQ(PartitionSpecToJson(**spec), kSpec);
}

TEST_F(JsonSerdeTest, PartitionFieldIdsMissingInOldSpecsAreAssigned) {
  auto spec = PartitionSpecFromJsonString(
      R"({"spec-id":0,"fields":[{"name":"a","transform":"identity","source-id":1},)"
      R"({"name":"b","transform":"bucket[2]","source-id":2}]})");
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ((*spec)->fields[0].field_id, 1000);
  EXPECT_EQ((*spec)->fields[1].field_id, 1001);

  EXPECT_THAT(PartitionSpecFromJsonString(
                  R"({"spec-id":0,"fields":[{"name":"a","transform":"identity","source-id":1},)"
                  R"({"name":"b","transform":"bucket[2]","source-id":2,"field-id":1005}]})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "missing field IDs: 1 missing of 2"));
  // A single field cannot be given an id without its spec.
  EXPECT_THAT(
      PartitionFieldFromJson(Parse(R"({"name":"a","transform":"identity","source-id":1})")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse missing int: field-id"));
}

TEST_F(JsonSerdeTest, SingleSourceIdsAreNormalized) {
  auto field = PartitionFieldFromJson(
      Parse(R"({"name":"a","transform":"identity","source-ids":[4],"field-id":1000})"));
  ASSERT_THAT(field, IsOk());
  EXPECT_EQ(field->source_id, 4);
  EXPECT_TRUE(field->source_ids.empty());
  EXPECT_THAT(PartitionFieldFromJson(
                  Parse(R"({"name":"a","transform":"identity","source-id":3,"source-ids":[4],)"
                        R"("field-id":1000})")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "conflicting source-id"));
}

TEST_F(JsonSerdeTest, MalformedPartitionSpecsAreRejected) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{R"([])", "Cannot parse partition spec from non-object"},
           Case{R"({"fields":[]})", "Cannot parse missing int: spec-id"},
           Case{R"({"spec-id":0})", "Cannot parse missing field: fields"},
           Case{R"({"spec-id":0,"fields":{}})",
                "Cannot parse partition spec fields from non-array"},
           Case{R"({"spec-id":0,"fields":[{"name":"a","source-id":1,"field-id":1000}]})",
                "Cannot parse missing string: transform"},
           Case{R"({"spec-id":0,"fields":[{"transform":"day","source-id":1,"field-id":1000}]})",
                "Cannot parse missing string: name"},
           Case{R"({"spec-id":0,"fields":[{"name":"a","transform":"day","field-id":1000}]})",
                "Cannot parse missing int: source-id"},
           Case{R"({"spec-id":0,"fields":[{"name":"a","transform":"day","source-ids":[],)"
                R"("field-id":1000}]})",
                "Cannot parse empty list: source-ids"},
           Case{R"({"spec-id":0,"fields":[{"name":"a","transform":"bucket[0]","source-id":1,)"
                R"("field-id":1000}]})",
                "Invalid transform: bucket[0]"},
       }) {
    EXPECT_THAT(PartitionSpecFromJsonString(c.json),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.json;
  }
}

// ---- Sort orders ---------------------------------------------------------

TEST_F(JsonSerdeTest, SortOrderRoundTrip) {
  constexpr char kOrder[] =
      R"({"order-id":2,"fields":[)"
      R"({"transform":"identity","source-id":2,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"bucket[4]","source-id":3,"direction":"desc","null-order":"nulls-last"}]})";
  auto order = SortOrderFromJsonString(kOrder);
  ASSERT_THAT(order, IsOk());
  EXPECT_EQ((*order)->order_id, 2);
  ASSERT_EQ((*order)->fields.size(), 2u);
  EXPECT_EQ((*order)->fields[1].direction, SortDirection::kDesc);
  EXPECT_EQ((*order)->fields[1].null_order, NullOrder::kNullsLast);
  EXPECT_EQ((*order)->fields[1].transform, Transform::Bucket(4));
  EXPECT_EQ(SortOrderToJson(**order), kOrder);

  auto unsorted = SortOrderFromJsonString(R"({"order-id":0,"fields":[]})");
  ASSERT_THAT(unsorted, IsOk());
  EXPECT_TRUE((*unsorted)->IsUnsorted());
  EXPECT_EQ(SortOrderToJson(**unsorted), R"({"order-id":0,"fields":[]})");
}

TEST_F(JsonSerdeTest, MalformedSortOrdersAreRejected) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"order-id":1,"fields":[{"transform":"identity","source-id":2,)"
                R"("direction":"up","null-order":"nulls-first"}]})",
                "Invalid sort direction: up"},
           Case{R"({"order-id":1,"fields":[{"transform":"identity","source-id":2,)"
                R"("direction":"asc","null-order":"nulls-middle"}]})",
                "Unexpected null order: nulls-middle"},
           Case{R"({"order-id":1,"fields":[{"transform":"identity","source-id":2,)"
                R"("null-order":"nulls-first"}]})",
                "Cannot parse missing string: direction"},
           Case{R"({"order-id":0,"fields":[{"transform":"identity","source-id":2,)"
                R"("direction":"asc","null-order":"nulls-first"}]})",
                "Sort order ID 0 is reserved for unsorted order"},
           Case{R"({"order-id":3,"fields":[]})", "Unsorted order ID must be 0"},
           Case{R"({"fields":[]})", "Cannot parse missing int: order-id"},
       }) {
    EXPECT_THAT(SortOrderFromJsonString(c.json),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.json;
  }
}

// ---- Snapshots and refs ----------------------------------------------------

TEST_F(JsonSerdeTest, SnapshotRoundTripKeepsExact64BitIds) {
  constexpr char kSnapshot[] =
      R"({"sequence-number":5,"snapshot-id":9223372036854775807,)"
      R"("parent-snapshot-id":3051729675574597004,"timestamp-ms":1515100955770,)"
      R"("summary":{"operation":"append","added-data-files":"4","total-records":"9007199254740993"},)"
      R"("manifest-list":"s3://b/wh/t/metadata/snap-1.avro","schema-id":1,)"
      R"("first-row-id":100,"added-rows":30,"key-id":"k1"})";
  auto snapshot = SnapshotFromJson(Parse(kSnapshot));
  ASSERT_THAT(snapshot, IsOk());
  EXPECT_EQ((*snapshot)->snapshot_id, std::numeric_limits<int64_t>::max());
  EXPECT_EQ((*snapshot)->parent_snapshot_id, 3051729675574597004);
  EXPECT_EQ((*snapshot)->sequence_number, 5);
  EXPECT_EQ((*snapshot)->operation(), "append");
  EXPECT_EQ((*snapshot)->summary.at("total-records"), "9007199254740993");
  EXPECT_EQ((*snapshot)->schema_id, 1);
  EXPECT_EQ((*snapshot)->first_row_id, 100);
  EXPECT_EQ((*snapshot)->added_rows, 30);
  EXPECT_EQ((*snapshot)->key_id, "k1");
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteSnapshot(w, **snapshot, 3); }), kSnapshot);
}

TEST_F(JsonSerdeTest, SnapshotSequenceNumberIsWrittenFromV2On) {
  Snapshot snapshot;
  snapshot.snapshot_id = 1;
  snapshot.timestamp_ms = 2;
  snapshot.manifest_list = "m";
  snapshot.summary = {{"operation", "append"}};
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteSnapshot(w, snapshot, 1); }),
            R"({"snapshot-id":1,"timestamp-ms":2,"summary":{"operation":"append"},)"
            R"("manifest-list":"m"})");
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteSnapshot(w, snapshot, 2); }),
            R"({"sequence-number":0,"snapshot-id":1,"timestamp-ms":2,)"
            R"("summary":{"operation":"append"},"manifest-list":"m"})");
}

TEST_F(JsonSerdeTest, V1SnapshotsWithInlineManifestsAndNoSummary) {
  constexpr char kSnapshot[] =
      R"({"snapshot-id":1,"timestamp-ms":2,"manifests":["a.avro","b.avro"]})";
  auto snapshot = SnapshotFromJson(Parse(kSnapshot));
  ASSERT_THAT(snapshot, IsOk());
  EXPECT_EQ((*snapshot)->sequence_number, 0);
  EXPECT_TRUE((*snapshot)->manifest_list.empty());
  EXPECT_EQ((*snapshot)->manifests, (std::vector<std::string>{"a.avro", "b.avro"}));
  EXPECT_TRUE((*snapshot)->summary.empty());
  EXPECT_FALSE((*snapshot)->parent_snapshot_id);
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteSnapshot(w, **snapshot, 1); }), kSnapshot);
}

TEST_F(JsonSerdeTest, SummaryWithoutOperationReadsAsOverwrite) {
  auto snapshot = SnapshotFromJson(
      Parse(R"({"snapshot-id":1,"timestamp-ms":2,"manifest-list":"m","summary":{"x":"y"}})"));
  ASSERT_THAT(snapshot, IsOk());
  EXPECT_EQ((*snapshot)->operation(), "overwrite");
  EXPECT_EQ((*snapshot)->summary.at("x"), "y");
}

TEST_F(JsonSerdeTest, MalformedSnapshotsAreRejected) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"timestamp-ms":2,"manifest-list":"m"})",
                "Cannot parse missing long: snapshot-id"},
           Case{R"({"snapshot-id":1,"manifest-list":"m"})",
                "Cannot parse missing long: timestamp-ms"},
           Case{R"({"snapshot-id":1,"timestamp-ms":2})",
                "Cannot parse missing string: manifest-list"},
           Case{R"({"snapshot-id":9223372036854775808,"timestamp-ms":2,"manifest-list":"m"})",
                "Cannot parse to a long value: snapshot-id"},
           Case{R"({"snapshot-id":1.0,"timestamp-ms":2,"manifest-list":"m"})",
                "Cannot parse to a long value: snapshot-id"},
           Case{R"({"snapshot-id":"1","timestamp-ms":2,"manifest-list":"m"})",
                "Cannot parse to a long value: snapshot-id"},
           Case{R"({"snapshot-id":1,"timestamp-ms":2,"manifest-list":5})",
                "Cannot parse to a string value: manifest-list"},
           Case{R"({"snapshot-id":1,"timestamp-ms":2,"manifest-list":""})", "empty manifest-list"},
           Case{R"({"snapshot-id":1,"timestamp-ms":2,"manifest-list":"m","summary":[]})",
                "Cannot parse summary from non-object"},
           Case{R"({"snapshot-id":1,"timestamp-ms":2,"manifest-list":"m","summary":{"a":1}})",
                "value of 'a' is not a string"},
           Case{R"({"snapshot-id":1,"timestamp-ms":2,"manifests":[1]})",
                "Cannot parse to a string value: manifests"},
           Case{R"([1])", "Cannot parse snapshot from non-object"},
       }) {
    EXPECT_THAT(SnapshotFromJson(Parse(c.json)),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.json;
  }
}

TEST_F(JsonSerdeTest, SnapshotRefsRoundTrip) {
  constexpr char kBranch[] =
      R"({"snapshot-id":3051729675574597004,"type":"branch","min-snapshots-to-keep":2,)"
      R"("max-snapshot-age-ms":86400000,"max-ref-age-ms":604800000})";
  auto branch = SnapshotRefFromJson(Parse(kBranch));
  ASSERT_THAT(branch, IsOk());
  EXPECT_TRUE(branch->is_branch());
  EXPECT_EQ(branch->snapshot_id, 3051729675574597004);
  EXPECT_EQ(branch->min_snapshots_to_keep, 2);
  EXPECT_EQ(branch->max_snapshot_age_ms, 86400000);
  EXPECT_EQ(branch->max_ref_age_ms, 604800000);
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteSnapshotRef(w, *branch); }), kBranch);

  constexpr char kTag[] = R"({"snapshot-id":7,"type":"tag","max-ref-age-ms":1000})";
  auto tag = SnapshotRefFromJson(Parse(kTag));
  ASSERT_THAT(tag, IsOk());
  EXPECT_FALSE(tag->is_branch());
  EXPECT_FALSE(tag->min_snapshots_to_keep);
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteSnapshotRef(w, *tag); }), kTag);

  auto upper = SnapshotRefFromJson(Parse(R"({"snapshot-id":7,"type":"TAG"})"));
  ASSERT_THAT(upper, IsOk());
  EXPECT_FALSE(upper->is_branch());
}

TEST_F(JsonSerdeTest, MalformedSnapshotRefsAreRejected) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"snapshot-id":1,"type":"bookmark"})", "Invalid snapshot ref type: bookmark"},
           Case{R"({"snapshot-id":1})", "Cannot parse missing string: type"},
           Case{R"({"type":"branch"})", "Cannot parse missing long: snapshot-id"},
           Case{R"({"snapshot-id":1,"type":"tag","min-snapshots-to-keep":1})",
                "Tags do not support"},
           Case{R"({"snapshot-id":1,"type":"tag","max-snapshot-age-ms":1})", "Tags do not support"},
           Case{R"({"snapshot-id":1,"type":"branch","min-snapshots-to-keep":0})",
                "Min snapshots to keep must be greater than 0"},
           Case{R"({"snapshot-id":1,"type":"branch","max-snapshot-age-ms":-5})",
                "Max snapshot age must be greater than 0"},
           Case{R"({"snapshot-id":1,"type":"branch","max-ref-age-ms":0})",
                "Max reference age must be greater than 0"},
       }) {
    EXPECT_THAT(SnapshotRefFromJson(Parse(c.json)),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.json;
  }
}

// ---- Statistics and encryption keys --------------------------------------

TEST_F(JsonSerdeTest, StatisticsFilesRoundTrip) {
  constexpr char kStatistics[] =
      R"({"snapshot-id":3055729675574597004,"statistics-path":"s3://a/b/stats.puffin",)"
      R"("file-size-in-bytes":413,"file-footer-size-in-bytes":42,"key-metadata":"a2V5",)"
      R"("blob-metadata":[{"type":"apache-datasketches-theta-v1","snapshot-id":3055729675574597004,)"
      R"("sequence-number":1,"fields":[1,2],"properties":{"ndv":"3"}},)"
      R"({"type":"t2","snapshot-id":1,"sequence-number":0,"fields":[]}]})";
  auto file = StatisticsFileFromJson(Parse(kStatistics));
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->snapshot_id, 3055729675574597004);
  EXPECT_EQ(file->key_metadata, "a2V5");
  ASSERT_EQ(file->blob_metadata.size(), 2u);
  EXPECT_EQ(file->blob_metadata[0].fields, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(file->blob_metadata[0].properties.at("ndv"), "3");
  EXPECT_TRUE(file->blob_metadata[1].properties.empty());
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteStatisticsFile(w, *file); }), kStatistics);

  EXPECT_THAT(
      StatisticsFileFromJson(
          Parse(R"({"snapshot-id":1,"statistics-path":"p","file-size-in-bytes":1,)"
                R"("file-footer-size-in-bytes":1})")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse missing list: blob-metadata"));
  EXPECT_THAT(
      StatisticsFileFromJson(
          Parse(R"({"snapshot-id":1,"statistics-path":"p","file-size-in-bytes":1,)"
                R"("file-footer-size-in-bytes":1,"blob-metadata":[{"type":"t"}]})")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse missing long: snapshot-id"));
}

TEST_F(JsonSerdeTest, PartitionStatisticsRoundTrip) {
  constexpr char kFile[] =
      R"({"snapshot-id":3,"statistics-path":"s3://a/p.parquet","file-size-in-bytes":43})";
  auto file = PartitionStatisticsFileFromJson(Parse(kFile));
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->file_size_in_bytes, 43);
  EXPECT_EQ(Write([&](JsonWriter& w) { WritePartitionStatisticsFile(w, *file); }), kFile);
  EXPECT_THAT(PartitionStatisticsFileFromJson(Parse(R"({"snapshot-id":3,"statistics-path":"p"})")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "file-size-in-bytes"));
}

TEST_F(JsonSerdeTest, EncryptionKeysRoundTrip) {
  constexpr char kKey[] =
      R"({"key-id":"k2","encrypted-key-metadata":"aWNlYmVyZwo=","encrypted-by-id":"k1",)"
      R"("properties":{"a":"b"}})";
  auto key = EncryptionKeyFromJson(Parse(kKey));
  ASSERT_THAT(key, IsOk());
  EXPECT_EQ(key->encrypted_by_id, "k1");
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteEncryptionKey(w, *key); }), kKey);

  constexpr char kMinimal[] = R"({"key-id":"k1","encrypted-key-metadata":"eA=="})";
  auto minimal = EncryptionKeyFromJson(Parse(kMinimal));
  ASSERT_THAT(minimal, IsOk());
  EXPECT_EQ(Write([&](JsonWriter& w) { WriteEncryptionKey(w, *minimal); }), kMinimal);
  EXPECT_THAT(EncryptionKeyFromJson(Parse(R"({"key-id":"k1"})")),
              IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::spec
