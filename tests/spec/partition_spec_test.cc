#include "skade/spec/partition_spec.h"

#include <gtest/gtest.h>

#include "skade/spec/sort_order.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using testing::IsErrorWithMessage;
using testing::IsOk;

Schema SampleSchema() {
  return Schema(
      0, {NestedField{1, "id", Type::Long(), true}, NestedField{2, "name", Type::String(), false},
          NestedField{3, "ts", Type::TimestampTz(), false},
          NestedField{4, "price", Type::Double(), false}});
}

PartitionField Field(int32_t source_id, int32_t field_id, std::string name, Transform transform) {
  return PartitionField{source_id, {}, field_id, std::move(name), transform};
}

TEST(PartitionSpecTest, ValidSpec) {
  PartitionSpec spec{
      1,
      {Field(1, 1000, "id_bucket", Transform::Bucket(16)),
       Field(2, 1001, "name", Transform::Identity()), Field(3, 1002, "ts_day", Transform::Day()),
       Field(2, 1003, "name_trunc", Transform::Truncate(3))}};
  EXPECT_THAT(spec.Validate(SampleSchema()), IsOk());
  EXPECT_EQ(spec.LastAssignedFieldId(), 1003);
  EXPECT_FALSE(spec.IsUnpartitioned());
}

TEST(PartitionSpecTest, UnpartitionedSpecs) {
  EXPECT_TRUE(PartitionSpec::Unpartitioned()->IsUnpartitioned());
  EXPECT_EQ(PartitionSpec::Unpartitioned()->LastAssignedFieldId(), 999);
  PartitionSpec all_void{0, {Field(1, 1000, "id_void", Transform::Void())}};
  EXPECT_TRUE(all_void.IsUnpartitioned());
}

