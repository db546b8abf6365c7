// JSON forms of commit requirements and updates (REST spec: TableRequirement,
// TableUpdate), checked against bodies as Iceberg clients send them.
#include <gtest/gtest.h>

#include <set>

#include "skade/spec/table_requirement.h"
#include "skade/spec/table_update.h"
#include "spec_commit/commit_test_util.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using skade::testing::IsError;
using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using namespace skade::spec::testing;  // NOLINT

Result<TableUpdate> ParseUpdate(std::string_view text) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto element, json::Parse(parser, text));
  return TableUpdateFromJson(element);
}

Result<TableRequirement> ParseRequirement(std::string_view text) {
  simdjson::dom::parser parser;
  SKADE_ASSIGN_OR_RAISE(auto element, json::Parse(parser, text));
  return TableRequirementFromJson(element);
}

std::string ToJson(const TableUpdate& update) {
  JsonWriter writer;
  WriteTableUpdate(writer, update);
  return writer.Take();
}

std::string ToJson(const TableRequirement& requirement) {
  JsonWriter writer;
  WriteTableRequirement(writer, requirement);
  return writer.Take();
}

// --- requirements -------------------------------------------------------------

TEST(TableRequirementJsonTest, RoundTripsEveryType) {
  std::vector<TableRequirement> requirements = {
      AssertCreate{},
      AssertTableUuid{"2cc52516-5e73-41f2-b139-545d41a4e151"},
      AssertRefSnapshotId{"main", 3051729675574597004},
      AssertRefSnapshotId{"dev", std::nullopt},
      AssertLastAssignedFieldId{7},
      AssertCurrentSchemaId{2},
      AssertLastAssignedPartitionId{1003},
      AssertDefaultSpecId{1},
      AssertDefaultSortOrderId{0},
  };
  for (const auto& requirement : requirements) {
    std::string json = ToJson(requirement);
    auto parsed = ParseRequirement(json);
    ASSERT_THAT(parsed, IsOk()) << json;
    EXPECT_EQ(*parsed, requirement) << json;
    EXPECT_NE(json.find(std::string(requirement.type())), std::string::npos);
  }
}

TEST(TableRequirementJsonTest, WireFormat) {
  EXPECT_EQ(ToJson(AssertRefSnapshotId{"main", std::nullopt}),
            R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null})");
  EXPECT_EQ(ToJson(AssertCurrentSchemaId{3}),
            R"({"type":"assert-current-schema-id","current-schema-id":3})");
  EXPECT_EQ(ToJson(AssertCreate{}), R"({"type":"assert-create"})");
}

TEST(TableRequirementJsonTest, ParsesClientBodies) {
  auto ref = ParseRequirement(
      R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":3051729675574597004})");
  ASSERT_THAT(ref, IsOk());
  EXPECT_EQ(*ref, TableRequirement(AssertRefSnapshotId{"main", 3051729675574597004}));
  auto absent =
      ParseRequirement(R"({"type":"assert-ref-snapshot-id","ref":"b","snapshot-id":null})");
  ASSERT_THAT(absent, IsOk());
  EXPECT_EQ(*absent, TableRequirement(AssertRefSnapshotId{"b", std::nullopt}));
  auto upper = ParseRequirement(R"({"type":"ASSERT-CREATE"})");
  ASSERT_THAT(upper, IsOk());
  EXPECT_EQ(*upper, TableRequirement(AssertCreate{}));
}

