// Counters and ids that the builder advances must not wrap: an addition past
// int64 (row ids) or int32 (schema, spec, sort order and partition field ids)
// is kInvalidArgument (REST 400) instead of a wrapped, reused or negative id.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>

#include "skade/spec/table_metadata_builder.h"
#include "skade/spec/table_update.h"
#include "skade/util/json_reader.h"
#include "spec_commit/commit_test_util.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using skade::testing::IsErrorWithMessage;
using skade::testing::IsOk;
using namespace skade::spec::testing;  // NOLINT

constexpr int64_t kMaxLong = std::numeric_limits<int64_t>::max();
constexpr int32_t kMaxInt = std::numeric_limits<int32_t>::max();

// `base` with `edit` applied, as if read from a crafted metadata file.
TableMetadataPtr Crafted(const TableMetadataPtr& base,
                         const std::function<void(TableMetadata&)>& edit) {
  auto metadata = std::make_shared<TableMetadata>(*base);
  edit(*metadata);
  metadata->Finalize();
  return metadata;
}

TableMetadataBuilder From(const TableMetadataPtr& base) {
  return TableMetadataBuilder::BuildFrom(base, "file:/tmp/t/metadata/00000-a.metadata.json");
}

TEST(CounterOverflowTest, NextRowIdPlusAddedRowsMustNotOverflow) {
  auto table = Crafted(NewTable(3), [](TableMetadata& m) { m.next_row_id = kMaxLong - 1; });
  auto builder = From(table);
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1000, kMaxLong - 1, 10)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "next-row-id 9223372036854775806 plus added-rows 10 overflows"));
  // The failed update changed nothing; exactly reaching the limit is fine.
  ASSERT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1000, kMaxLong - 1, 1)), IsOk());
  ASSERT_THAT(builder.SetRef(kMainBranch, Branch(1)), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)->next_row_id, kMaxLong);
}

// The REST shape of the same commit: a 400, not a wrapped next-row-id.
TEST(CounterOverflowTest, AddSnapshotUpdateFromJsonNearTheRowIdLimit) {
  auto table = Crafted(NewTable(3), [](TableMetadata& m) { m.next_row_id = kMaxLong - 1; });
  simdjson::dom::parser parser;
  auto element = json::Parse(parser, R"({"action":"add-snapshot","snapshot":{
      "snapshot-id":1,"sequence-number":1,"timestamp-ms":1000,
      "manifest-list":"file:/tmp/t/metadata/snap-1.avro","summary":{"operation":"append"},
      "schema-id":0,"first-row-id":9223372036854775806,"added-rows":10}})");
  ASSERT_THAT(element, IsOk());
  auto update = TableUpdateFromJson(*element);
  ASSERT_THAT(update, IsOk());
  auto builder = From(table);
  EXPECT_THAT(builder.Apply(*update),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "plus added-rows 10 overflows"));
}

TEST(CounterOverflowTest, NegativeAddedRowsAreRejected) {
  auto builder = From(NewTable(3));
  EXPECT_THAT(builder.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 1000, 0, -5)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot add a snapshot: added-rows is negative: -5"));
}

TEST(CounterOverflowTest, SchemaIdMustNotOverflow) {
  auto table = Crafted(NewTable(), [](TableMetadata& m) {
    m.schemas = {SimpleSchema(kMaxInt)};
    m.current_schema_id = kMaxInt;
  });
  auto builder = From(table);
  // Re-adding the existing schema still works: no new id is needed.
  ASSERT_THAT(builder.AddSchema(SimpleSchema()), IsOk());
  EXPECT_THAT(builder.AddSchema(WiderSchema()),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot add a schema: schema id 2147483647 is the largest"));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(CounterOverflowTest, SpecIdMustNotOverflow) {
  auto table = Crafted(NewTable(), [](TableMetadata& m) {
    auto spec = std::make_shared<PartitionSpec>(*m.partition_specs[0]);
    spec->spec_id = kMaxInt;
    m.partition_specs = {spec};
    m.default_spec_id = kMaxInt;
  });
  auto builder = From(table);
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(1, 1000, "id", Transform::Identity())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot add a partition spec: spec id 2147483647 is the largest"));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(CounterOverflowTest, LastPartitionIdMustNotOverflow) {
  auto table = Crafted(NewTable(), [](TableMetadata& m) { m.last_partition_id = kMaxInt; });
  auto builder = From(table);
  EXPECT_THAT(builder.AddPartitionSpec(Spec({PartitionBy(1, 0, "id", Transform::Identity())})),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Cannot add a partition spec: partition field id 2147483647 is "
                                 "the largest"));
  EXPECT_FALSE(builder.HasChanges());
}

TEST(CounterOverflowTest, SortOrderIdMustNotOverflow) {
  auto table = Crafted(NewTable(), [](TableMetadata& m) {
    m.sort_orders.push_back(Order({SortBy(1)}, kMaxInt));
    m.default_sort_order_id = kMaxInt;
  });
  auto builder = From(table);
  ASSERT_THAT(builder.AddSortOrder(Order({SortBy(1)})), IsOk());  // the existing one
  EXPECT_THAT(
      builder.AddSortOrder(Order({SortBy(2)})),
      IsErrorWithMessage(ErrorKind::kInvalidArgument,
                         "Cannot add a sort order: sort order id 2147483647 is the largest"));
  EXPECT_FALSE(builder.HasChanges());
}

}  // namespace
}  // namespace skade::spec
