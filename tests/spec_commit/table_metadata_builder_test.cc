#include "skade/spec/table_metadata_builder.h"

#include <gtest/gtest.h>

#include <limits>

#include "skade/spec/table_properties.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"
#include "spec_commit/commit_test_util.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using skade::testing::IsError;
using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using namespace skade::spec::testing;  // NOLINT

constexpr char kBaseFile[] = "file:/tmp/t/metadata/00000-a.metadata.json";

TableMetadataBuilder From(const TableMetadataPtr& base) {
  return TableMetadataBuilder::BuildFrom(base, kBaseFile);
}

// A v2 table with snapshots 1 ← 2 ← 3 committed one at a time on main.
TableMetadataPtr TableWithHistory(int format_version = 2) {
  auto table = NewTable(format_version);
  for (int64_t id = 1; id <= 3; ++id) {
    std::optional<int64_t> parent = id == 1 ? std::nullopt : std::optional<int64_t>(id - 1);
    int64_t sequence = format_version == 1 ? 0 : id;
    table = Commit(table, {spec::AddSnapshot{MakeSnapshot(id, parent, sequence, 1000 * id)},
                           spec::SetSnapshotRef{kMainBranch, Branch(id)}});
  }
  return table;
}

// --- assign-uuid -----------------------------------------------------------

TEST(AssignUuidTest, SetsUuidOfNewTable) {
  auto builder = TableMetadataBuilder::BuildFromEmpty();
  ASSERT_THAT(builder.AssignUuid("9c12d441-03fe-4693-9a96-a0705ddf69c1"), IsOk());
  ASSERT_EQ(builder.changes().size(), 1u);
  EXPECT_EQ(builder.changes()[0],
            TableUpdate(spec::AssignUuid{"9c12d441-03fe-4693-9a96-a0705ddf69c1"}));
}

