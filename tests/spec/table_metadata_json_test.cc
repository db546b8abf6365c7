#include "skade/spec/table_metadata_json.h"

#include <gtest/gtest.h>

#include "skade/util/gzip.h"
#include "skade/util/json_reader.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

constexpr int64_t kSnapshot1 = 3051729675574597004;
constexpr int64_t kSnapshot2 = 9223372036854775807;  // the largest id must survive exactly
constexpr int64_t kSnapshot3 = 4587291740561205461;

NestedField Field(int32_t id, std::string name, TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), std::move(type), required};
}

SnapshotPtr MakeSnapshot(int version, int64_t id, std::optional<int64_t> parent, int64_t sequence,
                         int64_t timestamp_ms, int32_t schema_id) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->snapshot_id = id;
  snapshot->parent_snapshot_id = parent;
  snapshot->sequence_number = version >= 2 ? sequence : 0;
  snapshot->timestamp_ms = timestamp_ms;
  snapshot->manifest_list = StrCat("s3://bucket/wh/db/t/metadata/snap-", id, "-1-abc.avro");
  snapshot->summary = {{"operation", sequence == 1 ? "append" : "overwrite"},
                       {"added-data-files", StrCat(sequence)},
                       {"total-records", StrCat(sequence * 10)}};
  snapshot->schema_id = schema_id;
  if (version >= 3) {
    snapshot->first_row_id = (sequence - 1) * 100;
    snapshot->added_rows = 100;
  }
  return snapshot;
}

// A table with two schemas, two partition specs, a sort order, three
// snapshots, a tagged and a branched snapshot, statistics and both logs.
TableMetadataPtr SampleMetadata(int version) {
  auto metadata = std::make_shared<TableMetadata>();
  metadata->format_version = version;
  metadata->table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  metadata->location = "s3://bucket/wh/db/t";
  metadata->last_sequence_number = version >= 2 ? 3 : 0;
  metadata->last_updated_ms = 1602638573590;
  metadata->last_column_id = 6;
  std::vector<NestedField> base = {Field(1, "id", Type::Long(), true),
                                   Field(2, "data", Type::String()),
                                   Field(3, "ts", Type::TimestampTz())};
  metadata->schemas.push_back(std::make_shared<const Schema>(0, base));
  std::vector<NestedField> evolved = base;
  evolved.push_back(Field(4, "tags", Type::List(Field(5, "", Type::String(), true)), false));
  evolved.push_back(Field(6, "price", Type::Decimal(9, 2)));
  if (version >= 3) {
    evolved.back().initial_default_json = "\"1.50\"";
    evolved.back().write_default_json = "\"2.00\"";
  }
  metadata->schemas.push_back(std::make_shared<const Schema>(1, evolved, std::vector<int32_t>{1}));
  metadata->current_schema_id = 1;

  metadata->partition_specs.push_back(std::make_shared<const PartitionSpec>(
      PartitionSpec{0, {PartitionField{2, {}, 1000, "data", Transform::Identity()}}}));
  metadata->partition_specs.push_back(std::make_shared<const PartitionSpec>(
      PartitionSpec{1,
                    {PartitionField{2, {}, 1000, "data", Transform::Identity()},
                     PartitionField{1, {}, 1001, "id_bucket", Transform::Bucket(16)},
                     PartitionField{3, {}, 1002, "ts_day", Transform::Day()},
                     PartitionField{2, {}, 1003, "data_trunc", Transform::Truncate(4)}}}));
  metadata->default_spec_id = 1;
  metadata->last_partition_id = 1003;

  metadata->sort_orders.push_back(SortOrder::Unsorted());
  metadata->sort_orders.push_back(std::make_shared<const SortOrder>(SortOrder{
      1,
      {SortField{Transform::Identity(), 1, {}, SortDirection::kAsc, NullOrder::kNullsFirst},
       SortField{Transform::Hour(), 3, {}, SortDirection::kDesc, NullOrder::kNullsLast}}}));
  metadata->default_sort_order_id = 1;
  metadata->properties = {{"owner", "skade"}, {"write.format.default", "parquet"}};

  metadata->snapshots = {MakeSnapshot(version, kSnapshot1, std::nullopt, 1, 1602638573000, 0),
                         MakeSnapshot(version, kSnapshot2, kSnapshot1, 2, 1602638573100, 1),
                         MakeSnapshot(version, kSnapshot3, kSnapshot2, 3, 1602638573200, 1)};
  metadata->current_snapshot_id = kSnapshot3;
  metadata->refs = {
      {"main", SnapshotRef{kSnapshot3}},
      {"audit", SnapshotRef{kSnapshot2, SnapshotRefType::kBranch, 3, 86400000, 604800000}},
      {"v1.0", SnapshotRef{kSnapshot1, SnapshotRefType::kTag, {}, {}, 31536000000}},
  };
  metadata->snapshot_log = {
      {1602638573000, kSnapshot1}, {1602638573100, kSnapshot2}, {1602638573200, kSnapshot3}};
  metadata->metadata_log = {{1602638572000, "s3://bucket/wh/db/t/metadata/00000-a.metadata.json"},
                            {1602638573000, "s3://bucket/wh/db/t/metadata/00001-b.metadata.json"}};
  metadata->statistics = {StatisticsFile{
      kSnapshot3,
      "s3://bucket/wh/db/t/metadata/stats.puffin",
      413,
      42,
      std::nullopt,
      {BlobMetadata{"apache-datasketches-theta-v1", kSnapshot3, 3, {1}, {{"ndv", "3"}}}}}};
  metadata->partition_statistics = {PartitionStatisticsFile{
      kSnapshot3, "s3://bucket/wh/db/t/metadata/partition-stats.parquet", 43}};
  if (version >= 3) {
    metadata->next_row_id = 300;
    metadata->encryption_keys = {EncryptionKey{"k1", "aWNlYmVyZwo=", std::nullopt, {}}};
  }
  metadata->Finalize();
  return metadata;
}

