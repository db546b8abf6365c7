#include "skade/util/gzip.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;

TEST(GzipTest, ABombIsRefusedAtTheBound) {
  std::string zeros(8 << 20, '\0');
  std::string bomb = Gzip(zeros);
  ASSERT_LT(bomb.size(), 64u << 10);
  EXPECT_THAT(Gunzip(bomb, 1 << 20), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Gunzip(Gzip(zeros) + Gzip(zeros), 12 << 20), IsError(ErrorKind::kInvalidArgument));
  auto exact = Gunzip(bomb, zeros.size());
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->size(), zeros.size());
}

TEST(GzipTest, RoundTripsText) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "{\"format-version\": 2},";
  std::string compressed = Gzip(text);
  EXPECT_TRUE(IsGzip(compressed));
  EXPECT_LT(compressed.size(), text.size() / 10);
  auto inflated = Gunzip(compressed);
  ASSERT_TRUE(inflated);
  EXPECT_EQ(*inflated, text);
}

TEST(GzipTest, EmptyInputRoundTrips) {
  auto inflated = Gunzip(Gzip(""));
  ASSERT_TRUE(inflated);
  EXPECT_EQ(*inflated, "");
}

TEST(GzipTest, ConcatenatedMembersAreJoined) {
  auto inflated = Gunzip(Gzip("hello ") + Gzip("world"));
  ASSERT_TRUE(inflated);
  EXPECT_EQ(*inflated, "hello world");
}

TEST(GzipTest, TruncatedOrCorruptStreamIsCorruption) {
  std::string compressed = Gzip(std::string(5000, 'x') + "tail");
  EXPECT_THAT(Gunzip(compressed.substr(0, compressed.size() / 2)), IsError(ErrorKind::kCorruption));
  std::string flipped = compressed;
  flipped[12] ^= 0x55;
  EXPECT_THAT(Gunzip(flipped), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(Gunzip("plain text"), IsError(ErrorKind::kCorruption));
}

}  // namespace
}  // namespace skade
