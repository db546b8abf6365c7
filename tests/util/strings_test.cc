#include "skade/util/strings.h"

#include <gtest/gtest.h>

namespace skade {
namespace {

TEST(StringsTest, StrCatFormatsEveryPieceKind) {
  std::string_view view = "view";
  EXPECT_EQ(StrCat("a", view, std::string("s"), 'c', int64_t{-5}, uint32_t{7}, true),
            "aviewsc-57true");
}

TEST(StringsTest, JoinLocationPutsExactlyOneSlash) {
  EXPECT_EQ(JoinLocation("file:///w/t", "metadata"), "file:///w/t/metadata");
  EXPECT_EQ(JoinLocation("file:///w/t//", "/data"), "file:///w/t/data");
  EXPECT_EQ(JoinLocation("s3://b/t/", "a=1/f.parquet"), "s3://b/t/a=1/f.parquet");
  EXPECT_EQ(JoinLocation("/", "x"), "//x");
}

TEST(StringsTest, ParseIntRejectsPartialAndOverflow) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(ParseInt64("42x"));
  EXPECT_FALSE(ParseInt64(""));
  EXPECT_FALSE(ParseInt64("9223372036854775808"));
  EXPECT_FALSE(ParseInt32("2147483648"));
  EXPECT_EQ(ParseInt32("+3"), 3);
}

TEST(StringsTest, SplitKeepsEmptyPieces) {
  EXPECT_EQ(Split("a\x1f\x1f"
                  "b",
                  '\x1f'),
            (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Join({"a", "b"}, "."), "a.b");
  EXPECT_EQ(StripWhitespace("  x y \n"), "x y");
  EXPECT_TRUE(EqualsIgnoreCase("TRUE", "true"));
}

TEST(StringsTest, ConsumePrefixIgnoringCaseRemovesOnlyAMatchingPrefix) {
  std::string_view header = "bEARER abc";
  EXPECT_TRUE(ConsumePrefixIgnoringCase(&header, "Bearer "));
  EXPECT_EQ(header, "abc");
  std::string_view short_text = "Bear";
  EXPECT_FALSE(ConsumePrefixIgnoringCase(&short_text, "Bearer "));
  EXPECT_EQ(short_text, "Bear");
  std::string_view other = "Basic abc";
  EXPECT_FALSE(ConsumePrefixIgnoringCase(&other, "Bearer "));
  EXPECT_EQ(other, "Basic abc");
}

}  // namespace
}  // namespace skade