// `text` with `from` (which must occur) replaced by `to`.
std::string Replace(std::string text, std::string_view from, std::string_view to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "missing: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

bool HasKey(const std::string& json, std::string_view key) {
  return json.find(StrCat("\"", key, "\":")) != std::string::npos;
}

class TableMetadataRoundTripTest : public ::testing::TestWithParam<int> {};

TEST_P(TableMetadataRoundTripTest, WriteParseEqualsAndIsStable) {
  int version = GetParam();
  TableMetadataPtr original = SampleMetadata(version);
  std::string json = TableMetadataToJson(*original);
  auto parsed = TableMetadataFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE((*parsed)->Equals(*original)) << json;
  EXPECT_EQ(TableMetadataToJson(**parsed), json);

  // Finalize() ran: the lookups work.
  ASSERT_NE((*parsed)->Schema(), nullptr);
  EXPECT_EQ((*parsed)->Schema()->schema_id(), 1);
  ASSERT_NE((*parsed)->CurrentSnapshot(), nullptr);
  EXPECT_EQ((*parsed)->CurrentSnapshot()->snapshot_id, kSnapshot3);
  ASSERT_NE((*parsed)->SnapshotForRef("audit"), nullptr);
  EXPECT_EQ((*parsed)->SnapshotForRef("audit")->snapshot_id, kSnapshot2);
  EXPECT_EQ((*parsed)->Spec()->spec_id, 1);
  EXPECT_EQ((*parsed)->SortOrder()->order_id, 1);
}

TEST_P(TableMetadataRoundTripTest, EmptyTableRoundTrips) {
  int version = GetParam();
  auto metadata = std::make_shared<TableMetadata>();
  metadata->format_version = version;
  metadata->table_uuid = "2cc52516-5e73-41f2-b139-545d41a4e151";
  metadata->location = "file:/tmp/t";
  metadata->last_updated_ms = 1;
  metadata->last_column_id = 1;
  metadata->schemas = {std::make_shared<const Schema>(0, std::vector{Field(1, "x", Type::Int())})};
  metadata->partition_specs = {PartitionSpec::Unpartitioned()};
  metadata->sort_orders = {SortOrder::Unsorted()};
  metadata->Finalize();
  std::string json = TableMetadataToJson(*metadata);
  auto parsed = TableMetadataFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE((*parsed)->Equals(*metadata)) << json;
  EXPECT_FALSE((*parsed)->current_snapshot_id);
  EXPECT_TRUE((*parsed)->refs.empty());
  // As Java writes it: -1 before v3, null from v3 on.
  if (version >= 3) {
    EXPECT_TRUE(HasKey(json, "current-snapshot-id") &&
                json.find("\"current-snapshot-id\":null") != std::string::npos)
        << json;
  } else {
    EXPECT_NE(json.find("\"current-snapshot-id\":-1"), std::string::npos) << json;
  }
  EXPECT_NE(json.find("\"refs\":{}"), std::string::npos) << json;
}

// As a REST client reads a LoadTableResult: the metadata is one member of a
// larger document, parsed once, and gets the same checks as a file.
TEST_P(TableMetadataRoundTripTest, ParsesFromAnElementOfALargerDocument) {
  TableMetadataPtr original = SampleMetadata(GetParam());
  const std::string body = StrCat(R"({"metadata-location":"file:/tmp/t/m.json","metadata":)",
                                  TableMetadataToJson(*original), R"(,"config":{}})");
  simdjson::dom::parser parser;
  auto document = json::Parse(parser, body);
  ASSERT_THAT(document, IsOk());
  auto parsed = TableMetadataFromElement((*document)["metadata"].value());
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE((*parsed)->Equals(*original));
  ASSERT_NE((*parsed)->CurrentSnapshot(), nullptr);
  EXPECT_EQ((*parsed)->CurrentSnapshot()->snapshot_id, kSnapshot3);

  auto config = TableMetadataFromElement((*document)["config"].value());
  EXPECT_THAT(config, IsError(ErrorKind::kInvalidArgument));
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, TableMetadataRoundTripTest, ::testing::Values(1, 2, 3));

TEST(TableMetadataJsonTest, FieldsWrittenPerVersion) {
  std::string v1 = TableMetadataToJson(*SampleMetadata(1));
  std::string v2 = TableMetadataToJson(*SampleMetadata(2));
  std::string v3 = TableMetadataToJson(*SampleMetadata(3));

  // v1 carries the legacy current schema and default spec for old readers.
  EXPECT_TRUE(HasKey(v1, "schema"));
  EXPECT_TRUE(HasKey(v1, "partition-spec"));
  EXPECT_NE(v1.find(R"("partition-spec":[{"name":"data","transform":"identity","source-id":2,)"
                    R"("field-id":1000},{"name":"id_bucket")"),
            std::string::npos);
  EXPECT_FALSE(HasKey(v1, "last-sequence-number"));
  // Snapshots start with their sequence number from v2 on.
  EXPECT_EQ(v1.find("{\"sequence-number\":"), std::string::npos);
  EXPECT_FALSE(HasKey(v1, "next-row-id"));

  for (const std::string* json : {&v2, &v3}) {
    EXPECT_FALSE(HasKey(*json, "schema"));
    EXPECT_FALSE(HasKey(*json, "partition-spec"));
    EXPECT_TRUE(HasKey(*json, "last-sequence-number"));
    EXPECT_NE(json->find("{\"sequence-number\":1,"), std::string::npos);
  }
  EXPECT_FALSE(HasKey(v2, "next-row-id"));
  EXPECT_FALSE(HasKey(v2, "encryption-keys"));
  EXPECT_TRUE(HasKey(v3, "next-row-id"));
  EXPECT_TRUE(HasKey(v3, "encryption-keys"));
  EXPECT_TRUE(HasKey(v3, "first-row-id"));

  for (const std::string* json : {&v1, &v2, &v3}) {
    for (const char* key : {"format-version",
                            "table-uuid",
                            "location",
                            "last-updated-ms",
                            "last-column-id",
                            "current-schema-id",
                            "schemas",
                            "default-spec-id",
                            "partition-specs",
                            "last-partition-id",
                            "default-sort-order-id",
                            "sort-orders",
                            "properties",
                            "current-snapshot-id",
                            "refs",
                            "snapshots",
                            "statistics",
                            "partition-statistics",
                            "snapshot-log",
                            "metadata-log"}) {
      EXPECT_TRUE(HasKey(*json, key)) << key;
    }
    EXPECT_NE(json->find("\"current-snapshot-id\":9223372036854775807") == std::string::npos,
              json->find("\"current-snapshot-id\":4587291740561205461") == std::string::npos);
  }
}

constexpr char kLegacyV1[] = R"({
  "format-version": 1,
  "location": "s3://bucket/test/location",
  "last-updated-ms": 1602638573874,
  "last-column-id": 3,
  "schema": {
    "type": "struct",
    "fields": [
      {"id": 1, "name": "x", "required": true, "type": "long"},
      {"id": 2, "name": "y", "required": true, "type": "long", "doc": "comment"},
      {"id": 3, "name": "z", "required": true, "type": "long"}
    ]
  },
  "partition-spec": [
    {"name": "x", "transform": "identity", "source-id": 1},
    {"name": "y_bucket", "transform": "bucket[4]", "source-id": 2}
  ],
  "properties": {"k": "v"},
  "current-snapshot-id": 3055729675574597004,
  "snapshots": [
    {"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770,
     "manifests": ["s3://a/b/1.avro"]},
    {"snapshot-id": 3055729675574597004, "parent-snapshot-id": 3051729675574597004,
     "timestamp-ms": 1555100955770, "summary": {"operation": "append"},
     "manifest-list": "s3://a/b/2.avro"}
  ],
  "snapshot-log": [
    {"timestamp-ms": 1515100955770, "snapshot-id": 3051729675574597004},
    {"timestamp-ms": 1555100955770, "snapshot-id": 3055729675574597004}
  ]
})";

