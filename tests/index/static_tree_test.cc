#include "skade/index/static_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "skade/index/static_tree_internal.h"
#include "testing/matchers.h"

namespace skade::index {
namespace {

using internal::RankKernel;
using skade::testing::IsError;
using skade::testing::IsOk;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

size_t Reference(const std::vector<uint64_t>& keys, uint64_t probe) {
  return static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), probe) - keys.begin());
}

// Every key, its neighbours, the extremes and `random` random values.
std::vector<uint64_t> ProbesFor(const std::vector<uint64_t>& keys, size_t random, uint64_t seed) {
  std::vector<uint64_t> probes = {0, 1, 2, kMax, kMax - 1, kMax / 2, kMax / 2 + 1};
  for (uint64_t key : keys) {
    probes.push_back(key);
    probes.push_back(key - 1);  // wraps at 0: UINT64_MAX, also wanted
    probes.push_back(key + 1);
  }
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < random; ++i) probes.push_back(rng());
  return probes;
}

// Checks LowerBound and LowerBoundBatch of a tree over `keys` against
// std::lower_bound for `probes`; reports at most a few mismatches.
void ExpectMatches(const StaticTree& tree, const std::vector<uint64_t>& keys,
                   const std::vector<uint64_t>& probes) {
  ASSERT_EQ(tree.size(), keys.size());
  std::vector<size_t> batch(probes.size(), ~size_t{0});
  tree.LowerBoundBatch(probes, batch);
  int failures = 0;
  for (size_t i = 0; i < probes.size() && failures < 5; ++i) {
    const size_t expected = Reference(keys, probes[i]);
    const size_t single = tree.LowerBound(probes[i]);
    if (single != expected || batch[i] != expected) {
      ++failures;
      ADD_FAILURE() << "probe " << probes[i] << " over " << keys.size()
                    << " keys: std::lower_bound " << expected << ", LowerBound " << single
                    << ", LowerBoundBatch " << batch[i];
    }
  }
}

void BuildAndCheck(const std::vector<uint64_t>& keys, size_t random_probes = 1000,
                   uint64_t seed = 7) {
  auto tree = StaticTree::Build(keys);
  ASSERT_THAT(tree, IsOk());
  EXPECT_TRUE(std::equal(tree->keys().begin(), tree->keys().end(), keys.begin(), keys.end()));
  ExpectMatches(*tree, keys, ProbesFor(keys, random_probes, seed));
}

std::vector<uint64_t> RandomKeys(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(count);
  for (auto& key : keys) key = rng();
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Keys drawn from [0, range): many duplicates when range < count.
std::vector<uint64_t> SmallRangeKeys(size_t count, uint64_t range, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(count);
  for (auto& key : keys) key = rng() % range;
  std::sort(keys.begin(), keys.end());
  return keys;
}

// 64-byte aligned words, as a mapped file gives them; `offset_words` shifts
// the start (8 bytes breaks the alignment).
class AlignedWords {
 public:
  AlignedWords(std::span<const uint64_t> words, size_t offset_words = 0)
      : memory_(static_cast<uint64_t*>(std::aligned_alloc(64, Rounded(words.size() + 8))),
                std::free),
        size_(words.size()),
        offset_(offset_words) {
    if (!words.empty()) std::memcpy(data(), words.data(), words.size() * sizeof(uint64_t));
  }
  uint64_t* data() { return memory_.get() + offset_; }
  std::span<const uint64_t> span() { return {data(), size_}; }

 private:
  static size_t Rounded(size_t words) { return (words * sizeof(uint64_t) + 63) / 64 * 64; }
  std::unique_ptr<uint64_t[], decltype(&std::free)> memory_;
  size_t size_;
  size_t offset_;
};

// Runs every lookup test once per rank kernel this CPU has; restores the
// process's kernel afterwards.
class StaticTreeTest : public ::testing::TestWithParam<RankKernel> {
 protected:
  void SetUp() override {
    saved_ = internal::ActiveRankKernel();
    if (!internal::RankKernelSupported(GetParam())) {
      GTEST_SKIP() << "this CPU has no " << internal::RankKernelName(GetParam());
    }
    ASSERT_TRUE(internal::SetRankKernel(GetParam()));
    ASSERT_EQ(internal::ActiveRankKernel(), GetParam());
  }
  void TearDown() override { ASSERT_TRUE(internal::SetRankKernel(saved_)); }

 private:
  RankKernel saved_ = RankKernel::kScalar;
};

INSTANTIATE_TEST_SUITE_P(Kernels, StaticTreeTest,
                         ::testing::Values(RankKernel::kScalar, RankKernel::kAvx2,
                                           RankKernel::kAvx512),
                         [](const auto& info) {
                           return std::string(internal::RankKernelName(info.param));
                         });

TEST_P(StaticTreeTest, EmptyTreeFindsPositionZero) {
  StaticTree empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.LowerBound(0), 0u);
  EXPECT_EQ(empty.LowerBound(kMax), 0u);
  auto built = StaticTree::Build({});
  ASSERT_THAT(built, IsOk());
  EXPECT_TRUE(built->words().empty());
  std::vector<uint64_t> probes = {0, 5, kMax};
  std::vector<size_t> out(3, 99);
  built->LowerBoundBatch(probes, out);
  EXPECT_THAT(out, ::testing::ElementsAre(0, 0, 0));
}

