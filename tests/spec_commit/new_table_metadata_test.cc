#include "skade/spec/new_table_metadata.h"

#include <gtest/gtest.h>

#include "skade/spec/table_properties.h"
#include "skade/util/clock.h"
#include "skade/util/uuid.h"
#include "spec_commit/commit_test_util.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using skade::testing::IsError;
using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using namespace skade::spec::testing;  // NOLINT

NestedField Optional(int32_t id, std::string name, TypePtr type) {
  return Field(id, std::move(name), std::move(type), false);
}

// A client-side schema with arbitrary ids:
//   id: long (required)
//   location: struct<lat: double, lon: double>
//   tags: list<string>
//   props: map<string, struct<v: int>>
//   points: list<struct<x: long, y: long>>
std::shared_ptr<const Schema> NestedSchema() {
  auto location =
      Type::Struct({Optional(51, "lat", Type::Double()), Optional(52, "lon", Type::Double())});
  auto tags = Type::List(Optional(61, "element", Type::String()));
  auto props = Type::Map(Field(71, "key", Type::String(), true),
                         Optional(72, "value", Type::Struct({Optional(73, "v", Type::Int())})));
  auto points = Type::List(Optional(
      81, "element",
      Type::Struct({Field(82, "x", Type::Long(), true), Field(83, "y", Type::Long(), true)})));
  return std::make_shared<const Schema>(
      7,
      std::vector<NestedField>{Field(10, "id", Type::Long(), true),
                               Optional(50, "location", location), Optional(60, "tags", tags),
                               Optional(70, "props", props), Optional(80, "points", points)},
      std::vector<int32_t>{10});
}