TEST(TableMetadataJsonTest, ReadsLegacyV1Files) {
  auto parsed = TableMetadataFromJson(kLegacyV1);
  ASSERT_THAT(parsed, IsOk());
  const TableMetadata& metadata = **parsed;
  EXPECT_EQ(metadata.format_version, 1);
  EXPECT_EQ(metadata.table_uuid, "");
  EXPECT_EQ(metadata.last_sequence_number, 0);
  ASSERT_EQ(metadata.schemas.size(), 1u);
  EXPECT_EQ(metadata.current_schema_id, 0);
  EXPECT_EQ(metadata.Schema()->FindFieldById(2)->doc, "comment");
  ASSERT_EQ(metadata.partition_specs.size(), 1u);
  EXPECT_EQ(metadata.default_spec_id, 0);
  EXPECT_EQ(metadata.Spec()->fields[0].field_id, 1000);
  EXPECT_EQ(metadata.Spec()->fields[1].field_id, 1001);
  EXPECT_EQ(metadata.last_partition_id, 1001);
  ASSERT_EQ(metadata.sort_orders.size(), 1u);
  EXPECT_TRUE(metadata.SortOrder()->IsUnsorted());
  EXPECT_EQ(metadata.properties.at("k"), "v");
  EXPECT_EQ(metadata.current_snapshot_id, 3055729675574597004);
  ASSERT_EQ(metadata.snapshots.size(), 2u);
  EXPECT_EQ(metadata.snapshots[0]->manifests, std::vector<std::string>{"s3://a/b/1.avro"});
  // refs did not exist yet: main is the current snapshot.
  ASSERT_EQ(metadata.refs.size(), 1u);
  ASSERT_NE(metadata.Ref("main"), nullptr);
  EXPECT_EQ(metadata.Ref("main")->snapshot_id, 3055729675574597004);
  EXPECT_TRUE(metadata.Ref("main")->is_branch());
  EXPECT_EQ(metadata.snapshot_log.size(), 2u);

  // Written back, it is a complete v1 file that reads the same.
  std::string json = TableMetadataToJson(metadata);
  EXPECT_TRUE(HasKey(json, "schema"));
  EXPECT_TRUE(HasKey(json, "partition-spec"));
  EXPECT_TRUE(HasKey(json, "manifests"));
  auto again = TableMetadataFromJson(json);
  ASSERT_THAT(again, IsOk());
  EXPECT_TRUE((*again)->Equals(metadata));
}