TEST(TableRequirementJsonTest, Errors) {
  EXPECT_THAT(ParseRequirement(R"({"type":"assert-ref-snapshot-id","ref":"main"})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "snapshot-id"));
  EXPECT_THAT(ParseRequirement(R"({"type":"assert-view-uuid","uuid":"x"})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot parse unknown update requirement type: assert-view-uuid"));
  EXPECT_THAT(ParseRequirement(R"({"uuid":"x"})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Missing field: type"));
  EXPECT_THAT(ParseRequirement(R"({"type":"assert-table-uuid"})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseRequirement(R"({"type":"assert-current-schema-id","current-schema-id":"1"})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseRequirement(R"([1])"), IsError(ErrorKind::kInvalidArgument));
}

TEST(TableRequirementJsonTest, ParsesArrays) {
  simdjson::dom::parser parser;
  auto element = json::Parse(
      parser,
      R"([{"type":"assert-create"},{"type":"assert-default-spec-id","default-spec-id":0}])");
  ASSERT_THAT(element, IsOk());
  auto requirements = TableRequirementsFromJson(*element);
  ASSERT_THAT(requirements, IsOk());
  EXPECT_EQ(requirements->size(), 2u);
  auto bad = json::Parse(parser, R"([{"type":"assert-create"},{"type":"nope"}])");
  ASSERT_THAT(bad, IsOk());
  EXPECT_THAT(TableRequirementsFromJson(*bad), IsError(ErrorKind::kInvalidArgument));
}

// --- updates ----------------------------------------------------------------------

TEST(TableUpdateJsonTest, RoundTripsEveryAction) {
  StatisticsFile statistics;
  statistics.snapshot_id = 3;
  statistics.statistics_path = "file:/tmp/t/metadata/3.stats";
  statistics.file_size_in_bytes = 100;
  statistics.file_footer_size_in_bytes = 20;
  BlobMetadata blob;
  blob.type = "apache-datasketches-theta-v1";
  blob.source_snapshot_id = 3;
  blob.source_snapshot_sequence_number = 3;
  blob.fields = {1};
  blob.properties = {{"ndv", "4"}};
  statistics.blob_metadata = {blob};
  PartitionStatisticsFile partition_statistics;
  partition_statistics.snapshot_id = 3;
  partition_statistics.statistics_path = "file:/tmp/t/metadata/3.parquet";
  partition_statistics.file_size_in_bytes = 42;
  EncryptionKey key;
  key.key_id = "k1";
  key.encrypted_key_metadata = "AAECAw==";
  key.encrypted_by_id = "root";
  SnapshotRef ref = Branch(3);
  ref.min_snapshots_to_keep = 2;
  ref.max_snapshot_age_ms = 1000;
  ref.max_ref_age_ms = 5000;
  SnapshotRef tag = Tag(3);
  tag.max_ref_age_ms = 10;

  std::vector<TableUpdate> updates = {
      spec::AssignUuid{"2cc52516-5e73-41f2-b139-545d41a4e151"},
      spec::UpgradeFormatVersion{3},
      spec::AddSchema{WiderSchema(1), 4},
      spec::SetCurrentSchema{kLastAdded},
      spec::AddPartitionSpec{Spec({PartitionBy(3, 1000, "ts_day", Transform::Day()),
                                   PartitionBy(1, 1001, "id_b", Transform::Bucket(16))},
                                  2)},
      spec::SetDefaultSpec{2},
      spec::AddSortOrder{Order({SortBy(1, SortDirection::kDesc)}, 1)},
      spec::SetDefaultSortOrder{kLastAdded},
      spec::AddSnapshot{MakeSnapshot(3051729675574597004, 1, 4, 1700000000000, 10, 5)},
      spec::SetSnapshotRef{"main", ref},
      spec::SetSnapshotRef{"v1", tag},
      spec::RemoveSnapshots{{1, 2}},
      spec::RemoveSnapshotRef{"old"},
      spec::SetLocation{"s3://bucket/t"},
      spec::SetProperties{{{"a", "1"}, {"b", "x y"}}},
      spec::RemoveProperties{{"c", "d"}},
      spec::SetStatistics{statistics},
      spec::RemoveStatistics{3},
      spec::SetPartitionStatistics{partition_statistics},
      spec::RemovePartitionStatistics{3},
      spec::RemovePartitionSpecs{{0, 1}},
      spec::RemoveSchemas{{0}},
      spec::AddEncryptionKey{key},
      spec::RemoveEncryptionKey{"k1"},
  };
  std::set<std::string_view> actions;
  for (const auto& update : updates) {
    std::string json = ToJson(update);
    auto parsed = ParseUpdate(json);
    ASSERT_THAT(parsed, IsOk()) << json;
    EXPECT_EQ(*parsed, update) << json;
    actions.insert(update.action());
  }
  EXPECT_EQ(actions.size(), std::variant_size_v<TableUpdate::Value>);
}

TEST(TableUpdateJsonTest, WireFormat) {
  EXPECT_EQ(ToJson(spec::SetSnapshotRef{"main", Branch(5)}),
            R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":5,"type":"branch"})");
  EXPECT_EQ(ToJson(spec::SetProperties{{{"k", "v"}}}),
            R"({"action":"set-properties","updates":{"k":"v"}})");
  EXPECT_EQ(ToJson(spec::RemoveProperties{{"k"}}),
            R"({"action":"remove-properties","removals":["k"]})");
  EXPECT_EQ(ToJson(spec::RemoveSnapshots{{1, 2}}),
            R"({"action":"remove-snapshots","snapshot-ids":[1,2]})");
  // The deprecated last-column-id is always written: older servers need it.
  std::string add_schema = ToJson(spec::AddSchema{SimpleSchema(), std::nullopt});
  EXPECT_NE(add_schema.find(R"("last-column-id":3)"), std::string::npos) << add_schema;
  std::string set_statistics = ToJson(spec::SetStatistics{
      StatisticsFile{.snapshot_id = 9, .statistics_path = "p", .file_size_in_bytes = 1}});
  EXPECT_EQ(set_statistics.rfind(R"({"action":"set-statistics","snapshot-id":9,"statistics":{)", 0),
            0u)
      << set_statistics;
}

TEST(TableUpdateJsonTest, ParsesPyIcebergAppendCommit) {
  simdjson::dom::parser parser;
  auto body = json::Parse(parser, R"({
    "identifier": {"namespace": ["db"], "name": "t"},
    "requirements": [
      {"type": "assert-table-uuid", "uuid": "UUID"},
      {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 3}
    ],
    "updates": [
      {"action": "add-snapshot", "snapshot": {
         "snapshot-id": 4, "parent-snapshot-id": 3, "sequence-number": 4,
         "timestamp-ms": 1700000004000,
         "manifest-list": "file:/tmp/t/metadata/snap-4-0-a.avro",
         "summary": {"operation": "append", "added-data-files": "1"},
         "schema-id": 0}},
      {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": 4}
    ]})");
  ASSERT_THAT(body, IsOk());
  json::Object object = body->get_object().value();

  auto table = NewTable(2);
  for (int64_t id = 1; id <= 3; ++id) {
    std::optional<int64_t> parent = id == 1 ? std::nullopt : std::optional<int64_t>(id - 1);
    table = Commit(table, {spec::AddSnapshot{MakeSnapshot(id, parent, id, 1000 * id)},
                           spec::SetSnapshotRef{kMainBranch, Branch(id)}});
  }

  auto requirements = TableRequirementsFromJson(object["requirements"].value());
  ASSERT_THAT(requirements, IsOk());
  (*requirements)[0] = AssertTableUuid{table->table_uuid};
  for (const auto& requirement : *requirements) {
    EXPECT_THAT(requirement.Validate(table.get()), IsOk()) << requirement.type();
  }
  auto updates = TableUpdatesFromJson(object["updates"].value());
  ASSERT_THAT(updates, IsOk());
  auto builder =
      TableMetadataBuilder::BuildFrom(table, "file:/tmp/t/metadata/00003-x.metadata.json");
  ASSERT_THAT(builder.ApplyAll(*updates), IsOk());
  auto next = builder.Build();
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ((*next)->current_snapshot_id, 4);
  EXPECT_EQ((*next)->last_sequence_number, 4);
  EXPECT_EQ((*next)->snapshot_log.back(), (SnapshotLogEntry{1700000004000, 4}));
  EXPECT_EQ((*next)->CurrentSnapshot()->operation(), "append");
  // A second client that built on snapshot 3 too now fails its requirement.
  EXPECT_THAT(
      (*requirements)[1].Validate(next->get()),
      IsErrorWithMessage(ErrorKind::kCommitFailed,
                         "Requirement failed: branch main has changed: expected id 3 != 4"));
}

TEST(TableUpdateJsonTest, AddSpecWithoutIdsGetsThemFromTheBuilder) {
  auto update = ParseUpdate(R"({"action":"add-spec","spec":{"fields":[
      {"source-id":3,"transform":"day","name":"ts_day"},
      {"source-id":1,"transform":"bucket[4]","name":"id_bucket"}]}})");
  ASSERT_THAT(update, IsOk());
  const auto& spec = std::get<spec::AddPartitionSpec>(update->value()).spec;
  ASSERT_EQ(spec->fields.size(), 2u);
  EXPECT_EQ(spec->fields[0].field_id, 0);
  EXPECT_EQ(spec->fields[1].transform, Transform::Bucket(4));

  auto table =
      Commit(NewTable(),
             {spec::AddPartitionSpec{Spec({PartitionBy(2, 1004, "data", Transform::Identity())})}});
  auto next = Commit(table, {*update, spec::SetDefaultSpec{kLastAdded}});
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->Spec()->spec_id, 2);
  EXPECT_EQ(next->Spec()->fields[0].field_id, 1005);
  EXPECT_EQ(next->Spec()->fields[1].field_id, 1006);
  EXPECT_EQ(next->last_partition_id, 1006);
}

