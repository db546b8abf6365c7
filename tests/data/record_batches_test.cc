#include "skade/data/record_batches.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include "data_test_util.h"
#include "testing/matchers.h"

namespace skade::data {
namespace {

using skade::testing::IsErrorWithMessage;
using testing::BatchFromJson;

std::shared_ptr<arrow::Schema> Events(std::shared_ptr<const arrow::KeyValueMetadata> id_metadata) {
  return arrow::schema({arrow::field("id", arrow::int64(), false, std::move(id_metadata)),
                        arrow::field("name", arrow::utf8())});
}

std::shared_ptr<const arrow::KeyValueMetadata> FieldId(const std::string& id) {
  return arrow::key_value_metadata({"PARQUET:field_id"}, {id});
}

// The committer's small writes each bring their own schema object: equal
// schemas must concatenate whether or not they are the same object.
TEST(ConcatenateBatchesTest, EqualSchemasInSeparateObjectsJoinRowsInOrder) {
  auto first = BatchFromJson(Events(FieldId("1")), R"([{"id": 1, "name": "a"}])");
  auto second = BatchFromJson(Events(FieldId("1")), R"([{"id": 2, "name": null},
                                                        {"id": 3, "name": "c"}])");
  auto third = BatchFromJson(first->schema(), R"([{"id": 4, "name": "d"}])");
  ASSERT_NE(first->schema().get(), second->schema().get());

  auto joined = ConcatenateBatches({first, second, third});
  ASSERT_TRUE(joined) << joined.error().ToString();
  auto expected = BatchFromJson(Events(FieldId("1")), R"([
      {"id": 1, "name": "a"}, {"id": 2, "name": null}, {"id": 3, "name": "c"},
      {"id": 4, "name": "d"}])");
  EXPECT_TRUE((*joined)->Equals(*expected, /*check_metadata=*/true))
      << (*joined)->ToString() << "\nexpected\n"
      << expected->ToString();
  EXPECT_EQ((*joined)->schema().get(), first->schema().get());
}

TEST(ConcatenateBatchesTest, SchemasThatDifferAreRefused) {
  auto base = BatchFromJson(Events(FieldId("1")), R"([{"id": 1, "name": "a"}])");
  std::vector<std::shared_ptr<arrow::Schema>> others = {
      Events(FieldId("7")),                                                   // another field id
      Events(nullptr),                                                        // no field metadata
      arrow::schema({arrow::field("id", arrow::int64(), true, FieldId("1")),  // nullable
                     arrow::field("name", arrow::utf8())}),
      arrow::schema({arrow::field("id", arrow::int64(), false, FieldId("1")),  // renamed
                     arrow::field("label", arrow::utf8())}),
      arrow::schema({arrow::field("id", arrow::int64(), false, FieldId("1")),  // another type
                     arrow::field("name", arrow::large_utf8())}),
      Events(FieldId("1"))->WithMetadata(arrow::key_value_metadata({"k"}, {"v"})),
  };
  for (const auto& schema : others) {
    auto other =
        BatchFromJson(schema, "[{\"id\": 2, \"" + schema->field(1)->name() + "\": \"b\"}]");
    EXPECT_THAT(ConcatenateBatches({base, other}),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "schema differs"))
        << schema->ToString(/*show_metadata=*/true);
  }
}

TEST(ConcatenateBatchesTest, OneBatchIsReturnedAsItIsAndNoneIsAnError) {
  auto only = BatchFromJson(Events(nullptr), R"([{"id": 1, "name": "a"}])");
  auto joined = ConcatenateBatches({only});
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->get(), only.get());
  EXPECT_FALSE(ConcatenateBatches({}));
}

}  // namespace
}  // namespace skade::data