TEST(TableMetadataJsonTest, V1PrefersSchemasAndSpecsOverLegacyFields) {
  std::string json = TableMetadataToJson(*SampleMetadata(1));
  auto parsed = TableMetadataFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ((*parsed)->schemas.size(), 2u);
  EXPECT_EQ((*parsed)->partition_specs.size(), 2u);
}

TEST(TableMetadataJsonTest, NoCurrentSnapshotSpellings) {
  std::string json = TableMetadataToJson(*SampleMetadata(2));
  // Without snapshots or refs, -1, null and an absent field all mean "none".
  json = Replace(json, json.substr(json.find("\"current-snapshot-id\"")),
                 "\"current-snapshot-id\":CURRENT}");
  for (const char* current : {"-1", "null"}) {
    auto parsed = TableMetadataFromJson(Replace(json, "CURRENT", current));
    ASSERT_THAT(parsed, IsOk()) << current;
    EXPECT_FALSE((*parsed)->current_snapshot_id);
    EXPECT_TRUE((*parsed)->refs.empty());
    EXPECT_EQ((*parsed)->CurrentSnapshot(), nullptr);
  }
  auto absent = TableMetadataFromJson(Replace(json, ",\"current-snapshot-id\":CURRENT", ""));
  ASSERT_THAT(absent, IsOk());
  EXPECT_FALSE((*absent)->current_snapshot_id);
}