TEST(TableUpdateJsonTest, AcceptsLegacyPropertyKeys) {
  auto set = ParseUpdate(R"({"action":"set-properties","updated":{"a":"1"}})");
  ASSERT_THAT(set, IsOk());
  EXPECT_EQ(*set, TableUpdate(spec::SetProperties{{{"a", "1"}}}));
  auto remove = ParseUpdate(R"({"action":"remove-properties","removed":["a"]})");
  ASSERT_THAT(remove, IsOk());
  EXPECT_EQ(*remove, TableUpdate(spec::RemoveProperties{{"a"}}));
  // The current key wins when both are present.
  auto both = ParseUpdate(R"({"action":"set-properties","updated":{"a":"1"},"updates":{"b":"2"}})");
  ASSERT_THAT(both, IsOk());
  EXPECT_EQ(*both, TableUpdate(spec::SetProperties{{{"b", "2"}}}));
}

TEST(TableUpdateJsonTest, AddSchemaWithoutLastColumnId) {
  auto update = ParseUpdate(R"({"action":"add-schema","schema":{"type":"struct","schema-id":1,
      "fields":[{"id":1,"name":"id","required":true,"type":"long"}]}})");
  ASSERT_THAT(update, IsOk());
  const auto& add = std::get<spec::AddSchema>(update->value());
  EXPECT_FALSE(add.last_column_id.has_value());
  EXPECT_EQ(add.schema->HighestFieldId(), 1);
}

TEST(TableUpdateJsonTest, Errors) {
  EXPECT_THAT(ParseUpdate(R"({"action":"add-view-version","view-version":{}})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot parse unknown update action: add-view-version"));
  EXPECT_THAT(ParseUpdate(R"({"updates":{}})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Missing field: action"));
  EXPECT_THAT(ParseUpdate(R"("assign-uuid")"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseUpdate(R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":1,
                             "type":"leaf"})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseUpdate(R"({"action":"set-snapshot-ref","snapshot-id":1,"type":"tag"})"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "ref-name"));
  EXPECT_THAT(ParseUpdate(R"({"action":"remove-snapshots"})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseUpdate(R"({"action":"set-properties"})"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseUpdate(R"({"action":"set-properties","updates":{"a":1}})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseUpdate(R"({"action":"add-snapshot","snapshot":{"snapshot-id":1}})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseUpdate(R"({"action":"upgrade-format-version"})"),
              IsError(ErrorKind::kInvalidArgument));

  simdjson::dom::parser parser;
  auto array = json::Parse(parser, R"([{"action":"set-location","location":"x"},{"action":"?"}])");
  ASSERT_THAT(array, IsOk());
  EXPECT_THAT(TableUpdatesFromJson(*array), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::spec
