#include "skade/spec/truncation.h"

#include <gtest/gtest.h>

namespace skade::spec {
namespace {

TEST(TruncationTest, Utf8CountsCodePointsNotBytes) {
  EXPECT_EQ(TruncateUtf8("iceberg", 3), "ice");
  EXPECT_EQ(TruncateUtf8("ab", 3), "ab");
  EXPECT_EQ(TruncateUtf8("", 3), "");
  // ü (2 bytes), € (3 bytes), 😀 (4 bytes).
  EXPECT_EQ(TruncateUtf8("\u00fc\u20ac\U0001F600x", 3), "\u00fc\u20ac\U0001F600");
  EXPECT_EQ(TruncateUtf8("\U0001F600\U0001F601\U0001F602", 2), "\U0001F600\U0001F601");
}

TEST(TruncationTest, Utf8UpperBoundIncrementsLastCodePoint) {
  EXPECT_EQ(TruncateUtf8UpperBound("abcdef", 3), "abd");
  EXPECT_EQ(TruncateUtf8UpperBound("ab\u00fcz", 3), "ab\u00fd");
  // U+07FF (2 bytes) increments to U+0800 (3 bytes).
  EXPECT_EQ(TruncateUtf8UpperBound("a\u07ffz", 2), "a\u0800");
  // U+FFFF (3 bytes) increments to U+10000 (4 bytes).
  EXPECT_EQ(TruncateUtf8UpperBound("a\uffffz", 2), "a\U00010000");
}

TEST(TruncationTest, Utf8UpperBoundKeepsShortValues) {
  EXPECT_EQ(TruncateUtf8UpperBound("abc", 3), "abc");
  EXPECT_EQ(TruncateUtf8UpperBound("\U0010FFFF", 1), "\U0010FFFF");
}

TEST(TruncationTest, Utf8UpperBoundSkipsSurrogates) {
  EXPECT_EQ(TruncateUtf8UpperBound("a\ud7ffz", 2), "a\ue000");
}

TEST(TruncationTest, Utf8UpperBoundCarriesPastMaxCodePoint) {
  EXPECT_EQ(TruncateUtf8UpperBound("a\U0010FFFF\U0010FFFFz", 3), "b");
  EXPECT_EQ(TruncateUtf8UpperBound("ab\U0010FFFFz", 3), "ac");
}

TEST(TruncationTest, Utf8UpperBoundDroppedWhenNothingCanIncrement) {
  EXPECT_EQ(TruncateUtf8UpperBound("\U0010FFFF\U0010FFFF\U0010FFFF", 2), std::nullopt);
}

TEST(TruncationTest, UpperBoundIsAnUpperBound) {
  for (std::string value : {"abcdef", "zzzz", "a\u00ff\u00ffq", "\u20ac\u20ac\u20ac"}) {
    auto upper = TruncateUtf8UpperBound(value, 2);
    ASSERT_TRUE(upper.has_value()) << value;
    EXPECT_GT(*upper, value);
    EXPECT_LE(TruncateUtf8(value, 2), value);
  }
}

TEST(TruncationTest, Binary) {
  EXPECT_EQ(TruncateBinary(std::string("\x01\x02\x03\x04\x05", 5), 3), std::string("\x01\x02\x03"));
  EXPECT_EQ(TruncateBinary("ab", 3), "ab");
  EXPECT_EQ(TruncateBinaryUpperBound(std::string("\x01\x02\x03\x04", 4), 3),
            std::string("\x01\x02\x04"));
  EXPECT_EQ(TruncateBinaryUpperBound(std::string("\x01\x02\xff\xff\x05", 5), 4),
            std::string("\x01\x03"));
  EXPECT_EQ(TruncateBinaryUpperBound("ab", 3), "ab");
  EXPECT_EQ(TruncateBinaryUpperBound(std::string("\xff\xff\xff", 3), 2), std::nullopt);
}

}  // namespace
}  // namespace skade::spec