TEST(TableMetadataJsonTest, MainRefIsSynthesizedFromCurrentSnapshot) {
  std::string json = TableMetadataToJson(*SampleMetadata(2));
  std::string refs = json.substr(json.find("\"refs\":"));
  refs = refs.substr(0, refs.find(",\"snapshots\":"));
  auto parsed = TableMetadataFromJson(Replace(json, refs + ",", ""));
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ((*parsed)->refs.size(), 1u);
  EXPECT_EQ((*parsed)->Ref("main")->snapshot_id, kSnapshot3);
}

TEST(TableMetadataJsonTest, GzipInputIsInflated) {
  std::string json = TableMetadataToJson(*SampleMetadata(2));
  auto parsed = TableMetadataFromJson(Gzip(json));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE((*parsed)->Equals(*SampleMetadata(2)));
}

TEST(TableMetadataJsonTest, CorruptGzipIsCorruption) {
  std::string compressed = Gzip(TableMetadataToJson(*SampleMetadata(2)));
  std::string flipped = compressed;
  for (size_t i = 20; i < flipped.size() - 8; i += 7) flipped[i] = static_cast<char>(~flipped[i]);
  EXPECT_THAT(TableMetadataFromJson(flipped), IsError(ErrorKind::kCorruption));
  for (size_t length : {size_t{2}, size_t{10}, compressed.size() / 2, compressed.size() - 1}) {
    EXPECT_THAT(TableMetadataFromJson(std::string_view(compressed).substr(0, length)),
                IsError(ErrorKind::kCorruption))
        << length;
  }
}

// Regression: Gunzip sized its buffer from the (corrupt) trailer, so one bad
// file could allocate gigabytes before failing.
TEST(TableMetadataJsonTest, GzipTrailerClaimingHugeSizeIsCorruption) {
  std::string compressed = Gzip(TableMetadataToJson(*SampleMetadata(2)));
  compressed.replace(compressed.size() - 4, 4, "\xf0\xff\xff\xff");
  EXPECT_THAT(TableMetadataFromJson(compressed), IsError(ErrorKind::kCorruption));
}