TEST(AssignUuidTest, SameUuidOnExistingTableIsNoOp) {
  auto table = NewTable();
  auto builder = From(table);
  ASSERT_THAT(builder.AssignUuid(table->table_uuid), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

TEST(AssignUuidTest, DifferentUuidOnExistingTableFails) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.AssignUuid("9c12d441-03fe-4693-9a96-a0705ddf69c1"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot reassign uuid"));
  EXPECT_THAT(builder.AssignUuid(""), IsError(ErrorKind::kInvalidArgument));
}

// Readers parse it as a UUID: PyIceberg cannot load a table whose is not.
TEST(AssignUuidTest, ANewTablesUuidMustBeAUuid) {
  auto builder = TableMetadataBuilder::BuildFromEmpty();
  EXPECT_THAT(builder.AssignUuid("not-a-uuid"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not a UUID"));
  EXPECT_FALSE(builder.HasChanges());
}

// --- upgrade-format-version --------------------------------------------------

TEST(UpgradeFormatVersionTest, SameVersionIsNoOp) {
  auto builder = From(NewTable(2));
  ASSERT_THAT(builder.UpgradeFormatVersion(2), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

TEST(UpgradeFormatVersionTest, DowngradeAndUnsupportedVersionsFail) {
  auto builder = From(NewTable(2));
  EXPECT_THAT(builder.UpgradeFormatVersion(1),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot downgrade v2 table to v1"));
  EXPECT_THAT(builder.UpgradeFormatVersion(4),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot upgrade table to unsupported format version: v4"));
  EXPECT_THAT(builder.UpgradeFormatVersion(0), IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(UpgradeFormatVersionTest, UpgradeToV3StartsRowLineage) {
  auto table = Commit(TableWithHistory(2), {spec::UpgradeFormatVersion{3}});
  EXPECT_EQ(table->format_version, 3);
  EXPECT_EQ(table->next_row_id, 0);
  // The next v3 snapshot must carry row lineage.
  auto builder = From(table);
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(4, 3, 4, 5000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "first-row-id is null"));
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(4, 3, 4, 5000, 0, 7)), IsOk());
}

TEST(UpgradeFormatVersionTest, NewTableTakesTheRequestedVersionBeforeASchemaExists) {
  auto builder = TableMetadataBuilder::BuildFromEmpty(2);
  ASSERT_THAT(builder.UpgradeFormatVersion(1), IsOk());
  ASSERT_THAT(builder.AddSchema(SimpleSchema()), IsOk());
  EXPECT_THAT(builder.UpgradeFormatVersion(1), IsOk());
  ASSERT_THAT(builder.UpgradeFormatVersion(2), IsOk());
  EXPECT_THAT(builder.UpgradeFormatVersion(1), IsError(ErrorKind::kInvalidArgument));
}

// --- add-schema / set-current-schema ------------------------------------------

TEST(AddSchemaTest, NewSchemaGetsNextIdAndRaisesLastColumnId) {
  auto builder = From(NewTable());
  ASSERT_THAT(builder.AddSchema(WiderSchema(7)), IsOk());
  ASSERT_THAT(builder.SetCurrentSchema(kLastAdded), IsOk());
  ASSERT_EQ(builder.changes().size(), 2u);
  const auto& added = std::get<spec::AddSchema>(builder.changes()[0].value());
  EXPECT_EQ(added.schema->schema_id(), 1);
  EXPECT_EQ(added.last_column_id, 4);
  // −1 is recorded as the id it resolved to.
  EXPECT_EQ(builder.changes()[1], TableUpdate(spec::SetCurrentSchema{1}));
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->current_schema_id, 1);
  EXPECT_EQ((*built)->last_column_id, 4);
  EXPECT_EQ((*built)->schemas.size(), 2u);
  EXPECT_EQ((*built)->Schema()->FindFieldByName("extra")->id, 4);
}

TEST(AddSchemaTest, IdenticalSchemaReusesIdWithoutChange) {
  auto builder = From(NewTable());
  ASSERT_THAT(builder.AddSchema(SimpleSchema(5)), IsOk());
  EXPECT_FALSE(builder.HasChanges());
  // The re-added schema is what −1 now means.
  ASSERT_THAT(builder.SetCurrentSchema(kLastAdded), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

// As Iceberg Java: an add-schema's own last-column-id is not taken (a
// client's INT32_MAX would leave no id for the next column); the table's
// follows the schemas' highest field id.
TEST(AddSchemaTest, TheClientsLastColumnIdIsNotTaken) {
  auto builder = From(NewTable());
  ASSERT_THAT(builder.Apply(spec::AddSchema{WiderSchema(), std::numeric_limits<int32_t>::max()}),
              IsOk());
  ASSERT_THAT(builder.Apply(spec::AddSchema{SimpleSchema(), 8}), IsOk());  // known: no change
  ASSERT_EQ(builder.changes().size(), 1u);
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->last_column_id, WiderSchema()->HighestFieldId());
}

TEST(AddSchemaTest, V2RejectsV3OnlyTypesAndDefaults) {
  auto builder = From(NewTable(2));
  auto nanos = std::make_shared<const Schema>(
      1, std::vector<NestedField>{Field(1, "id", Type::Long(), true),
                                  Field(10, "at", Type::TimestampNs())});
  EXPECT_THAT(builder.AddSchema(nanos),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "is not supported until v3"));
  NestedField with_default = Field(11, "flag", Type::Boolean());
  with_default.initial_default_json = "true";
  auto defaults = std::make_shared<const Schema>(
      1, std::vector<NestedField>{Field(1, "id", Type::Long(), true), with_default});
  EXPECT_THAT(builder.AddSchema(defaults),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "not supported until v3"));
  EXPECT_FALSE(builder.HasChanges());

  auto v3 = From(NewTable(3));
  EXPECT_THAT(v3.AddSchema(nanos), IsOk());
  EXPECT_THAT(v3.AddSchema(defaults), IsOk());
}

TEST(AddSchemaTest, V3DefaultsJavaCannotReadAreRefused) {
  // A boolean column whose default is a string: Java could not load the table.
  NestedField flag = Field(2, "flag", Type::Boolean());
  flag.initial_default_json = R"("yes")";
  auto schema = std::make_shared<const Schema>(
      1, std::vector<NestedField>{Field(1, "id", Type::Long(), true), flag});
  auto builder = From(NewTable(3));
  EXPECT_THAT(builder.AddSchema(schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Invalid initial-default of field flag (boolean)"));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(AddSchemaTest, InvalidSchemaIsRejected) {
  auto builder = From(NewTable());
  auto duplicate_ids = std::make_shared<const Schema>(
      1, std::vector<NestedField>{Field(1, "a", Type::Long()), Field(1, "b", Type::Long())});
  EXPECT_THAT(builder.AddSchema(duplicate_ids), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(builder.AddSchema(nullptr), IsError(ErrorKind::kInvalidArgument));
}

TEST(SetCurrentSchemaTest, LastAddedWithoutAddFails) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.SetCurrentSchema(kLastAdded),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot set last added schema: no schema has been added"));
}

TEST(SetCurrentSchemaTest, UnknownIdFailsAndSameIdIsNoOp) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.SetCurrentSchema(3),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot set current schema to unknown schema: 3"));
  ASSERT_THAT(builder.SetCurrentSchema(0), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

TEST(SetCurrentSchemaTest, SwitchBackToOlderSchemaById) {
  auto table = Commit(NewTable(), {spec::AddSchema{WiderSchema(), std::nullopt},
                                   spec::SetCurrentSchema{kLastAdded}});
  auto builder = From(table);
  ASSERT_THAT(builder.SetCurrentSchema(0), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::SetCurrentSchema{0}});
}

TEST(SetCurrentSchemaTest, AColumnWithTheNameOfAnotherColumnsPartitionFieldIsRefused) {
  // Iceberg Java binds each spec to the current schema when it loads the
  // table, and refuses a partition field named after another column.
  auto table = Commit(
      NewTable(), {spec::AddPartitionSpec{Spec({PartitionBy(3, 0, "ts_day", Transform::Day()),
                                                PartitionBy(1, 0, "id", Transform::Identity())})},
                   spec::SetDefaultSpec{kLastAdded}});
  auto with_column = [](std::string name) {
    return std::make_shared<const Schema>(
        0, std::vector<NestedField>{
               Field(1, "id", Type::Long(), true), Field(2, "data", Type::String()),
               Field(3, "ts", Type::TimestampTz()), Field(4, name, Type::Int())});
  };
  auto builder = From(table);
  ASSERT_THAT(builder.AddSchema(with_column("ts_day")), IsOk());
  EXPECT_THAT(builder.SetCurrentSchema(kLastAdded),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "its column ts_day has the name of a partition field of spec 1"));

  // Any other name is fine, and so is an identity field named after its own column.
  auto fine = From(table);
  ASSERT_THAT(fine.AddSchema(with_column("day")), IsOk());
  EXPECT_THAT(fine.SetCurrentSchema(kLastAdded), IsOk());
  EXPECT_THAT(fine.Build(), IsOk());
}

TEST(SetCurrentSchemaTest, FieldsOfDroppedColumnsMayShareANameWithANewColumn) {
  // Spec 1 partitioned by day(ts); the table went back to unpartitioned and
  // dropped ts: spec 1 is history, and a new column may take its field's name.
  auto table = Commit(
      NewTable(), {spec::AddPartitionSpec{Spec({PartitionBy(3, 0, "ts_day", Transform::Day())})},
                   spec::SetDefaultSpec{kLastAdded}});
  table = Commit(table, {spec::SetDefaultSpec{0}});
  auto without_ts =
      std::make_shared<const Schema>(0, std::vector<NestedField>{Field(1, "id", Type::Long(), true),
                                                                 Field(2, "data", Type::String()),
                                                                 Field(4, "ts_day", Type::Int())});
  auto builder = From(table);
  ASSERT_THAT(builder.AddSchema(without_ts), IsOk());
  EXPECT_THAT(builder.SetCurrentSchema(kLastAdded), IsOk());
  EXPECT_THAT(builder.Build(), IsOk());
}

// --- add-spec / set-default-spec -----------------------------------------------

TEST(AddPartitionSpecTest, AssignsSpecIdAndMissingFieldIds) {
  auto builder = From(NewTable());
  ASSERT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(3, 0, "ts_day", Transform::Day()),
                                             PartitionBy(1, 0, "id_bucket", Transform::Bucket(8))},
                                            /*spec_id=*/42)),
              IsOk());
  ASSERT_THAT(builder.SetDefaultSpec(kLastAdded), IsOk());
  ASSERT_EQ(builder.changes().size(), 2u);
  const auto& added = std::get<spec::AddPartitionSpec>(builder.changes()[0].value());
  EXPECT_EQ(added.spec->spec_id, 1);
  EXPECT_EQ(added.spec->fields[0].field_id, 1000);
  EXPECT_EQ(added.spec->fields[1].field_id, 1001);
  EXPECT_EQ(builder.changes()[1], TableUpdate(spec::SetDefaultSpec{1}));
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->last_partition_id, 1001);
  EXPECT_EQ((*built)->default_spec_id, 1);
}

TEST(AddPartitionSpecTest, KeepsClientFieldIdsAndRaisesLastPartitionId) {
  auto table =
      Commit(NewTable(),
             {spec::AddPartitionSpec{Spec({PartitionBy(3, 1005, "ts_day", Transform::Day())})}});
  EXPECT_EQ(table->last_partition_id, 1005);
  // The next missing id continues after the highest one assigned so far.
  auto builder = From(table);
  ASSERT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(1, 0, "id", Transform::Identity())})),
              IsOk());
  const auto& added = std::get<spec::AddPartitionSpec>(builder.changes()[0].value());
  EXPECT_EQ(added.spec->spec_id, 2);
  EXPECT_EQ(added.spec->fields[0].field_id, 1006);
}

TEST(AddPartitionSpecTest, CompatibleSpecReusesItsIdIgnoringFieldIds) {
  auto table =
      Commit(NewTable(),
             {spec::AddPartitionSpec{Spec({PartitionBy(3, 1000, "ts_day", Transform::Day())})}});
  auto builder = From(table);
  ASSERT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(3, 0, "ts_day", Transform::Day())})),
              IsOk());
  EXPECT_FALSE(builder.HasChanges());
  ASSERT_THAT(builder.SetDefaultSpec(kLastAdded), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::SetDefaultSpec{1}});
  // The unpartitioned spec 0 is reused too.
  ASSERT_THAT(builder.AddPartitionSpec(PartitionSpec::Unpartitioned()), IsOk());
  ASSERT_THAT(builder.SetDefaultSpec(kLastAdded), IsOk());
  EXPECT_EQ(builder.changes().back(), TableUpdate(spec::SetDefaultSpec{0}));
}