TEST(NewTableMetadataTest, AssignsFreshIdsLikeIceberg) {
  auto spec = Spec({PartitionBy(52, 1234, "lon", Transform::Identity()),
                    PartitionBy(10, 1500, "id", Transform::Identity())},
                   /*spec_id=*/3);
  auto order = Order({SortBy(51), SortBy(10, SortDirection::kDesc)}, /*order_id=*/6);
  auto result = NewTableMetadata(*NestedSchema(), *spec, *order, "file:/tmp/nested/", {});
  ASSERT_THAT(result, IsOk());
  const TableMetadata& m = **result;
  const Schema& schema = *m.Schema();

  // Top-level fields first (1..5), then each one's children depth-first.
  std::vector<std::pair<std::string, int32_t>> expected = {
      {"id", 1},
      {"location", 2},
      {"tags", 3},
      {"props", 4},
      {"points", 5},
      {"location.lat", 6},
      {"location.lon", 7},
      {"tags.element", 8},
      {"props.key", 9},
      {"props.value", 10},
      {"props.value.v", 11},
      {"points.element", 12},
      {"points.element.x", 13},
      {"points.element.y", 14},
  };
  for (const auto& [name, id] : expected) {
    const NestedField* field = schema.FindFieldByName(name);
    ASSERT_NE(field, nullptr) << name;
    EXPECT_EQ(field->id, id) << name;
  }
  EXPECT_EQ(schema.schema_id(), 0);
  EXPECT_EQ(m.last_column_id, 14);
  EXPECT_EQ(schema.identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_TRUE(schema.FindFieldByName("points.element.x")->required);

  // The spec is re-bound by column name, with partition ids from 1000.
  const PartitionSpec& bound = *m.Spec();
  EXPECT_EQ(bound.spec_id, 0);
  ASSERT_EQ(bound.fields.size(), 2u);
  EXPECT_EQ(bound.fields[0].source_id, 7);
  EXPECT_EQ(bound.fields[0].field_id, 1000);
  EXPECT_EQ(bound.fields[0].transform, Transform::Identity());
  EXPECT_EQ(bound.fields[1].source_id, 1);
  EXPECT_EQ(bound.fields[1].field_id, 1001);
  EXPECT_EQ(m.last_partition_id, 1001);

  // The sort order too, as order 1.
  const SortOrder& sorted = *m.SortOrder();
  EXPECT_EQ(sorted.order_id, 1);
  ASSERT_EQ(sorted.fields.size(), 2u);
  EXPECT_EQ(sorted.fields[0].source_id, 6);
  EXPECT_EQ(sorted.fields[1].source_id, 1);
  EXPECT_EQ(sorted.fields[1].direction, SortDirection::kDesc);

  EXPECT_EQ(m.location, "file:/tmp/nested");
  EXPECT_EQ(m.format_version, 2);
  EXPECT_EQ(m.last_sequence_number, 0);
  EXPECT_TRUE(IsUuid(m.table_uuid)) << m.table_uuid;
  EXPECT_TRUE(m.metadata_log.empty());
  EXPECT_TRUE(m.snapshots.empty());
  EXPECT_FALSE(m.current_snapshot_id.has_value());
}

TEST(NewTableMetadataTest, UnpartitionedAndUnsorted) {
  int64_t before = NowMillis();
  auto result = NewTableMetadata(*SimpleSchema(), *PartitionSpec::Unpartitioned(),
                                 *SortOrder::Unsorted(), "file:/tmp/t", {});
  ASSERT_THAT(result, IsOk());
  const TableMetadata& m = **result;
  EXPECT_EQ(m.default_spec_id, 0);
  EXPECT_TRUE(m.Spec()->fields.empty());
  EXPECT_EQ(m.last_partition_id, 999);
  EXPECT_EQ(m.default_sort_order_id, 0);
  EXPECT_TRUE(m.SortOrder()->IsUnsorted());
  EXPECT_GE(m.last_updated_ms, before);
}

TEST(NewTableMetadataTest, EachTableGetsANewUuid) {
  auto a = NewTable();
  auto b = NewTable();
  EXPECT_NE(a->table_uuid, b->table_uuid);
}

TEST(NewTableMetadataTest, PropertiesDropReservedKeysAndDefaultToZstd) {
  auto result = NewTableMetadata(
      *SimpleSchema(), *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(), "file:/tmp/t",
      {{"format-version", "1"}, {"uuid", "x"}, {"current-snapshot-id", "5"}, {"owner", "alice"}});
  ASSERT_THAT(result, IsOk());
  const TableMetadata& m = **result;
  EXPECT_EQ(m.format_version, 1);
  std::map<std::string, std::string> expected = {{"owner", "alice"}, {kParquetCompression, "zstd"}};
  EXPECT_EQ(m.properties, expected);

  auto explicit_codec = NewTable(2, {{kParquetCompression, "snappy"}});
  EXPECT_EQ(explicit_codec->Property(kParquetCompression, ""), "snappy");
}

TEST(NewTableMetadataTest, FormatVersionArgumentWinsOverProperty) {
  auto result =
      NewTableMetadata(*SimpleSchema(), *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(),
                       "file:/tmp/t", {{"format-version", "1"}}, 3);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ((*result)->format_version, 3);
}

TEST(NewTableMetadataTest, InvalidFormatVersions) {
  auto make = [](std::map<std::string, std::string> properties, std::optional<int> version) {
    return NewTableMetadata(*SimpleSchema(), *PartitionSpec::Unpartitioned(),
                            *SortOrder::Unsorted(), "file:/tmp/t", properties, version);
  };
  EXPECT_THAT(make({{"format-version", "two"}}, std::nullopt),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(make({{"format-version", "4"}}, std::nullopt),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Unsupported format version: v4"));
  EXPECT_THAT(make({}, 0), IsError(ErrorKind::kInvalidArgument));
}

TEST(NewTableMetadataTest, V3TypesNeedV3) {
  auto schema =
      std::make_shared<const Schema>(0, std::vector<NestedField>{Field(1, "v", Type::Variant())});
  auto v2 = NewTableMetadata(*schema, *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(),
                             "file:/tmp/t", {});
  EXPECT_THAT(v2, IsError(ErrorKind::kInvalidArgument));
  auto v3 = NewTableMetadata(*schema, *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(),
                             "file:/tmp/t", {}, 3);
  ASSERT_THAT(v3, IsOk());
  EXPECT_EQ((*v3)->next_row_id, 0);
}

TEST(NewTableMetadataTest, UnknownPartitionSourceFails) {
  auto spec = Spec({PartitionBy(99, 1000, "x", Transform::Identity())});
  EXPECT_THAT(NewTableMetadata(*SimpleSchema(), *spec, *SortOrder::Unsorted(), "file:/tmp/t", {}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Cannot find source column"));
}

TEST(NewTableMetadataTest, PartitionOnListElementFails) {
  auto spec = Spec({PartitionBy(61, 1000, "tag", Transform::Identity())});
  EXPECT_THAT(NewTableMetadata(*NestedSchema(), *spec, *SortOrder::Unsorted(), "file:/tmp/t", {}),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "Invalid partition field parent"));
}

}  // namespace
}  // namespace skade::spec
