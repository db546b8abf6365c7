#include "skade/data/dictionary_choice.h"

#include <arrow/api.h>
#include <arrow/extension/uuid.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace skade::data {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

template <typename Builder, typename Value>
std::shared_ptr<arrow::Array> Build(const std::vector<Value>& values) {
  Builder builder;
  for (const auto& value : values) EXPECT_TRUE(builder.Append(value).ok());
  return builder.Finish().ValueOrDie();
}

std::shared_ptr<arrow::RecordBatch> Batch(
    const std::vector<std::pair<std::string, std::shared_ptr<arrow::Array>>>& columns) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (const auto& [name, array] : columns) {
    fields.push_back(arrow::field(name, array->type()));
    arrays.push_back(array);
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), arrays.front()->length(), arrays);
}

std::vector<int64_t> Sequence(int64_t count) {
  std::vector<int64_t> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = 1'700'000'000'000'000 + i * 20'000;
  return values;
}

TEST(DictionaryChoiceTest, UniqueValuesGoPlainRepeatedOnesKeepTheDictionary) {
  std::vector<int64_t> few;
  std::vector<std::string> words;
  std::vector<std::string> unique_words;
  std::vector<double> scores;
  for (int i = 0; i < 20000; ++i) {
    few.push_back(i % 10);
    words.push_back("w" + std::to_string(i % 300));
    unique_words.push_back("event-" + std::to_string(i));
    scores.push_back(i * 0.5);
  }
  auto batch = Batch({{"id", Build<arrow::Int64Builder>(Sequence(20000))},
                      {"bucket", Build<arrow::Int64Builder>(few)},
                      {"word", Build<arrow::StringBuilder>(words)},
                      {"event", Build<arrow::StringBuilder>(unique_words)},
                      {"score", Build<arrow::DoubleBuilder>(scores)}});
  EXPECT_THAT(PlainColumns(*batch, 20000), ElementsAre("id", "event", "score"));
}

TEST(DictionaryChoiceTest, OnlyTheFirstPageOfRowsIsJudged) {
  // Unique for 100 rows, then one value: the first page decides.
  std::vector<int64_t> values = Sequence(100);
  values.resize(10100, 7);
  auto batch = Batch({{"v", Build<arrow::Int64Builder>(values)}});
  EXPECT_THAT(PlainColumns(*batch, 100), ElementsAre("v"));
  EXPECT_THAT(PlainColumns(*batch, 10100), IsEmpty());
}

TEST(DictionaryChoiceTest, ASlicedBatchIsJudgedOnItsOwnRows) {
  // One value repeated for 100 rows, then unique ones: the slice past the
  // repeats is judged on the unique values.
  std::vector<int64_t> numbers(100, 7);
  std::vector<std::string> words(100, "same");
  for (int64_t i = 0; i < 100; ++i) {
    numbers.push_back(Sequence(100)[i]);
    words.push_back("event-" + std::to_string(i));
  }
  auto batch = Batch(
      {{"n", Build<arrow::Int64Builder>(numbers)}, {"w", Build<arrow::StringBuilder>(words)}});
  EXPECT_THAT(PlainColumns(*batch, 100), IsEmpty());
  EXPECT_THAT(PlainColumns(*batch->Slice(100), 100), ElementsAre("n", "w"));
}

TEST(DictionaryChoiceTest, NullsCountAsNoValue) {
  arrow::Int64Builder mostly_null;
  ASSERT_TRUE(mostly_null.AppendNulls(1000).ok());
  ASSERT_TRUE(mostly_null.Append(5).ok());
  arrow::Int64Builder all_null;
  ASSERT_TRUE(all_null.AppendNulls(1001).ok());
  auto batch =
      Batch({{"one", mostly_null.Finish().ValueOrDie()}, {"none", all_null.Finish().ValueOrDie()}});
  // One value: a one-entry dictionary (8 bytes) plus one index byte is not
  // smaller than the value itself; an all-null sample is not judged.
  EXPECT_THAT(PlainColumns(*batch, 20000), ElementsAre("one"));
}

TEST(DictionaryChoiceTest, FixedWidthAndExtensionColumnsAreJudgedOnTheirStorage) {
  arrow::FixedSizeBinaryBuilder uuids(arrow::fixed_size_binary(16));
  arrow::FixedSizeBinaryBuilder codes(arrow::fixed_size_binary(3));
  for (int i = 0; i < 5000; ++i) {
    std::string uuid(16, '\0');
    std::memcpy(uuid.data(), &i, sizeof(i));
    ASSERT_TRUE(uuids.Append(uuid).ok());
    ASSERT_TRUE(codes.Append(i % 2 ? "abc" : "xyz").ok());
  }
  auto uuid_array =
      arrow::ExtensionType::WrapArray(arrow::extension::uuid(), uuids.Finish().ValueOrDie());
  auto batch = Batch({{"uid", uuid_array}, {"code", codes.Finish().ValueOrDie()}});
  EXPECT_THAT(PlainColumns(*batch, 20000), ElementsAre("uid"));
}

TEST(DictionaryChoiceTest, BooleansNestedAndDecimalsAreLeftToArrow) {
  std::vector<bool> flags;
  for (int i = 0; i < 1000; ++i) flags.push_back(i % 2 == 0);
  arrow::Decimal128Builder amounts(arrow::decimal128(38, 2));
  arrow::ListBuilder lists(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
  auto* items = static_cast<arrow::Int64Builder*>(lists.value_builder());
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(amounts.Append(arrow::Decimal128(i)).ok());
    ASSERT_TRUE(lists.Append().ok());
    ASSERT_TRUE(items->Append(i).ok());
  }
  auto batch = Batch({{"flag", Build<arrow::BooleanBuilder>(flags)},
                      {"amount", amounts.Finish().ValueOrDie()},
                      {"items", lists.Finish().ValueOrDie()}});
  EXPECT_THAT(PlainColumns(*batch, 20000), IsEmpty());
}

TEST(DictionaryChoiceTest, EmptyBatchAndZeroPageRows) {
  auto empty = Batch({{"id", Build<arrow::Int64Builder>(std::vector<int64_t>{})}});
  EXPECT_THAT(PlainColumns(*empty, 20000), IsEmpty());
  // A page of no rows is read as a page of one.
  auto batch = Batch({{"id", Build<arrow::Int64Builder>(Sequence(10))}});
  EXPECT_THAT(PlainColumns(*batch, 0), ElementsAre("id"));
}

}  // namespace
}  // namespace skade::data
