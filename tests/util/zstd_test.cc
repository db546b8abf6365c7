#include "skade/util/zstd.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace skade {
namespace {

using testing::IsError;

std::string Text() {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "{\"snapshot-id\": " + std::to_string(i) + "},";
  return text;
}

TEST(ZstdTest, RoundTripsText) {
  const std::string text = Text();
  std::string compressed = ZstdCompress(text, 1);
  EXPECT_LT(compressed.size(), text.size() / 5);
  auto inflated = ZstdDecompress(compressed);
  ASSERT_TRUE(inflated);
  EXPECT_EQ(*inflated, text);
  auto empty = ZstdDecompress(ZstdCompress("", 1));
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, "");
}

TEST(ZstdTest, ConcatenatedFramesAreJoined) {
  auto joined = ZstdDecompress(ZstdCompress("ab", 3) + ZstdCompress("cd", 3));
  ASSERT_TRUE(joined);
  EXPECT_EQ(*joined, "abcd");
}

TEST(ZstdTest, ABombIsRefusedAtTheBound) {
  std::string zeros(8 << 20, '\0');
  std::string bomb = ZstdCompress(zeros, 1);
  ASSERT_LT(bomb.size(), 64u << 10);
  EXPECT_THAT(ZstdDecompress(bomb, 1 << 20), IsError(ErrorKind::kCorruption));
  // Two frames, each under the bound, over it together.
  EXPECT_THAT(ZstdDecompress(bomb + bomb, 12 << 20), IsError(ErrorKind::kCorruption));
  auto exact = ZstdDecompress(bomb, zeros.size());
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->size(), zeros.size());
}

TEST(ZstdTest, DamagedOrTruncatedInputIsCorruption) {
  const std::string compressed = ZstdCompress(Text(), 1);
  for (size_t cut : {size_t{0}, size_t{3}, compressed.size() / 2, compressed.size() - 1}) {
    if (cut == 0) continue;  // no frame at all: an empty input decodes to nothing
    EXPECT_THAT(ZstdDecompress(compressed.substr(0, cut)), IsError(ErrorKind::kCorruption)) << cut;
  }
  std::string garbled = compressed;
  garbled[garbled.size() / 2] ^= 0x5A;
  garbled[garbled.size() / 2 + 1] ^= 0x3C;
  // The frame's checksum catches what still decodes.
  EXPECT_THAT(ZstdDecompress(garbled), IsError(ErrorKind::kCorruption));
  EXPECT_THAT(ZstdDecompress("not zstd at all"), IsError(ErrorKind::kCorruption));
}

TEST(ZstdTest, AFrameAgainstAPrefixNeedsThatPrefix) {
  // Bytes that repeat nowhere: the frame can only be small by referring to
  // the prefix, everywhere.
  std::string prefix;
  uint64_t state = 88172645463325252ull;
  for (int i = 0; i < 64 * 1024; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    prefix.push_back(static_cast<char>(state));
  }
  std::string data = prefix;
  data.insert(data.size() / 2, "a change in the middle");
  for (int level : {1, -3}) {
    std::string frame = ZstdCompressWithPrefix(data, prefix, level);
    EXPECT_LT(frame.size(), 200u) << level;
    auto inflated = ZstdDecompressWithPrefix(frame, prefix);
    ASSERT_TRUE(inflated) << inflated.error().ToString();
    EXPECT_EQ(*inflated, data);
    // Without it, or with another one, it does not decode to `data`.
    EXPECT_THAT(ZstdDecompress(frame), IsError(ErrorKind::kCorruption));
    std::string other = prefix;
    other[other.size() / 3] = '#';
    EXPECT_THAT(ZstdDecompressWithPrefix(frame, other), IsError(ErrorKind::kCorruption));
    EXPECT_THAT(ZstdDecompressWithPrefix(frame, prefix, data.size() - 1),
                IsError(ErrorKind::kCorruption));
  }
  // The prefix was for that frame only: the context decodes plain frames again.
  auto plain = ZstdDecompress(ZstdCompress("abc", 1));
  ASSERT_TRUE(plain);
  EXPECT_EQ(*plain, "abc");
}

}  // namespace
}  // namespace skade