TEST_P(StaticTreeTest, RandomKeysOfManySizes) {
  const size_t sizes[] = {1,
                          2,
                          15,
                          16,
                          17,
                          31,
                          32,
                          33,
                          255,
                          256,
                          257,
                          272,
                          273,
                          16 * 17 * 17 - 1,
                          16 * 17 * 17,
                          16 * 17 * 17 + 1,
                          4912,
                          4913,
                          4914,
                          83521,
                          100000};
  for (size_t size : sizes) {
    SCOPED_TRACE(size);
    BuildAndCheck(RandomKeys(size, size));
  }
}

TEST_P(StaticTreeTest, MillionRandomKeys) {
  const auto keys = RandomKeys(1000000, 42);
  auto tree = StaticTree::Build(keys);
  ASSERT_THAT(tree, IsOk());
  // Every 7th key and its neighbours, plus random probes: 10^6 keys make
  // every check below the root pass through at least four levels.
  std::vector<uint64_t> sample;
  for (size_t i = 0; i < keys.size(); i += 7) sample.push_back(keys[i]);
  auto probes = ProbesFor(sample, 200000, 43);
  ExpectMatches(*tree, keys, probes);
}

TEST_P(StaticTreeTest, SmallDenseKeysAreConsecutive) {
  for (size_t size : {1, 16, 17, 272, 273, 5000}) {
    std::vector<uint64_t> keys(size);
    for (size_t i = 0; i < size; ++i) keys[i] = i;
    auto tree = StaticTree::Build(keys);
    ASSERT_THAT(tree, IsOk());
    for (size_t i = 0; i <= size; ++i) ASSERT_EQ(tree->LowerBound(i), i) << size;
    BuildAndCheck(keys);
  }
}

TEST_P(StaticTreeTest, Duplicates) {
  for (size_t size : {17, 100, 273, 5000, 70000}) {
    SCOPED_TRACE(size);
    BuildAndCheck(SmallRangeKeys(size, 3, size));
    BuildAndCheck(SmallRangeKeys(size, size / 4 + 1, size + 1));
    BuildAndCheck(SmallRangeKeys(size, 2 * size, size + 2));
  }
}

TEST_P(StaticTreeTest, AllKeysEqual) {
  for (size_t size : {1, 16, 17, 272, 273, 4914}) {
    SCOPED_TRACE(size);
    for (uint64_t value : {uint64_t{0}, uint64_t{12345}, kMax - 1, kMax}) {
      std::vector<uint64_t> keys(size, value);
      auto tree = StaticTree::Build(keys);
      ASSERT_THAT(tree, IsOk());
      EXPECT_EQ(tree->LowerBound(value), 0u);
      if (value != kMax) {
        EXPECT_EQ(tree->LowerBound(value + 1), size);
      }
      if (value != 0) {
        EXPECT_EQ(tree->LowerBound(value - 1), 0u);
      }
      BuildAndCheck(keys, 10);
    }
  }
}