TEST(TableMetadataJsonTest, EveryTruncationIsAnError) {
  for (int version : {1, 2, 3}) {
    std::string json = TableMetadataToJson(*SampleMetadata(version));
    for (size_t length = 0; length < json.size(); ++length) {
      auto parsed = TableMetadataFromJson(std::string_view(json).substr(0, length));
      ASSERT_THAT(parsed, IsError(ErrorKind::kInvalidArgument)) << version << ":" << length;
    }
  }
}

// A cheap deterministic fuzz: every single-character change either fails
// cleanly or yields metadata that itself round-trips.
TEST(TableMetadataJsonTest, SingleCharacterCorruptionsFailCleanlyOrRoundTrip) {
  for (int version : {1, 3}) {
    const std::string json = TableMetadataToJson(*SampleMetadata(version));
    for (size_t at = 0; at < json.size(); ++at) {
      for (char replacement : {'"', '}', '0', '-', 'x'}) {
        std::string mutated = json;
        mutated[at] = replacement;
        auto parsed = TableMetadataFromJson(mutated);
        if (!parsed) {
          ASSERT_EQ(parsed.error().kind, ErrorKind::kInvalidArgument) << mutated;
          continue;
        }
        auto again = TableMetadataFromJson(TableMetadataToJson(**parsed));
        ASSERT_THAT(again, IsOk()) << mutated;
        ASSERT_TRUE((*again)->Equals(**parsed)) << mutated;
      }
    }
  }
}

