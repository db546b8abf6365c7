#include "skade/rest/request_target.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade::rest {
namespace {

using testing::IsError;

TEST(RequestTargetTest, SplitsPathAndDecodesQuery) {
  auto target = ParseRequestTarget("/v1/namespaces/a%1Fb/tables?pageToken=&pageSize=10&x=a+b%2B");
  ASSERT_TRUE(target);
  EXPECT_EQ(target->segments, (std::vector<std::string>{"v1", "namespaces", "a%1Fb", "tables"}));
  EXPECT_EQ(*target->Query("pageToken"), "");
  EXPECT_EQ(*target->Query("pageSize"), "10");
  EXPECT_EQ(*target->Query("x"), "a b+");
  EXPECT_FALSE(target->Query("missing"));
  EXPECT_THAT(ParseRequestTarget("no-slash"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseRequestTarget("/v1?x=%zz"), IsError(ErrorKind::kInvalidArgument));
}

TEST(RequestTargetTest, NamespaceSegmentsSplitOnEncodedSeparatorBeforeDecoding) {
  EXPECT_EQ(*DecodeNamespaceSegment("a%1Fb%1fc"), (spec::Namespace{"a", "b", "c"}));
  // Java encodes spaces as '+', and a literal '+' as %2B.
  EXPECT_EQ(*DecodeNamespaceSegment("new+york%2Bnj"), (spec::Namespace{"new york+nj"}));
  // An encoded '.' or '/' is part of a level, not a separator.
  EXPECT_EQ(*DecodeNamespaceSegment("a%2Eb%2Fc"), (spec::Namespace{"a.b/c"}));
  EXPECT_THAT(DecodeNamespaceSegment("a%1F%1Fb"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(DecodeNamespaceSegment("a%0Ab"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(*DecodeNamespaceParameter("a\x1f"
                                      "b"),
            (spec::Namespace{"a", "b"}));
}

TEST(RequestTargetTest, BooleansAreCaseInsensitive) {
  EXPECT_TRUE(*ParseBooleanParameter("purgeRequested", "True"));
  EXPECT_TRUE(*ParseBooleanParameter("purgeRequested", "true"));
  EXPECT_FALSE(*ParseBooleanParameter("purgeRequested", "FALSE"));
  EXPECT_THAT(ParseBooleanParameter("purgeRequested", "yes"), IsError(ErrorKind::kInvalidArgument));
}

TEST(RequestTargetTest, PercentEncodeRoundTrips) {
  std::string raw = "a b/c%d\x1f\xc3\xa9";
  EXPECT_EQ(*PercentDecode(PercentEncode(raw), false), raw);
  EXPECT_EQ(PercentEncode("a-b_c.d~"), "a-b_c.d~");
}

}  // namespace
}  // namespace skade::rest
