#include "skade/util/json_parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "skade/util/json_reader.h"
#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;
using testing::IsOk;

// {"x":"aaa…"} of `bytes` bytes: one string, so its parse touches little
// more memory than the text itself.
std::string DocumentOf(size_t bytes) {
  std::string document = R"({"x":")";
  document.append(bytes - document.size() - 2, 'a');
  document += R"("})";
  return document;
}

// Regression: one thread-local parser per thread grew to the largest
// document it had parsed and kept that (~15 times its size) for good.
TEST(JsonParserTest, ALargeDocumentLeavesTheThreadParserSmall) {
  std::string array = R"({"x":[0)";
  size_t zeros = 1;
  for (; array.size() < (1u << 20); ++zeros) array += ",0";
  array += "]}";
  {
    JsonParser parser(JsonParser::WhenBusy::kRefuse);
    auto element = parser.Parse(array);
    ASSERT_THAT(element, IsOk());
    EXPECT_EQ(json::GetArray(*json::AsObject(*element, "document"), "x")->size(), zeros);
  }
  JsonParser small(JsonParser::WhenBusy::kRefuse);
  ASSERT_THAT(small.Parse(R"({"a":1})"), IsOk());
  EXPECT_LE(JsonParser::ThreadParserCapacity(), JsonParser::kThreadParserBytes);
}

TEST(JsonParserTest, AnElementLivesAsLongAsItsParser) {
  JsonParser first(JsonParser::WhenBusy::kRefuse);
  auto a = first.Parse(R"({"a":"first"})");
  ASSERT_THAT(a, IsOk());
  JsonParser second(JsonParser::WhenBusy::kRefuse);
  auto b = second.Parse(R"({"b":"second"})");
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(*json::GetString(*json::AsObject(*a, "a"), "a"), "first");
  EXPECT_EQ(*json::GetString(*json::AsObject(*b, "b"), "b"), "second");
  // Its next parse replaces it.
  a = first.Parse(R"({"a":"again"})");
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(*json::GetString(*json::AsObject(*a, "a"), "a"), "again");
  EXPECT_EQ(*json::GetString(*json::AsObject(*b, "b"), "b"), "second");
}

TEST(JsonParserTest, LargeParsesShareOneBudget) {
  const std::string whole = DocumentOf(JsonParser::kLargeParseBytes + 1);
  const std::string large = DocumentOf(JsonParser::kThreadParserBytes + 1);
  auto holder = std::make_unique<JsonParser>(JsonParser::WhenBusy::kWait);
  ASSERT_THAT(holder->Parse(whole), IsOk());

  JsonParser refused(JsonParser::WhenBusy::kRefuse);
  auto result = refused.Parse(large);
  EXPECT_THAT(result, IsError(ErrorKind::kCancelled));
  EXPECT_TRUE(!result && result.error().retryable);
  EXPECT_THAT(refused.Parse(R"({"small":true})"), IsOk());

  std::atomic<bool> parsed = false;
  std::thread waiter([&] {
    JsonParser parser(JsonParser::WhenBusy::kWait);
    EXPECT_THAT(parser.Parse(large), IsOk());
    parsed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(parsed);
  holder.reset();
  waiter.join();
  EXPECT_TRUE(parsed);
  EXPECT_THAT(refused.Parse(large), IsOk());
}

}  // namespace
}  // namespace skade
