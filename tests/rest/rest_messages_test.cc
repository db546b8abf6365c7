// Parsing request bodies (rest/rest_messages.h) larger than the thread's
// parser keeps: each gets a parser of its own, a few at a time.
#include "skade/rest/rest_messages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::rest {
namespace {

// A create-namespace body of about 200 KiB: 4,000 properties.
std::string LargeBody() {
  std::string body = R"({"namespace":["db"],"properties":{)";
  for (int i = 0; i < 4000; ++i) {
    body += StrCat(i == 0 ? "" : ",", "\"k", i, "\":\"", std::string(40, 'v'), "\"");
  }
  return body + "}}";
}

// Large bodies, in a row (valid and not) and from many threads at once:
// each is parsed or, past the few parsed at once, refused with kCancelled
// (a 503 with Retry-After) — and every slot is given back, so later ones
// parse again (a slot kept would refuse them all).
TEST(RestMessagesTest, LargeBodiesAreParsedAFewAtATimeAndGiveTheirSlotsBack) {
  const std::string body = LargeBody();
  ASSERT_GT(body.size(), 128u * 1024);
  auto parse_in_a_row = [&] {
    for (int i = 0; i < 10; ++i) {
      auto parsed = ParseCreateNamespace(body);
      ASSERT_TRUE(parsed) << parsed.error().ToString();
      EXPECT_EQ(parsed->properties.size(), 4000u);
      EXPECT_THAT(ParseCreateNamespace(body.substr(0, body.size() - 1)),
                  testing::IsError(ErrorKind::kInvalidArgument));
    }
  };
  parse_in_a_row();
  std::atomic<int> parsed{0};
  std::atomic<int> refused{0};
  std::atomic<int> other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 4; ++i) {
        auto result = ParseCreateNamespace(body);
        if (result) {
          ++parsed;
        } else if (result.error().kind == ErrorKind::kCancelled) {
          ++refused;
        } else {
          ++other;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(parsed.load() + refused.load(), 64);
  EXPECT_GT(parsed.load(), 0);
  EXPECT_EQ(other.load(), 0);
  parse_in_a_row();
  // A small body uses the thread's parser, whatever the large ones do.
  EXPECT_TRUE(ParseCreateNamespace(R"({"namespace":["db"]})"));
}

}  // namespace
}  // namespace skade::rest