// Runs of equal keys that start and end inside, at and across node and
// subtree boundaries (16 keys per leaf, 272 per level-1 subtree).
TEST_P(StaticTreeTest, RunsOfEqualKeysCrossNodeBoundaries) {
  for (size_t run : {15, 16, 17, 31, 33, 271, 272, 273, 545, 4913}) {
    for (size_t start : {0, 1, 15, 16, 17, 255, 271, 272, 273}) {
      std::vector<uint64_t> keys;
      for (size_t i = 0; i < start; ++i) keys.push_back(10 * i);
      const uint64_t value = 10 * start;
      for (size_t i = 0; i < run; ++i) keys.push_back(value);
      for (size_t i = 0; i < 300; ++i) keys.push_back(value + 10 * (i + 1));
      SCOPED_TRACE(::testing::Message() << "run " << run << " at " << start);
      auto tree = StaticTree::Build(keys);
      ASSERT_THAT(tree, IsOk());
      EXPECT_EQ(tree->LowerBound(value), start);
      EXPECT_EQ(tree->LowerBound(value + 1), start + run);
      BuildAndCheck(keys, 10);
    }
  }
}

// UINT64_MAX is also the padding: real UINT64_MAX keys must still count.
TEST_P(StaticTreeTest, ExtremeKeys) {
  for (size_t size : {1, 15, 16, 17, 272, 273, 5000}) {
    SCOPED_TRACE(size);
    for (size_t max_keys : {size_t{1}, size_t{2}, size / 2 + 1}) {
      std::vector<uint64_t> keys = RandomKeys(size - std::min(size, max_keys), size);
      keys.insert(keys.begin(), 0);
      keys.insert(keys.end(), max_keys, kMax);
      auto tree = StaticTree::Build(keys);
      ASSERT_THAT(tree, IsOk());
      EXPECT_EQ(tree->LowerBound(0), 0u);
      EXPECT_EQ(tree->LowerBound(1), 1u);
      EXPECT_EQ(tree->LowerBound(kMax), keys.size() - max_keys);
      BuildAndCheck(keys, 100);
    }
  }
}

// The single lookup's jump table cuts the key range into even buckets: keys
// bunched into a few dense clusters between far outliers make buckets that
// reach one, two and many nodes of the jump level, and empty ones.
TEST_P(StaticTreeTest, ClusteredKeysBetweenOutliers) {
  std::mt19937_64 rng(11);
  for (size_t cluster : {300, 5000, 40000}) {
    SCOPED_TRACE(cluster);
    std::vector<uint64_t> keys = {1, kMax / 3, kMax - 5};
    for (uint64_t base : {uint64_t{1000}, kMax / 2, kMax - 100000}) {
      for (size_t i = 0; i < cluster; ++i) keys.push_back(base + rng() % (cluster * 4));
    }
    std::sort(keys.begin(), keys.end());
    // Random probes land in the empty stretches; ProbesFor adds every key
    // and its neighbours, which lie inside the clusters' buckets.
    BuildAndCheck(keys, 20000, cluster);
    // Dense random probes across each cluster, including between its keys.
    auto tree = StaticTree::Build(keys);
    ASSERT_THAT(tree, IsOk());
    std::vector<uint64_t> probes;
    for (uint64_t base : {uint64_t{1000}, kMax / 2, kMax - 100000}) {
      for (size_t i = 0; i < 20000; ++i) probes.push_back(base - 10 + rng() % (cluster * 4 + 20));
    }
    ExpectMatches(*tree, keys, probes);
  }
}

TEST_P(StaticTreeTest, BatchOfEveryLengthEqualsSingle) {
  const auto keys = RandomKeys(5000, 3);
  auto tree = StaticTree::Build(keys);
  ASSERT_THAT(tree, IsOk());
  std::mt19937_64 rng(4);
  for (size_t length : {0, 1, 2, 15, 16, 17, 31, 32, 33, 1000, 1025}) {
    std::vector<uint64_t> probes(length);
    for (auto& probe : probes) probe = rng() % 2 ? keys[rng() % keys.size()] : rng();
    std::vector<size_t> out(length + 1, 777);
    tree->LowerBoundBatch(probes, out);
    for (size_t i = 0; i < length; ++i) ASSERT_EQ(out[i], tree->LowerBound(probes[i])) << i;
    EXPECT_EQ(out[length], 777u) << "wrote past the probes";
  }
}