TEST(PartitionSpecTest, RejectsInvalidFields) {
  Schema schema = SampleSchema();
  auto validate = [&](std::vector<PartitionField> fields) {
    return PartitionSpec{0, std::move(fields)}.Validate(schema);
  };
  EXPECT_THAT(validate({Field(9, 1000, "x", Transform::Identity())}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot find source column"));
  EXPECT_THAT(validate({Field(2, 1000, "name_day", Transform::Day())}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid source type string"));
  EXPECT_THAT(validate({Field(4, 1000, "p", Transform::Bucket(2))}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid source type double"));
  EXPECT_THAT(validate({Field(1, 1000, "a", Transform::Identity()),
                        Field(2, 1001, "a", Transform::Identity())}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "more than once: a"));
  EXPECT_THAT(validate({Field(1, 1000, "a", Transform::Identity()),
                        Field(2, 1000, "b", Transform::Identity())}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "field id more than once: 1000"));
  EXPECT_THAT(validate({Field(1, 1000, "", Transform::Identity())}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "empty partition name"));
  // A partition named after another column would shadow it.
  EXPECT_THAT(validate({Field(1, 1000, "name", Transform::Bucket(4))}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "name that exists in schema"));
  EXPECT_THAT(validate({Field(1, 1000, "name", Transform::Identity())}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "name that exists in schema"));
}

// Regression tests for the rules PartitionSpec::Validate and the metadata
// builder once checked separately and differently; both now share
// Validate/CheckCompatible, which follow Iceberg Java.

Schema NestedSchema() {
  return Schema(
      0, {NestedField{1, "id", Type::Long(), true},
          NestedField{2, "point", Type::Struct({NestedField{3, "x", Type::Long(), false}}), false},
          NestedField{4, "tags",
                      Type::List(NestedField{
                          5, "element",
                          Type::Struct({NestedField{6, "tag", Type::String(), false}}), false}),
                      false}});
}

TEST(PartitionSpecDriftTest, VoidFieldMayNameADroppedColumn) {
  // v1 tables replace a removed partition field by void; its column may be gone.
  PartitionSpec spec{0, {Field(99, 1000, "gone_null", Transform::Void())}};
  EXPECT_THAT(spec.Validate(SampleSchema()), IsOk());
  EXPECT_THAT(spec.CheckCompatible(SampleSchema()), IsOk());
}

TEST(PartitionSpecDriftTest, NonPrimitiveSourceIsRejectedAsSuch) {
  PartitionSpec identity{0, {Field(2, 1000, "p", Transform::Identity())}};
  EXPECT_THAT(identity.Validate(NestedSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot partition by non-primitive source field: struct"));
  // An unknown transform accepts every type, but not a struct.
  PartitionSpec unknown{0, {Field(2, 1000, "p", *Transform::Parse("zorder"))}};
  EXPECT_THAT(unknown.Validate(NestedSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "non-primitive source field"));
}

TEST(PartitionSpecDriftTest, SourceInsideAListIsRejected) {
  PartitionSpec spec{0, {Field(6, 1000, "tag", Transform::Identity())}};
  EXPECT_THAT(spec.Validate(NestedSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid partition field parent"));
  // Inside a struct is fine.
  PartitionSpec in_struct{0, {Field(3, 1000, "x_bucket", Transform::Bucket(4))}};
  EXPECT_THAT(in_struct.Validate(NestedSchema()), IsOk());
}

// Only a transform of several columns may have several sources: an unknown
// (future) one, whose every source is checked. A known one takes one.
TEST(PartitionSpecDriftTest, EveryMultiArgumentSourceIsChecked) {
  PartitionField field = Field(1, 1000, "multi", *Transform::Parse("zorder"));
  field.source_ids = {1, 42};
  EXPECT_THAT(PartitionSpec({0, {field}}).Validate(SampleSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot find source column"));
  field.source_ids = {1, 2};
  EXPECT_THAT(PartitionSpec({0, {field}}).Validate(SampleSchema()), IsOk());
  PartitionField identity = Field(1, 1000, "multi", Transform::Identity());
  identity.source_ids = {1, 2};
  EXPECT_THAT(PartitionSpec({0, {identity}}).Validate(SampleSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "takes one source column, not 2"));
}

TEST(PartitionSpecDriftTest, IdentityFromAnotherColumnNamesBothFacts) {
  PartitionSpec spec{0, {Field(1, 1000, "name", Transform::Identity())}};
  EXPECT_THAT(spec.Validate(SampleSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot create identity partition from name that exists in "
                                 "schema but is sourced from a different field: name"));
  PartitionSpec own{0, {Field(2, 1000, "name", Transform::Identity())}};
  EXPECT_THAT(own.Validate(SampleSchema()), IsOk());
}

TEST(PartitionSpecDriftTest, CompatibleSpecsIgnoreFieldIds) {
  PartitionSpec a{1, {Field(3, 1000, "ts_day", Transform::Day())}};
  PartitionSpec b{2, {Field(3, 1005, "ts_day", Transform::Day())}};
  EXPECT_TRUE(a.CompatibleWith(b));
  PartitionSpec renamed{1, {Field(3, 1000, "day", Transform::Day())}};
  EXPECT_FALSE(a.CompatibleWith(renamed));
  PartitionSpec other_transform{1, {Field(3, 1000, "ts_day", Transform::Hour())}};
  EXPECT_FALSE(a.CompatibleWith(other_transform));
}

TEST(PartitionSpecTest, SequentialIds) {
  EXPECT_TRUE(PartitionSpec::Unpartitioned()->HasSequentialIds());
  PartitionSpec sequential{
      0, {Field(1, 1000, "a", Transform::Identity()), Field(2, 1001, "b", Transform::Identity())}};
  EXPECT_TRUE(sequential.HasSequentialIds());
  PartitionSpec gap{
      0, {Field(1, 1000, "a", Transform::Identity()), Field(2, 1002, "b", Transform::Identity())}};
  EXPECT_FALSE(gap.HasSequentialIds());
}

TEST(PartitionSpecTest, PartitionTypeFollowsTransforms) {
  PartitionSpec spec{
      0,
      {Field(1, 1000, "id_bucket", Transform::Bucket(16)),
       Field(3, 1001, "ts_day", Transform::Day()), Field(2, 1002, "name", Transform::Identity()),
       Field(77, 1003, "dropped", Transform::Identity())}};
  auto type = spec.PartitionType(SampleSchema());
  ASSERT_THAT(type, IsOk());
  const auto& fields = (*type)->fields();
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].id, 1000);
  EXPECT_EQ(fields[0].type->ToString(), "int");
  EXPECT_EQ(fields[1].type->ToString(), "date");
  EXPECT_EQ(fields[2].type->ToString(), "string");
  EXPECT_EQ(fields[3].type->ToString(), "unknown");
}

TEST(PartitionSpecTest, DefaultFieldNamesAreIcebergs) {
  auto name = [](const char* transform) {
    return DefaultPartitionFieldName(*Transform::Parse(transform), "c");
  };
  EXPECT_EQ(name("identity"), "c");
  EXPECT_EQ(name("bucket[16]"), "c_bucket");
  EXPECT_EQ(name("truncate[4]"), "c_trunc");
  EXPECT_EQ(name("year"), "c_year");
  EXPECT_EQ(name("month"), "c_month");
  EXPECT_EQ(name("day"), "c_day");
  EXPECT_EQ(name("hour"), "c_hour");
  EXPECT_EQ(name("void"), "c_null");
}

TEST(SortOrderTest, ValidatesSourcesAndTransforms) {
  Schema schema = SampleSchema();
  SortOrder order{
      1, {SortField{Transform::Identity(), 2, {}, SortDirection::kDesc, NullOrder::kNullsLast}}};
  EXPECT_THAT(order.Validate(schema), IsOk());
  SortOrder missing{1, {SortField{Transform::Identity(), 42}}};
  EXPECT_THAT(missing.Validate(schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot find source column"));
  SortOrder bad{1, {SortField{Transform::Hour(), 2}}};
  EXPECT_THAT(bad.Validate(schema),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid source type"));
  EXPECT_TRUE(SortOrder::Unsorted()->IsUnsorted());
}

TEST(SortOrderDriftTest, NonPrimitiveAndMultiArgumentSources) {
  SortOrder by_struct{1, {SortField{Transform::Identity(), 2}}};
  EXPECT_THAT(by_struct.Validate(NestedSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot sort by non-primitive source field: struct"));
  SortField multi{*Transform::Parse("zorder"), 1, {1, 42}};
  EXPECT_THAT(SortOrder({1, {multi}}).Validate(SampleSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot find source column for sort field: 42"));
  SortField identity{Transform::Identity(), 1, {1, 2}};
  EXPECT_THAT(SortOrder({1, {identity}}).Validate(SampleSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "takes one source column, not 2"));
}

}  // namespace
}  // namespace skade::spec