TEST(AddPartitionSpecTest, InvalidSpecsAreRejected) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(99, 0, "x", Transform::Identity())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot find source column"));
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(2, 0, "data_hour", Transform::Hour())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid source type string"));
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(1, 0, "p", Transform::Identity()),
                                             PartitionBy(2, 0, "p", Transform::Identity())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than once"));
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(1, 0, "data", Transform::Bucket(4))})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "name that exists in schema"));
  // source-ids is for transforms of several columns: no known one is.
  PartitionField two_sources = PartitionBy(1, 0, "two", Transform::Identity());
  two_sources.source_ids = {1, 2};
  EXPECT_THAT(builder.AddPartitionSpec(Spec({two_sources})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "takes one source column, not 2"));
  EXPECT_FALSE(builder.HasChanges());
}

// The builder and PartitionSpec::Validate once reported this case with
// different messages; they now share one rule.
TEST(AddPartitionSpecTest, IdentityNamedAfterAnotherColumnIsRejected) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(1, 0, "data", Transform::Identity())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "identity partition from name that exists in schema"));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(AddPartitionSpecTest, V1RequiresSequentialFieldIds) {
  auto builder = From(NewTable(1));
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(3, 1001, "ts_day", Transform::Day())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "sequential IDs"));
  // Missing ids are assigned by position in v1.
  ASSERT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(3, 0, "ts_day", Transform::Day()),
                                             PartitionBy(1, 0, "id", Transform::Identity())})),
              IsOk());
  const auto& added = std::get<spec::AddPartitionSpec>(builder.changes()[0].value());
  EXPECT_EQ(added.spec->fields[0].field_id, 1000);
  EXPECT_EQ(added.spec->fields[1].field_id, 1001);
}

TEST(SetDefaultSpecTest, Errors) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.SetDefaultSpec(kLastAdded),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot set last added spec: no spec has been added"));
  EXPECT_THAT(builder.SetDefaultSpec(5), IsError(ErrorKind::kInvalidArgument));
  ASSERT_THAT(builder.SetDefaultSpec(0), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

// --- add-sort-order / set-default-sort-order ------------------------------------

TEST(AddSortOrderTest, IdsStartAtOneAndIdenticalOrdersAreReused) {
  auto builder = From(NewTable());
  ASSERT_THAT(builder.AddSortOrder(Order({SortBy(1)}, 9)), IsOk());
  ASSERT_THAT(builder.AddSortOrder(Order({SortBy(1, SortDirection::kDesc)})), IsOk());
  ASSERT_THAT(builder.AddSortOrder(Order({SortBy(1)})), IsOk());  // same as the first
  ASSERT_THAT(builder.SetDefaultSortOrder(kLastAdded), IsOk());
  ASSERT_EQ(builder.changes().size(), 3u);
  EXPECT_EQ(std::get<spec::AddSortOrder>(builder.changes()[0].value()).sort_order->order_id, 1);
  EXPECT_EQ(std::get<spec::AddSortOrder>(builder.changes()[1].value()).sort_order->order_id, 2);
  EXPECT_EQ(builder.changes()[2], TableUpdate(spec::SetDefaultSortOrder{1}));
}

TEST(AddSortOrderTest, UnsortedIsOrderZero) {
  auto table = Commit(
      NewTable(), {spec::AddSortOrder{Order({SortBy(1)})}, spec::SetDefaultSortOrder{kLastAdded}});
  ASSERT_EQ(table->default_sort_order_id, 1);
  auto builder = From(table);
  ASSERT_THAT(builder.AddSortOrder(Order({}, 5)), IsOk());
  EXPECT_FALSE(builder.HasChanges());
  ASSERT_THAT(builder.SetDefaultSortOrder(kLastAdded), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::SetDefaultSortOrder{0}});
}

TEST(AddSortOrderTest, InvalidOrdersAreRejected) {
  auto builder = From(NewTable());
  EXPECT_THAT(builder.AddSortOrder(Order({SortBy(42)})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot find source column for sort field: 42"));
  SortField bad = SortBy(2);
  bad.transform = Transform::Day();
  EXPECT_THAT(builder.AddSortOrder(Order({bad})), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(builder.SetDefaultSortOrder(kLastAdded),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot set last added sort order: no sort order has been added"));
  EXPECT_THAT(builder.SetDefaultSortOrder(3), IsError(ErrorKind::kInvalidArgument));
}

// --- add-snapshot --------------------------------------------------------------

TEST(AddSnapshotTest, AddsWithoutMovingRefs) {
  auto table = TableWithHistory();
  auto builder = From(table);
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(4, 3, 4, 4000)), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->last_sequence_number, 4);
  EXPECT_EQ((*built)->current_snapshot_id, 3);
  EXPECT_EQ((*built)->Ref(kMainBranch)->snapshot_id, 3);
  EXPECT_NE((*built)->SnapshotById(4), nullptr);
  EXPECT_EQ((*built)->snapshot_log.size(), 3u);
}

TEST(AddSnapshotTest, RequiresSchemaSpecAndOrder) {
  auto builder = TableMetadataBuilder::BuildFromEmpty();
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Attempting to add a snapshot before a schema is added"));
  ASSERT_THAT(builder.AddSchema(SimpleSchema()), IsOk());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Attempting to add a snapshot before a partition spec is added"));
  ASSERT_THAT(builder.AddPartitionSpec(PartitionSpec::Unpartitioned()), IsOk());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Attempting to add a snapshot before a sort order is added"));
  ASSERT_THAT(builder.AddSortOrder(SortOrder::Unsorted()), IsOk());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1)), IsOk());
}

TEST(AddSnapshotTest, DuplicateIdFails) {
  auto builder = From(TableWithHistory());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(2, 3, 4, 4000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Snapshot already exists for id: 2"));
}

// What no reader could take back: -1 (a metadata file's "no snapshot"), a
// snapshot its own parent, an operation outside the spec's four.
TEST(AddSnapshotTest, SnapshotsNoReaderCouldLoadAreRefused) {
  auto builder = From(TableWithHistory());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(-1, std::nullopt, 4, 4000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "means no snapshot"));
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(7, 7, 4, 4000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "its own parent"));
  auto odd = std::make_shared<Snapshot>(*MakeSnapshot(8, 2, 4, 4000));
  odd->summary["operation"] = "frobnicate";
  EXPECT_THAT(builder.AddSnapshot(odd),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "unknown operation"));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(AddSnapshotTest, StaleSequenceNumberIsARetryableCommitFailure) {
  auto builder = From(TableWithHistory());
  auto status = builder.AddSnapshot(MakeSnapshot(4, 3, 3, 4000));
  ASSERT_THAT(status, IsErrorWithMessage(
                          ErrorKind::kCommitFailed,
                          "Cannot add snapshot with sequence number 3 older than last sequence "
                          "number 3"));
  EXPECT_TRUE(status.error().retryable);
  EXPECT_FALSE(builder.HasChanges());
  // Without a parent (a replace), the sequence number is not checked here.
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(5, std::nullopt, 4, 4000)), IsOk());
}

TEST(AddSnapshotTest, V1HasNoSequenceNumbers) {
  auto table = TableWithHistory(1);
  EXPECT_EQ(table->last_sequence_number, 0);
  auto builder = From(table);
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(4, 3, 0, 4000)), IsOk());
}

TEST(AddSnapshotTest, LowerSequenceNumberWithoutParentFailsValidation) {
  auto builder = From(TableWithHistory());
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(9, std::nullopt, 1, 4000)), IsOk());
  EXPECT_THAT(builder.Build(),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Invalid snapshot with sequence number 2 greater than last "
                                 "sequence number 1"));
}