TEST_P(StaticTreeTest, ViewOfWordsAnswersAsTheBuiltTree) {
  for (size_t size : {1, 17, 273, 4914, 100000}) {
    SCOPED_TRACE(size);
    const auto keys = SmallRangeKeys(size, size, size);
    auto built = StaticTree::Build(keys);
    ASSERT_THAT(built, IsOk());
    auto same_words = StaticTree::View(built->words(), size, /*verify=*/true);
    ASSERT_THAT(same_words, IsOk());
    EXPECT_EQ(same_words->words().data(), built->words().data()) << "View copied";
    // 64-byte but not 128-byte aligned, as a mapped file at an odd cache line.
    AlignedWords copy(built->words(), 8);
    auto copied = StaticTree::View(copy.span(), size, /*verify=*/true);
    ASSERT_THAT(copied, IsOk());
    const auto probes = ProbesFor(keys, 1000, size + 1);
    ExpectMatches(*same_words, keys, probes);
    ExpectMatches(*copied, keys, probes);
    EXPECT_TRUE(std::equal(copied->keys().begin(), copied->keys().end(), keys.begin()));
  }
}

TEST(StaticTreeLayout, LevelSizes) {
  EXPECT_EQ(StaticTree::LayoutWords(0), 0u);
  EXPECT_EQ(StaticTree::LayoutWords(1), 16u);
  EXPECT_EQ(StaticTree::LayoutWords(16), 16u);
  EXPECT_EQ(StaticTree::LayoutWords(17), 16u * (2 + 1));
  EXPECT_EQ(StaticTree::LayoutWords(16 * 17), 16u * (17 + 1));
  EXPECT_EQ(StaticTree::LayoutWords(16 * 17 + 1), 16u * (18 + 2 + 1));
  EXPECT_EQ(StaticTree::LayoutWords(16 * 17 * 17), 16u * (289 + 17 + 1));
}

// The root of 272 consecutive keys: separator j is the first key of leaf
// j + 1; the leaves follow, root first.
TEST(StaticTreeLayout, WordsAreRootThenLeaves) {
  std::vector<uint64_t> keys(16 * 17);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = 100 + i;
  auto tree = StaticTree::Build(keys);
  ASSERT_THAT(tree, IsOk());
  ASSERT_EQ(tree->words().size(), 16u * 18);
  for (size_t j = 0; j < 16; ++j) EXPECT_EQ(tree->words()[j], 100 + 16 * (j + 1)) << j;
  EXPECT_EQ(tree->keys().data(), tree->words().data() + 16);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tree->words().data()) % 128, 0u);

  // 17 keys: two leaves, the second padded; the root's first separator is
  // the 17th key, the others are padding.
  std::vector<uint64_t> seventeen(17, 5);
  seventeen.back() = 6;
  auto small = StaticTree::Build(seventeen);
  ASSERT_THAT(small, IsOk());
  EXPECT_EQ(small->words()[0], 6u);
  for (size_t j = 1; j < 16; ++j) EXPECT_EQ(small->words()[j], kMax);
  for (size_t j = 16 + 17; j < 48; ++j) EXPECT_EQ(small->words()[j], kMax);
}

TEST(StaticTreeBuild, RejectsUnsortedKeys) {
  EXPECT_THAT(StaticTree::Build(std::vector<uint64_t>{2, 1}), IsError(ErrorKind::kInvalidArgument));
  auto keys = RandomKeys(10000, 9);
  std::swap(keys[9998], keys[9999]);
  EXPECT_THAT(StaticTree::Build(keys), IsError(ErrorKind::kInvalidArgument));
  keys = RandomKeys(10000, 9);
  keys[0] = kMax;
  EXPECT_THAT(StaticTree::Build(keys), IsError(ErrorKind::kInvalidArgument));
}