TEST(TableMetadataJsonTest, RejectsUnsupportedFormatVersions) {
  std::string json = TableMetadataToJson(*SampleMetadata(2));
  for (const char* version : {"0", "4", "-1", "99999999999"}) {
    EXPECT_THAT(TableMetadataFromJson(
                    Replace(json, "\"format-version\":2", StrCat("\"format-version\":", version))),
                IsError(ErrorKind::kInvalidArgument))
        << version;
  }
  EXPECT_THAT(TableMetadataFromJson(Replace(json, "\"format-version\":2", "\"format-version\":4")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot read unsupported version 4"));
  EXPECT_THAT(
      TableMetadataFromJson(Replace(json, "\"format-version\":2", "\"format-version\":\"2\"")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "format-version"));
  EXPECT_THAT(
      TableMetadataFromJson(Replace(json, "\"format-version\":2,", "")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse missing int: format-version"));
}

struct MissingCase {
  int version;
  const char* removed;  // exact text removed from the written file
  const char* message;
};

class MissingRequiredFieldTest : public ::testing::TestWithParam<MissingCase> {};

TEST_P(MissingRequiredFieldTest, IsInvalidArgument) {
  const MissingCase& c = GetParam();
  std::string json = TableMetadataToJson(*SampleMetadata(c.version));
  EXPECT_THAT(TableMetadataFromJson(Replace(json, c.removed, "")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message));
}

INSTANTIATE_TEST_SUITE_P(
    PerVersion, MissingRequiredFieldTest,
    ::testing::Values(
        MissingCase{2, "\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",",
                    "Cannot parse missing string: table-uuid"},
        MissingCase{1, "\"location\":\"s3://bucket/wh/db/t\",",
                    "Cannot parse missing string: location"},
        MissingCase{2, "\"last-sequence-number\":3,",
                    "Cannot parse missing long: last-sequence-number"},
        MissingCase{1, "\"last-updated-ms\":1602638573590,",
                    "Cannot parse missing long: last-updated-ms"},
        MissingCase{3, "\"last-column-id\":6,", "Cannot parse missing int: last-column-id"},
        MissingCase{2, "\"current-schema-id\":1,", "Cannot parse missing int: current-schema-id"},
        MissingCase{2, "\"default-spec-id\":1,", "Cannot parse missing int: default-spec-id"},
        MissingCase{2, "\"last-partition-id\":1003,", "last-partition-id must exist in format v2"},
        MissingCase{3, "\"default-sort-order-id\":1,",
                    "Cannot parse missing int: default-sort-order-id"},
        MissingCase{3, "\"next-row-id\":300,", "Cannot parse missing long: next-row-id"}));

// Found by metadata_json_fuzz: an empty uuid parsed, was then written as no
// uuid, and the written file no longer parsed (v2 requires one).
TEST(TableMetadataJsonTest, EmptyTableUuidIsRejected) {
  for (int version : {1, 2, 3}) {
    std::string json = TableMetadataToJson(*SampleMetadata(version));
    EXPECT_THAT(TableMetadataFromJson(Replace(json, "9c12d441-03fe-4693-9a96-a0705ddf69c1", "")),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid table-uuid: empty string"))
        << version;
  }
}

TEST(TableMetadataJsonTest, ListsRequiredFromV2On) {
  for (const char* key : {"schemas", "partition-specs", "sort-orders"}) {
    std::string json = TableMetadataToJson(*SampleMetadata(2));
    // Rename the key so that the list is missing but the JSON stays valid.
    EXPECT_THAT(
        TableMetadataFromJson(Replace(json, StrCat("\"", key, "\":"), "\"ignored\":")),
        IsErrorWithMessage(ErrorKind::kInvalidArgument, StrCat(key, " must exist in format v2")))
        << key;
  }
  std::string v1 = TableMetadataToJson(*SampleMetadata(1));
  v1 = Replace(v1, "\"schemas\":", "\"ignored\":");
  EXPECT_THAT(
      TableMetadataFromJson(Replace(v1, "\"schema\":", "\"ignored2\":")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse missing field: schema"));
}

TEST(TableMetadataJsonTest, RejectsWrongTypes) {
  std::string json = TableMetadataToJson(*SampleMetadata(2));
  struct Case {
    const char* from;
    const char* to;
    const char* message;
  };
  for (const Case& c : {
           Case{"\"location\":\"s3://bucket/wh/db/t\"", "\"location\":5",
                "Cannot parse to a string value: location"},
           Case{"\"last-column-id\":6", "\"last-column-id\":6.5",
                "Cannot parse to an integer value: last-column-id"},
           Case{"\"last-column-id\":6", "\"last-column-id\":2147483648",
                "Cannot parse to an integer value: last-column-id"},
           // Each of these keeps the JSON valid: the original value moves to
           // an ignored key.
           Case{"\"schemas\":", "\"schemas\":{},\"x\":", "Cannot parse schemas from non-array"},
           Case{
               "\"snapshots\":", "\"snapshots\":5,\"x\":", "Cannot parse snapshots from non-array"},
           Case{"\"refs\":", "\"refs\":[],\"x\":", "Cannot parse refs from non-object"},
           Case{"\"partition-specs\":", "\"partition-specs\":\"a\",\"x\":",
                "Cannot parse partition-specs from non-array"},
           Case{"\"metadata-log\":", "\"metadata-log\":{},\"x\":",
                "Cannot parse metadata-log from non-array"},
           Case{"\"properties\":{\"owner\":\"skade\"", "\"properties\":{\"owner\":true",
                "value of 'owner' is not a string"},
           Case{"\"snapshot-log\":[{", "\"snapshot-log\":[7,{",
                "Cannot parse snapshot-log entry from non-object"},
           Case{"\"metadata-file\":\"s3://bucket/wh/db/t/metadata/00000-a.metadata.json\"",
                "\"metadata-file\":1", "Cannot parse to a string value: metadata-file"},
           Case{"\"statistics\":[", "\"statistics\":[1,", "Cannot parse statistics file"},
       }) {
    EXPECT_THAT(TableMetadataFromJson(Replace(json, c.from, c.to)),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.to;
  }
  EXPECT_THAT(
      TableMetadataFromJson("[1, 2]"),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot parse metadata from non-object"));
  EXPECT_THAT(TableMetadataFromJson(""), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(TableMetadataFromJson("\x01\x02garbage"), IsError(ErrorKind::kInvalidArgument));
}

TEST(TableMetadataJsonTest, RejectsDanglingReferences) {
  std::string json = TableMetadataToJson(*SampleMetadata(2));
  struct Case {
    const char* from;
    const char* to;
    const char* message;
  };
  for (const Case& c : {
           Case{"\"current-schema-id\":1", "\"current-schema-id\":9",
                "Cannot find schema with current-schema-id=9"},
           Case{"\"default-spec-id\":1", "\"default-spec-id\":9",
                "Cannot find partition spec with default-spec-id=9"},
           Case{"\"default-sort-order-id\":1", "\"default-sort-order-id\":9",
                "Cannot find sort order with default-sort-order-id=9"},
           Case{"\"current-snapshot-id\":4587291740561205461",
                "\"current-snapshot-id\":4587291740561205462",
                "Cannot find current snapshot 4587291740561205462"},
           Case{"\"audit\":{\"snapshot-id\":9223372036854775807", "\"audit\":{\"snapshot-id\":12",
                "Snapshot 12 for reference audit does not exist"},
           Case{"\"main\":{\"snapshot-id\":4587291740561205461",
                "\"main\":{\"snapshot-id\":3051729675574597004",
                "Current snapshot ID does not match main branch"},
           Case{"\"main\":{\"snapshot-id\":4587291740561205461,\"type\":\"branch\"",
                "\"main\":{\"snapshot-id\":4587291740561205461,\"type\":\"tag\"",
                "does not match main branch"},
           Case{"\"last-sequence-number\":3", "\"last-sequence-number\":2",
                "sequence number 3 greater than last sequence number 2"},
           Case{"\"schema-id\":0,\"fields\"", "\"schema-id\":1,\"fields\"",
                "Duplicate schema id: 1"},
           Case{"{\"spec-id\":0,", "{\"spec-id\":1,", "Duplicate partition spec id: 1"},
           Case{"{\"order-id\":0,\"fields\":[]}",
                "{\"order-id\":1,\"fields\":[{\"transform\":\"identity\",\"source-id\":1,"
                "\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}",
                "Duplicate sort order id: 1"},
           Case{"\"snapshot-id\":3051729675574597004,\"timestamp-ms\"",
                "\"snapshot-id\":4587291740561205461,\"timestamp-ms\"",
                "Duplicate snapshot id: 4587291740561205461"},
       }) {
    EXPECT_THAT(TableMetadataFromJson(Replace(json, c.from, c.to)),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, c.message))
        << c.to;
  }
  // With no current snapshot there must be no main branch.
  EXPECT_THAT(TableMetadataFromJson(Replace(json, "\"current-snapshot-id\":4587291740561205461",
                                            "\"current-snapshot-id\":-1")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Current snapshot is not set"));
}

TEST(TableMetadataJsonTest, SchemasAreValidatedForTheFormatVersion) {
  std::string v2 = TableMetadataToJson(*SampleMetadata(2));
  EXPECT_THAT(
      TableMetadataFromJson(Replace(v2, "\"type\":\"timestamptz\"", "\"type\":\"timestamptz_ns\"")),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "not supported until v3"));
  std::string v3 = TableMetadataToJson(*SampleMetadata(3));
  EXPECT_THAT(
      TableMetadataFromJson(Replace(v3, "\"type\":\"timestamptz\"", "\"type\":\"timestamptz_ns\"")),
      IsOk());
  EXPECT_THAT(TableMetadataFromJson(
                  Replace(v2, "{\"id\":2,\"name\":\"data\"", "{\"id\":1,\"name\":\"data\"")),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Multiple entries with same key: 1"));
}

}  // namespace
}  // namespace skade::spec