// Regression: with every other snapshot removed, a snapshot without a parent
// took last-sequence-number to -7, and Spark could no longer write. Mistakes
// a retry cannot mend are bad requests, not conflicts.
TEST(AddSnapshotTest, SnapshotsNoRetryCouldMendAreBadRequests) {
  auto builder = From(TableWithHistory());
  ASSERT_THAT(builder.RemoveSnapshots({1, 2, 3}), IsOk());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(9, std::nullopt, -7, 4000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "sequence-number -7"));
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(9, std::nullopt, 0, 4000)),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(9, std::nullopt, 4, -5)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "before 1970"));
  auto inline_manifests = std::make_shared<Snapshot>(*MakeSnapshot(9, std::nullopt, 4, 4000));
  inline_manifests->manifest_list.clear();
  EXPECT_THAT(builder.AddSnapshot(inline_manifests),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "needs a manifest-list"));
}

TEST(AddSnapshotTest, V3RowLineage) {
  auto table = NewTable(3);
  auto builder = From(table);
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot add a snapshot: first-row-id is null"));
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1000, 0, 100)), IsOk());
  auto behind = builder.AddSnapshot(MakeSnapshot(2, 1, 2, 2000, 99, 5));
  ASSERT_THAT(behind, IsErrorWithMessage(ErrorKind::kCommitFailed,
                                         "Cannot add a snapshot, first-row-id is behind table "
                                         "next-row-id: 99 < 100"));
  EXPECT_TRUE(behind.error().retryable);
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(2, 1, 2, 2000, 100, 5)), IsOk());
  ASSERT_THAT(builder.SetRef(kMainBranch, Branch(2)), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->next_row_id, 105);
}

TEST(AddSnapshotTest, ATimestampAheadOfTheCatalogsClockIsRefused) {
  // Every later commit from a right clock would log a time before it, which
  // Iceberg Java cannot load: the writer with the fast clock is refused.
  auto builder = From(NewTable());
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, NowMillis() + 3'600'000)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "ahead of the catalog's clock; check the writer's clock"));
  EXPECT_FALSE(builder.HasChanges());
  // Within the skew Java tolerates (a minute), it is taken.
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, NowMillis() + 30'000)), IsOk());
}

// --- set-snapshot-ref / remove-snapshot-ref ------------------------------------------