TEST(StaticTreeBuild, MovedFromTreeIsEmpty) {
  auto tree = StaticTree::Build(RandomKeys(1000, 1));
  ASSERT_THAT(tree, IsOk());
  StaticTree moved = std::move(*tree);
  EXPECT_EQ(moved.size(), 1000u);
  EXPECT_EQ(tree->size(), 0u);
  EXPECT_EQ(tree->LowerBound(5), 0u);
  EXPECT_TRUE(tree->words().empty());
}

TEST(StaticTreeView, RejectsWrongSizeAndAlignment) {
  const auto keys = RandomKeys(1000, 11);
  auto tree = StaticTree::Build(keys);
  ASSERT_THAT(tree, IsOk());
  const auto words = tree->words();
  EXPECT_THAT(StaticTree::View(words.first(words.size() - 1), keys.size(), false),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(StaticTree::View(words.first(words.size() - 16), keys.size(), false),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(StaticTree::View(words, keys.size() + 200, false),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(StaticTree::View(words, 0, false), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(StaticTree::View({}, 1, false), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(StaticTree::View(words, size_t{1} << 62, false),
              IsError(ErrorKind::kInvalidArgument));
  AlignedWords misaligned(words, 1);
  EXPECT_THAT(StaticTree::View(misaligned.span(), keys.size(), false),
              IsError(ErrorKind::kInvalidArgument));
  // Same size, key count rounded within the last leaf: a different padding.
  EXPECT_THAT(StaticTree::View(words, keys.size() - 1, true), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(StaticTree::View(words, keys.size(), true), IsOk());
  auto empty = StaticTree::View({}, 0, true);
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(empty->LowerBound(3), 0u);
}

TEST(StaticTreeView, VerifyRejectsDamagedWords) {
  const auto keys = RandomKeys(5000, 12);
  auto tree = StaticTree::Build(keys);
  ASSERT_THAT(tree, IsOk());
  const size_t leaf_offset = static_cast<size_t>(tree->keys().data() - tree->words().data());

  AlignedWords unsorted(tree->words());
  std::swap(unsorted.data()[leaf_offset + 100], unsorted.data()[leaf_offset + 101]);
  EXPECT_THAT(StaticTree::View(unsorted.span(), keys.size(), true),
              IsError(ErrorKind::kInvalidArgument));
  // Without verify the caller vouches for the words: no O(n) pass.
  EXPECT_THAT(StaticTree::View(unsorted.span(), keys.size(), false), IsOk());

  AlignedWords bad_padding(tree->words());
  bad_padding.data()[tree->words().size() - 1] = 0;
  EXPECT_THAT(StaticTree::View(bad_padding.span(), keys.size(), true),
              IsError(ErrorKind::kInvalidArgument));

  // A separator off by one is enough for wrong answers; verify must see it.
  for (size_t word : {size_t{0}, size_t{5}, leaf_offset - 1}) {
    AlignedWords bad_inner(tree->words());
    bad_inner.data()[word] += 1;
    EXPECT_THAT(StaticTree::View(bad_inner.span(), keys.size(), true),
                IsError(ErrorKind::kInvalidArgument))
        << word;
  }
}

TEST(StaticTreeKernel, ScalarAlwaysAvailable) {
  const RankKernel saved = internal::ActiveRankKernel();
  EXPECT_TRUE(internal::RankKernelSupported(RankKernel::kScalar));
  ASSERT_TRUE(internal::SetRankKernel(RankKernel::kScalar));
  EXPECT_EQ(internal::ActiveRankKernel(), RankKernel::kScalar);
  ASSERT_TRUE(internal::SetRankKernel(saved));
  // The default is the widest kernel the CPU has.
  if (internal::RankKernelSupported(RankKernel::kAvx512)) {
    EXPECT_EQ(saved, RankKernel::kAvx512);
  } else if (internal::RankKernelSupported(RankKernel::kAvx2)) {
    EXPECT_EQ(saved, RankKernel::kAvx2);
  }
}

}  // namespace
}  // namespace skade::index