TEST(SetRefTest, AMainSnapshotFromBeforeTheLatestLoggedChangeIsARetryableConflict) {
  // History at 1, 2 and 3 s after the epoch, then a rollback logged now.
  auto table = Commit(TableWithHistory(), {spec::SetSnapshotRef{kMainBranch, Branch(2)}});
  auto builder = From(table);
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(4, 2, 4, 4000)), IsOk());
  auto stale = builder.SetRef(kMainBranch, Branch(4));
  EXPECT_THAT(stale, IsErrorWithMessage(ErrorKind::kCommitFailed,
                                        "is more than a minute before the table's latest change"));
  EXPECT_TRUE(stale.error().retryable);
  // Stamped within a minute of the rollback, it is logged (Java tolerates
  // that much skew between writers).
  auto fresh = From(table);
  ASSERT_THAT(fresh.AddSnapshot(MakeSnapshot(4, 2, 4, NowMillis() - 30'000)), IsOk());
  ASSERT_THAT(fresh.SetRef(kMainBranch, Branch(4)), IsOk());
  EXPECT_THAT(fresh.Build(), IsOk());
}

TEST(SetRefTest, MainMovesCurrentSnapshotAndLogsTheSnapshotTime) {
  auto table = NewTable();
  auto result = Commit(table, {spec::AddSnapshot{MakeSnapshot(7, std::nullopt, 1, 123456)},
                               spec::SetSnapshotRef{kMainBranch, Branch(7)}});
  EXPECT_EQ(result->current_snapshot_id, 7);
  ASSERT_EQ(result->snapshot_log.size(), 1u);
  EXPECT_EQ(result->snapshot_log[0], (SnapshotLogEntry{123456, 7}));
  EXPECT_GE(result->last_updated_ms, 123456);
}

TEST(SetRefTest, RollbackLogsTheCommitTime) {
  auto table = TableWithHistory();
  int64_t before = NowMillis();
  auto rolled_back = Commit(table, {spec::SetSnapshotRef{kMainBranch, Branch(1)}});
  int64_t after = NowMillis();
  EXPECT_EQ(rolled_back->current_snapshot_id, 1);
  ASSERT_EQ(rolled_back->snapshot_log.size(), 4u);
  EXPECT_EQ(rolled_back->snapshot_log.back().snapshot_id, 1);
  EXPECT_GE(rolled_back->snapshot_log.back().timestamp_ms, before);
  EXPECT_LE(rolled_back->snapshot_log.back().timestamp_ms, after);
  EXPECT_EQ(rolled_back->last_updated_ms, rolled_back->snapshot_log.back().timestamp_ms);
}

TEST(SetRefTest, IdenticalRefIsNoOp) {
  auto builder = From(TableWithHistory());
  ASSERT_THAT(builder.SetRef(kMainBranch, Branch(3)), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

TEST(SetRefTest, InvalidRefs) {
  auto builder = From(TableWithHistory());
  EXPECT_THAT(
      builder.SetRef("dev", Branch(99)),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot set dev to unknown snapshot: 99"));
  EXPECT_THAT(builder.SetRef(kMainBranch, Tag(2)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot set main to a tag, it must be a branch"));
  SnapshotRef tag = Tag(2);
  tag.min_snapshots_to_keep = 3;
  EXPECT_THAT(builder.SetRef("v1", tag),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Tags do not support setting minSnapshotsToKeep"));
  SnapshotRef branch = Branch(2);
  branch.max_ref_age_ms = 0;
  EXPECT_THAT(builder.SetRef("dev", branch), IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(SetRefTest, OtherRefsDoNotTouchTheSnapshotLog) {
  auto table = Commit(TableWithHistory(),
                      {spec::SetSnapshotRef{"dev", Branch(1)}, spec::SetSnapshotRef{"v1", Tag(2)}});
  EXPECT_EQ(table->current_snapshot_id, 3);
  EXPECT_EQ(table->snapshot_log.size(), 3u);
  EXPECT_EQ(table->Ref("dev")->snapshot_id, 1);
  EXPECT_FALSE(table->Ref("v1")->is_branch());
}

TEST(SetRefTest, IntermediateMainSnapshotsAreDroppedFromTheLog) {
  // One commit that appends 4 then 5 (as a coalesced commit does).
  auto table = Commit(TableWithHistory(), {spec::AddSnapshot{MakeSnapshot(4, 3, 4, 4000)},
                                           spec::SetSnapshotRef{kMainBranch, Branch(4)},
                                           spec::AddSnapshot{MakeSnapshot(5, 4, 5, 5000)},
                                           spec::SetSnapshotRef{kMainBranch, Branch(5)}});
  std::vector<SnapshotLogEntry> expected = {{1000, 1}, {2000, 2}, {3000, 3}, {5000, 5}};
  EXPECT_EQ(table->snapshot_log, expected);
  EXPECT_NE(table->SnapshotById(4), nullptr);
  EXPECT_EQ(table->current_snapshot_id, 5);
}

TEST(RemoveRefTest, RemovingMainClearsCurrentSnapshot) {
  auto builder = From(TableWithHistory());
  ASSERT_THAT(builder.RemoveRef(kMainBranch), IsOk());
  ASSERT_THAT(builder.RemoveRef("missing"), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::RemoveSnapshotRef{kMainBranch}});
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_FALSE((*built)->current_snapshot_id.has_value());
  EXPECT_EQ((*built)->Ref(kMainBranch), nullptr);
  EXPECT_EQ((*built)->snapshots.size(), 3u);
}

TEST(RemoveRefTest, ReplaceTransaction) {
  // RTAS: drop main, add a parentless snapshot, point main at it.
  auto table = TableWithHistory();
  auto replaced = Commit(table, {spec::RemoveSnapshotRef{kMainBranch},
                                 spec::AddSnapshot{MakeSnapshot(10, std::nullopt, 4, 9000)},
                                 spec::SetSnapshotRef{kMainBranch, Branch(10)}});
  EXPECT_EQ(replaced->current_snapshot_id, 10);
  EXPECT_EQ(replaced->last_sequence_number, 4);
  EXPECT_EQ(replaced->snapshots.size(), 4u);
  ASSERT_EQ(replaced->snapshot_log.size(), 4u);
  EXPECT_EQ(replaced->snapshot_log.back(), (SnapshotLogEntry{9000, 10}));
}

// --- remove-snapshots ------------------------------------------------------------

TEST(RemoveSnapshotsTest, DropsSnapshotsStatisticsAndRefs) {
  StatisticsFile stats;
  stats.snapshot_id = 1;
  stats.statistics_path = "file:/tmp/t/metadata/1.stats";
  PartitionStatisticsFile partition_stats;
  partition_stats.snapshot_id = 1;
  partition_stats.statistics_path = "file:/tmp/t/metadata/1.pstats";
  auto table =
      Commit(TableWithHistory(),
             {spec::SetStatistics{stats}, spec::SetPartitionStatistics{partition_stats},
              spec::SetSnapshotRef{"old", Tag(1)}, spec::SetSnapshotRef{"dev", Branch(2)}});
  auto builder = From(table);
  ASSERT_THAT(builder.RemoveSnapshots({1, 77}), IsOk());
  std::vector<TableUpdate> expected = {spec::RemoveSnapshots{{1}}, spec::RemoveStatistics{1},
                                       spec::RemovePartitionStatistics{1},
                                       spec::RemoveSnapshotRef{"old"}};
  EXPECT_EQ(builder.changes(), expected);
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->SnapshotById(1), nullptr);
  EXPECT_TRUE((*built)->statistics.empty());
  EXPECT_TRUE((*built)->partition_statistics.empty());
  EXPECT_EQ((*built)->Ref("old"), nullptr);
  EXPECT_NE((*built)->Ref("dev"), nullptr);
  // Log entries before (and including) the removed snapshot go.
  std::vector<SnapshotLogEntry> log = {{2000, 2}, {3000, 3}};
  EXPECT_EQ((*built)->snapshot_log, log);
}

TEST(RemoveSnapshotsTest, SnapshotLogHasNoGaps) {
  // Log 1, 2, 3; removing 2 must also drop 1, or 3 would seem current
  // during 2's time.
  auto table = Commit(TableWithHistory(), {spec::RemoveSnapshots{{2}}});
  std::vector<SnapshotLogEntry> log = {{3000, 3}};
  EXPECT_EQ(table->snapshot_log, log);
  EXPECT_NE(table->SnapshotById(1), nullptr);
}

TEST(RemoveSnapshotsTest, RemovingTheCurrentSnapshotClearsMain) {
  auto table = Commit(TableWithHistory(), {spec::RemoveSnapshots{{3}}});
  EXPECT_FALSE(table->current_snapshot_id.has_value());
  EXPECT_EQ(table->Ref(kMainBranch), nullptr);
  EXPECT_TRUE(table->snapshot_log.empty());
}

TEST(RemoveSnapshotsTest, UnknownIdsAreANoOp) {
  auto builder = From(TableWithHistory());
  ASSERT_THAT(builder.RemoveSnapshots({100, 200}), IsOk());
  EXPECT_FALSE(builder.HasChanges());
}

// --- location, properties, statistics ------------------------------------------------

TEST(SetLocationTest, StripsTrailingSlashAndDetectsNoOp) {
  auto builder = From(NewTable());
  ASSERT_THAT(builder.SetLocation("file:/tmp/t/"), IsOk());
  EXPECT_FALSE(builder.HasChanges());
  ASSERT_THAT(builder.SetLocation("s3://bucket/new//"), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::SetLocation{"s3://bucket/new"}});
  EXPECT_THAT(builder.SetLocation(""), IsError(ErrorKind::kInvalidArgument));
}

TEST(PropertiesTest, SetAndRemoveRecordOnlyWhatChanged) {
  auto table = Commit(NewTable(), {spec::SetProperties{{{"a", "1"}, {"b", "2"}}}});
  EXPECT_EQ(table->Property("a", ""), "1");
  auto builder = From(table);
  ASSERT_THAT(builder.SetProperties({{"a", "1"}, {"b", "3"}}), IsOk());
  ASSERT_THAT(builder.RemoveProperties({"a", "missing"}), IsOk());
  std::vector<TableUpdate> expected = {spec::SetProperties{{{"b", "3"}}},
                                       spec::RemoveProperties{{"a"}}};
  EXPECT_EQ(builder.changes(), expected);
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->properties.count("a"), 0u);
  EXPECT_EQ((*built)->Property("b", ""), "3");

  auto noop = From(table);
  ASSERT_THAT(noop.SetProperties({{"a", "1"}}), IsOk());
  ASSERT_THAT(noop.RemoveProperties({"zzz"}), IsOk());
  EXPECT_FALSE(noop.HasChanges());
}

TEST(StatisticsTest, SetReplacesTheEntryOfItsSnapshot) {
  StatisticsFile first;
  first.snapshot_id = 2;
  first.statistics_path = "file:/a.puffin";
  StatisticsFile second = first;
  second.statistics_path = "file:/b.puffin";
  auto table = Commit(TableWithHistory(), {spec::SetStatistics{first}});
  table = Commit(table, {spec::SetStatistics{second}});
  ASSERT_EQ(table->statistics.size(), 1u);
  EXPECT_EQ(table->statistics[0].statistics_path, "file:/b.puffin");

  auto builder = From(table);
  ASSERT_THAT(builder.SetStatistics(second), IsOk());
  ASSERT_THAT(builder.RemoveStatistics(3), IsOk());
  EXPECT_FALSE(builder.HasChanges());
  ASSERT_THAT(builder.RemoveStatistics(2), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::RemoveStatistics{2}});
}

TEST(StatisticsTest, PartitionStatistics) {
  PartitionStatisticsFile file;
  file.snapshot_id = 3;
  file.statistics_path = "file:/p.parquet";
  file.file_size_in_bytes = 10;
  auto table = Commit(TableWithHistory(), {spec::SetPartitionStatistics{file}});
  ASSERT_EQ(table->partition_statistics.size(), 1u);
  EXPECT_EQ(table->partition_statistics[0], file);
  table = Commit(table, {spec::RemovePartitionStatistics{3}});
  EXPECT_TRUE(table->partition_statistics.empty());
}

// --- remove-partition-specs / remove-schemas -------------------------------------------

TEST(RemovePartitionSpecsTest, CannotRemoveTheDefault) {
  auto table = Commit(
      NewTable(), {spec::AddPartitionSpec{Spec({PartitionBy(3, 0, "ts_day", Transform::Day())})},
                   spec::SetDefaultSpec{kLastAdded}});
  auto builder = From(table);
  EXPECT_THAT(
      builder.RemovePartitionSpecs({1}),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot remove the default partition spec"));
  ASSERT_THAT(builder.RemovePartitionSpecs({0, 8}), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::RemovePartitionSpecs{{0}}});
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  ASSERT_EQ((*built)->partition_specs.size(), 1u);
  EXPECT_EQ((*built)->partition_specs[0]->spec_id, 1);
}

TEST(RemoveSchemasTest, CannotRemoveTheCurrent) {
  auto table = Commit(NewTable(), {spec::AddSchema{WiderSchema(), std::nullopt},
                                   spec::SetCurrentSchema{kLastAdded}});
  auto builder = From(table);
  EXPECT_THAT(builder.RemoveSchemas({1}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot remove the current schema"));
  ASSERT_THAT(builder.RemoveSchemas({0}), IsOk());
  ASSERT_THAT(builder.RemoveSchemas({0}), IsOk());
  EXPECT_EQ(builder.changes(), std::vector<TableUpdate>{spec::RemoveSchemas{{0}}});
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->schemas.size(), 1u);
}

// Regression: removed, the schema's id was handed out again and a snapshot
// written with it read as another schema's columns.
TEST(RemoveSchemasTest, CannotRemoveOneASnapshotWasWrittenWith) {
  auto table = TableWithHistory();
  table = Commit(
      table, {spec::AddSchema{WiderSchema(), std::nullopt}, spec::SetCurrentSchema{kLastAdded}});
  auto builder = From(table);
  EXPECT_THAT(builder.RemoveSchemas({0}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "was written with it"));
  EXPECT_FALSE(builder.HasChanges());
}

// --- schema evolution --------------------------------------------------------------------

SchemaPtr WithIdType(const Schema& base, TypePtr type) {
  std::vector<NestedField> fields = base.fields();
  fields[0].type = std::move(type);  // field 1, "id"
  return std::make_shared<Schema>(0, std::move(fields));
}

// Regression: long to int, string to int and (v2) date to timestamp were
// accepted; PyIceberg and Spark then failed to read the table's files.
TEST(SchemaEvolutionTest, OnlyTheSpecsTypePromotionsAreAllowed) {
  auto table = TableWithHistory();
  ASSERT_EQ(table->Schema()->FindFieldById(1)->type->id(), TypeId::kLong);
  EXPECT_THAT(From(table).AddSchema(WithIdType(*table->Schema(), Type::Int())),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "from long to int"));
  EXPECT_THAT(From(table).AddSchema(WithIdType(*table->Schema(), Type::String())),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_TRUE(CanPromote(*Type::Int(), *Type::Long(), 2));
  EXPECT_TRUE(CanPromote(*Type::Float(), *Type::Double(), 2));
  EXPECT_TRUE(CanPromote(*Type::Decimal(9, 2), *Type::Decimal(18, 2), 2));
  EXPECT_FALSE(CanPromote(*Type::Decimal(9, 2), *Type::Decimal(18, 3), 2));
  EXPECT_FALSE(CanPromote(*Type::Decimal(18, 2), *Type::Decimal(9, 2), 2));
  EXPECT_FALSE(CanPromote(*Type::Date(), *Type::Timestamp(), 2));
  EXPECT_TRUE(CanPromote(*Type::Date(), *Type::Timestamp(), 3));
  EXPECT_FALSE(CanPromote(*Type::Date(), *Type::TimestampTz(), 3));
  EXPECT_FALSE(CanPromote(*Type::Long(), *Type::Int(), 3));
}

// Regression (review): Spark's CREATE OR REPLACE TABLE keeps a column's id
// by its name whatever its new type, after removing main; with no current
// snapshot no data file is read with the new schema.
TEST(SchemaEvolutionTest, AReplaceOrAnEmptyTableMayChangeATypeAtWill) {
  auto table = TableWithHistory();
  auto replace = From(table);
  ASSERT_THAT(replace.RemoveRef(kMainBranch), IsOk());
  EXPECT_THAT(replace.AddSchema(WithIdType(*table->Schema(), Type::String())), IsOk());
  EXPECT_THAT(From(NewTable()).AddSchema(WithIdType(*NewTable()->Schema(), Type::Int())), IsOk());
}

// Regression (review): the check walked every id up to the highest, and at
// INT32_MAX never ended.
TEST(SchemaEvolutionTest, AHugeFieldIdIsWalkedOnce) {
  auto table = TableWithHistory();
  std::vector<NestedField> fields = table->Schema()->fields();
  fields.push_back(NestedField{std::numeric_limits<int32_t>::max(), "far", Type::Int(), false});
  EXPECT_THAT(From(table).AddSchema(std::make_shared<Schema>(0, std::move(fields))), IsOk());
}

TEST(SchemaEvolutionTest, AnEmptyFieldNameIsRefused) {
  auto table = NewTable();
  std::vector<NestedField> fields = table->Schema()->fields();
  fields.push_back(NestedField{99, "", Type::Int(), false});
  EXPECT_THAT(From(table).AddSchema(std::make_shared<Schema>(0, std::move(fields))),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "empty name"));
}

// Regression: a new spec could take another spec's field id for another
// field; Iceberg Java then refused to read the table ("Conflicting
// partition fields").
TEST(AddPartitionSpecTest, AFieldIdMeansOneFieldInEverySpec) {
  auto table =
      Commit(NewTable(),
             {spec::AddPartitionSpec{Spec({PartitionBy(3, 1000, "ts_day", Transform::Day())})}});
  EXPECT_THAT(
      From(table).AddPartitionSpec(Spec({PartitionBy(1, 1000, "id", Transform::Identity())})),
      IsErrorWithMessage(ErrorKind::kInvalidArgument, "field id 1000"));
  // A v1 table keeps a dropped field as void under its id; after an
  // upgrade Iceberg Java carries it into every new spec.
  auto upgraded =
      Commit(NewTable(1),
             {spec::AddPartitionSpec{Spec({PartitionBy(1, 1000, "x", Transform::Identity())})},
              spec::SetDefaultSpec{kLastAdded}});
  upgraded = Commit(
      upgraded, {spec::AddPartitionSpec{Spec({PartitionBy(1, 1000, "x", Transform::Void()),
                                              PartitionBy(3, 1001, "ts_day", Transform::Day())})},
                 spec::UpgradeFormatVersion{2}});
  EXPECT_THAT(
      From(upgraded).AddPartitionSpec(Spec({PartitionBy(1, 1000, "x", Transform::Void()),
                                            PartitionBy(3, 1001, "ts_day", Transform::Day()),
                                            PartitionBy(2, 0, "data", Transform::Identity())})),
      IsOk());
  // The same field again (renamed, beside a new one) keeps its id.
  EXPECT_THAT(From(table).AddPartitionSpec(Spec({PartitionBy(3, 1000, "day", Transform::Day()),
                                                 PartitionBy(1, 0, "id", Transform::Identity())})),
              IsOk());
}

// Regression: Iceberg Java reads these as numbers and fails every write.
TEST(PropertiesTest, IntegerPropertiesMustBeIntegers) {
  EXPECT_THAT(From(NewTable()).SetProperties({{kPreviousVersionsMax, "abc"}}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, kPreviousVersionsMax));
  EXPECT_THAT(From(NewTable()).SetProperties({{kPreviousVersionsMax, "99999999999999999999"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(From(NewTable()).SetProperties({{"commit.retry.num-retries", "4294967296"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(From(NewTable()).SetProperties({{kTargetFileSizeBytes, "4294967296"}}), IsOk());
  EXPECT_THAT(From(NewTable()).SetProperties({{"my.own", "abc"}}), IsOk());
}

// --- encryption keys -------------------------------------------------------------------

TEST(EncryptionKeyTest, RequiresV3) {
  EncryptionKey key;
  key.key_id = "k1";
  key.encrypted_key_metadata = "AAAA";
  auto v2 = From(NewTable(2));
  EXPECT_THAT(v2.AddEncryptionKey(key), IsError(ErrorKind::kInvalidArgument));

  auto table = Commit(NewTable(3), {spec::AddEncryptionKey{key}});
  ASSERT_EQ(table->encryption_keys.size(), 1u);
  auto builder = From(table);
  ASSERT_THAT(builder.AddEncryptionKey(key), IsOk());
  ASSERT_THAT(builder.RemoveEncryptionKey("other"), IsOk());
  EXPECT_FALSE(builder.HasChanges());
  ASSERT_THAT(builder.RemoveEncryptionKey("k1"), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_TRUE((*built)->encryption_keys.empty());
}

// The REST spec's encrypted-key-metadata is base64: Iceberg Java cannot load
// a table whose is not. Java's basic decoder takes it with or without padding.
TEST(EncryptionKeyTest, KeyMetadataMustBeBase64) {
  auto builder = From(NewTable(3));
  for (const char* text : {"!!! not base64 !!!", "AAAAA", "AA=A", "AAA==="}) {
    EncryptionKey key{"k1", text, std::nullopt, {}};
    EXPECT_THAT(builder.AddEncryptionKey(key),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "not base64"))
        << text;
  }
  for (const char* text : {"", "AAAA", "AAA=", "AA==", "AAA", "a+/9"}) {
    EncryptionKey key{StrCat("ok-", text), text, std::nullopt, {}};
    EXPECT_THAT(builder.AddEncryptionKey(key), IsOk()) << text;
  }
}

// --- Build: metadata log, last-updated-ms, no-op, validation ---------------------------------

TEST(BuildTest, NoOpCommitReturnsTheBase) {
  auto table = TableWithHistory();
  auto builder = From(table);
  ASSERT_THAT(builder.ApplyAll({spec::SetSnapshotRef{kMainBranch, Branch(3)},
                                spec::SetCurrentSchema{0}, spec::SetLocation{"file:/tmp/t"},
                                spec::UpgradeFormatVersion{2}, spec::RemoveProperties{{"x"}}}),
              IsOk());
  EXPECT_FALSE(builder.HasChanges());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->get(), table.get());
}

TEST(BuildTest, AppendsBaseToMetadataLog) {
  auto table = NewTable();
  EXPECT_TRUE(table->metadata_log.empty());
  auto next = Commit(table, {spec::SetProperties{{{"k", "v"}}}}, "file:/tmp/t/metadata/v0.json");
  ASSERT_EQ(next->metadata_log.size(), 1u);
  EXPECT_EQ(next->metadata_log[0],
            (MetadataLogEntry{table->last_updated_ms, "file:/tmp/t/metadata/v0.json"}));
  EXPECT_GE(next->last_updated_ms, table->last_updated_ms);
}

TEST(BuildTest, StagedBaseWithoutLocationAddsNoLogEntry) {
  auto next = Commit(NewTable(), {spec::SetProperties{{{"k", "v"}}}}, "");
  EXPECT_TRUE(next->metadata_log.empty());
}

TEST(BuildTest, MetadataLogIsTrimmedToPreviousVersionsMax) {
  auto table = NewTable(2, {{kPreviousVersionsMax, "2"}});
  std::vector<std::string> files;
  std::vector<MetadataLogEntry> all_entries;
  for (int i = 0; i < 5; ++i) {
    std::string file = "file:/tmp/t/metadata/v" + std::to_string(i) + ".json";
    auto builder = TableMetadataBuilder::BuildFrom(table, file);
    ASSERT_THAT(builder.SetProperties({{"i", std::to_string(i)}}), IsOk());
    all_entries.push_back(MetadataLogEntry{table->last_updated_ms, file});
    auto built = builder.Build();
    ASSERT_THAT(built, IsOk());
    table = *built;
    // The current file plus the log is max + 1 files.
    ASSERT_LE(table->metadata_log.size(), 2u);
    if (i >= 2) {
      ASSERT_EQ(builder.removed_metadata_log().size(), 1u);
      EXPECT_EQ(builder.removed_metadata_log()[0], all_entries[i - 2]);
    } else {
      EXPECT_TRUE(builder.removed_metadata_log().empty());
    }
  }
  std::vector<MetadataLogEntry> expected(all_entries.end() - 2, all_entries.end());
  EXPECT_EQ(table->metadata_log, expected);
}

TEST(BuildTest, PreviousVersionsMaxIsAtLeastOne) {
  auto table = NewTable(2, {{kPreviousVersionsMax, "0"}});
  table = Commit(table, {spec::SetProperties{{{"a", "1"}}}}, "file:/v0.json");
  table = Commit(table, {spec::SetProperties{{{"a", "2"}}}}, "file:/v1.json");
  ASSERT_EQ(table->metadata_log.size(), 1u);
  EXPECT_EQ(table->metadata_log[0].metadata_file, "file:/v1.json");
}

TEST(BuildTest, LoweringPreviousVersionsMaxDropsSeveralEntries) {
  auto table = NewTable();
  for (int i = 0; i < 4; ++i) {
    table = Commit(table, {spec::SetProperties{{{"i", std::to_string(i)}}}},
                   "file:/v" + std::to_string(i) + ".json");
  }
  ASSERT_EQ(table->metadata_log.size(), 4u);
  auto builder = TableMetadataBuilder::BuildFrom(table, "file:/v4.json");
  ASSERT_THAT(builder.SetProperties({{kPreviousVersionsMax, "2"}}), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  ASSERT_EQ((*built)->metadata_log.size(), 2u);
  EXPECT_EQ((*built)->metadata_log[0].metadata_file, "file:/v3.json");
  EXPECT_EQ((*built)->metadata_log[1].metadata_file, "file:/v4.json");
  ASSERT_EQ(builder.removed_metadata_log().size(), 3u);
  EXPECT_EQ(builder.removed_metadata_log()[0].metadata_file, "file:/v0.json");
}

TEST(BuildTest, LastUpdatedNeverGoesBackwards) {
  // A base written by a writer whose clock runs an hour ahead.
  auto skewed = std::make_shared<TableMetadata>(*NewTable());
  skewed->last_updated_ms = NowMillis() + 3'600'000;
  skewed->Finalize();
  auto next = Commit(skewed, {spec::SetProperties{{{"k", "v"}}}});
  EXPECT_EQ(next->last_updated_ms, skewed->last_updated_ms);

  // A snapshot stamped in the future (within the skew tolerated).
  auto future = NowMillis() + 50'000;
  auto with_snapshot =
      Commit(NewTable(), {spec::AddSnapshot{MakeSnapshot(1, std::nullopt, 1, future)},
                          spec::SetSnapshotRef{kMainBranch, Branch(1)}});
  EXPECT_EQ(with_snapshot->last_updated_ms, future);
}

TEST(BuildTest, NewTableWithoutSchemaFailsValidation) {
  auto builder = TableMetadataBuilder::BuildFromEmpty();
  ASSERT_THAT(builder.SetLocation("file:/tmp/x"), IsOk());
  EXPECT_THAT(builder.Build(), IsErrorWithMessage(ErrorKind::kInvalidArgument, "current schema"));
}

TEST(BuildTest, UnsupportedInitialFormatVersionFailsValidation) {
  auto builder = TableMetadataBuilder::BuildFromEmpty(4);
  ASSERT_THAT(builder.ApplyAll({spec::AddSchema{SimpleSchema(), std::nullopt},
                                spec::AddPartitionSpec{PartitionSpec::Unpartitioned()},
                                spec::AddSortOrder{SortOrder::Unsorted()},
                                spec::SetLocation{"file:/tmp/x"}}),
              IsOk());
  EXPECT_THAT(builder.Build(),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Unsupported format version: v4"));
}

TEST(BuildTest, DroppingAPartitionSourceColumnFailsValidation) {
  auto table = Commit(
      NewTable(), {spec::AddPartitionSpec{Spec({PartitionBy(3, 0, "ts_day", Transform::Day())})},
                   spec::SetDefaultSpec{kLastAdded}});
  auto without_ts =
      std::make_shared<const Schema>(0, std::vector<NestedField>{Field(1, "id", Type::Long(), true),
                                                                 Field(2, "data", Type::String())});
  auto builder = From(table);
  ASSERT_THAT(builder.AddSchema(without_ts), IsOk());
  ASSERT_THAT(builder.SetCurrentSchema(kLastAdded), IsOk());
  EXPECT_THAT(builder.Build(),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot find source column for partition field: ts_day"));
}

TEST(BuildTest, CreateTransactionFromUpdates) {
  // What a REST create (assert-create) commit sends.
  auto builder = TableMetadataBuilder::BuildFromEmpty();
  std::vector<TableUpdate> updates = {
      spec::AssignUuid{"2cc52516-5e73-41f2-b139-545d41a4e151"},
      spec::UpgradeFormatVersion{1},
      spec::AddSchema{SimpleSchema(), 3},
      spec::SetCurrentSchema{kLastAdded},
      spec::AddPartitionSpec{Spec({PartitionBy(1, 1000, "id", Transform::Identity())})},
      spec::SetDefaultSpec{kLastAdded},
      spec::AddSortOrder{SortOrder::Unsorted()},
      spec::SetDefaultSortOrder{kLastAdded},
      spec::SetLocation{"file:/tmp/created"},
      spec::SetProperties{{{"owner", "me"}}},
  };
  ASSERT_THAT(builder.ApplyAll(updates), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  const TableMetadata& m = **built;
  EXPECT_EQ(m.table_uuid, "2cc52516-5e73-41f2-b139-545d41a4e151");
  EXPECT_EQ(m.format_version, 1);
  EXPECT_EQ(m.last_column_id, 3);
  EXPECT_EQ(m.current_schema_id, 0);
  EXPECT_EQ(m.last_partition_id, 1000);
  EXPECT_EQ(m.default_sort_order_id, 0);
  EXPECT_EQ(m.location, "file:/tmp/created");
  EXPECT_TRUE(m.metadata_log.empty());
  EXPECT_TRUE(m.snapshot_log.empty());
  EXPECT_FALSE(m.current_snapshot_id.has_value());
}

TEST(BuildTest, RecordedChangesReplayToTheSameMetadata) {
  // −1 ids are resolved in changes(), so replaying them on the same base
  // (as the coalescer and the REST layer do) gives the same result.
  auto table = TableWithHistory();
  auto builder = From(table);
  ASSERT_THAT(
      builder.ApplyAll(
          {spec::AddSchema{WiderSchema(), std::nullopt}, spec::SetCurrentSchema{kLastAdded},
           spec::AddPartitionSpec{Spec({PartitionBy(4, 0, "extra_bucket", Transform::Bucket(2))})},
           spec::SetDefaultSpec{kLastAdded}, spec::AddSortOrder{Order({SortBy(4)})},
           spec::SetDefaultSortOrder{kLastAdded}, spec::AddSnapshot{MakeSnapshot(4, 3, 4, 4000)},
           spec::SetSnapshotRef{kMainBranch, Branch(4)}, spec::RemoveSnapshots{{1}}}),
      IsOk());
  for (const auto& change : builder.changes()) {
    std::visit(
        [](const auto& u) {
          if constexpr (requires { u.schema_id; }) {
            EXPECT_NE(u.schema_id, kLastAdded);
          }
          if constexpr (requires { u.spec_id; }) {
            EXPECT_NE(u.spec_id, kLastAdded);
          }
          if constexpr (requires { u.sort_order_id; }) {
            EXPECT_NE(u.sort_order_id, kLastAdded);
          }
        },
        change.value());
  }
  auto first = builder.Build();
  ASSERT_THAT(first, IsOk());

  auto replay = From(table);
  ASSERT_THAT(replay.ApplyAll(builder.changes()), IsOk());
  EXPECT_EQ(replay.changes(), builder.changes());
  auto second = replay.Build();
  ASSERT_THAT(second, IsOk());
  auto normalized = std::make_shared<TableMetadata>(**second);
  normalized->last_updated_ms = (*first)->last_updated_ms;
  EXPECT_TRUE(normalized->Equals(**first));
}

TEST(BuildTest, FailedUpdateLeavesTheBuilderUnchanged) {
  auto table = TableWithHistory();
  auto builder = From(table);
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(4, 3, 2, 4000)), IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(50, 0, "x", Transform::Identity())})),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(builder.SetRef("b", Branch(42)), IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(builder.HasChanges());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->get(), table.get());
}

TEST(TableUpdateTest, ActionNames) {
  EXPECT_EQ(TableUpdate(spec::AssignUuid{}).action(), "assign-uuid");
  EXPECT_EQ(TableUpdate(spec::AddPartitionSpec{}).action(), "add-spec");
  EXPECT_EQ(TableUpdate(spec::SetSnapshotRef{}).action(), "set-snapshot-ref");
  EXPECT_EQ(TableUpdate(spec::RemoveEncryptionKey{}).action(), "remove-encryption-key");
}

TEST(TableUpdateTest, EqualityComparesPointees) {
  EXPECT_EQ(TableUpdate(spec::AddSchema{SimpleSchema(), 3}),
            TableUpdate(spec::AddSchema{SimpleSchema(), 3}));
  EXPECT_NE(TableUpdate(spec::AddSchema{SimpleSchema(0), 3}),
            TableUpdate(spec::AddSchema{SimpleSchema(1), 3}));
  EXPECT_NE(TableUpdate(spec::AddSchema{SimpleSchema(), 3}),
            TableUpdate(spec::AddSchema{WiderSchema(), 3}));
  EXPECT_EQ(TableUpdate(spec::AddSnapshot{MakeSnapshot(1, std::nullopt, 1, 5)}),
            TableUpdate(spec::AddSnapshot{MakeSnapshot(1, std::nullopt, 1, 5)}));
  EXPECT_NE(TableUpdate(spec::AddSnapshot{MakeSnapshot(1, std::nullopt, 1, 5)}),
            TableUpdate(spec::AddSnapshot{nullptr}));
  EXPECT_EQ(TableUpdate(spec::AddSortOrder{Order({SortBy(1)}, 1)}),
            TableUpdate(spec::AddSortOrder{Order({SortBy(1)}, 1)}));
  EXPECT_NE(TableUpdate(spec::AddPartitionSpec{Spec({}, 0)}),
            TableUpdate(spec::AddPartitionSpec{Spec({}, 1)}));
}

}  // namespace
}  // namespace skade::spec
