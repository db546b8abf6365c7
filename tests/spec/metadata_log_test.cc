// MetadataLog keeps every path in one buffer (metadata_log.h); these tests
// hold it to what a std::vector<MetadataLogEntry> would do, over random
// appends and trims like the builder's.
#include "skade/spec/metadata_log.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace skade::spec {
namespace {

std::vector<MetadataLogEntry> Owned(const MetadataLog& log) {
  std::vector<MetadataLogEntry> out;
  for (const auto entry : log) out.push_back(entry.ToOwned());
  return out;
}

TEST(MetadataLogTest, EmptyLog) {
  MetadataLog log;
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.begin(), log.end());
  EXPECT_EQ(log, std::vector<MetadataLogEntry>{});
  log.DropOldest(3);
  EXPECT_TRUE(log.empty());
  EXPECT_TRUE(log.Oldest(2).empty());
}

TEST(MetadataLogTest, EntriesKeepOrderAndEmptyPaths) {
  MetadataLog log{{1, "file:/a.json"}, {2, ""}, {3, "s3://b/c.json"}};
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log.front(), (MetadataLogEntry{1, "file:/a.json"}));
  EXPECT_EQ(log[1], (MetadataLogEntry{2, ""}));
  EXPECT_EQ(log.back().metadata_file, "s3://b/c.json");
  EXPECT_EQ(log.end() - log.begin(), 3);
}

TEST(MetadataLogTest, DropOldestAndOldestSplitTheLog) {
  MetadataLog log{{1, "one"}, {2, "two"}, {3, "three"}, {4, "four"}};
  MetadataLog removed = log.Oldest(2);
  log.DropOldest(2);
  EXPECT_EQ(removed, (std::vector<MetadataLogEntry>{{1, "one"}, {2, "two"}}));
  EXPECT_EQ(log, (std::vector<MetadataLogEntry>{{3, "three"}, {4, "four"}}));
  log.push_back(5, "five");
  EXPECT_EQ(log.back(), (MetadataLogEntry{5, "five"}));
  log.DropOldest(10);
  EXPECT_TRUE(log.empty());
}

TEST(MetadataLogTest, CopiesAreIndependent) {
  MetadataLog log{{1, "file:/tmp/t/metadata/00001.metadata.json"}};
  MetadataLog copy = log;
  copy.push_back(2, "file:/tmp/t/metadata/00002.metadata.json");
  copy.DropOldest(1);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].metadata_file, "file:/tmp/t/metadata/00001.metadata.json");
  EXPECT_NE(log, copy);
  MetadataLog moved = std::move(copy);
  EXPECT_EQ(moved[0].metadata_file, "file:/tmp/t/metadata/00002.metadata.json");
}

TEST(MetadataLogTest, MatchesAVectorOverRandomAppendsAndTrims) {
  std::mt19937_64 random(42);
  MetadataLog log;
  std::vector<MetadataLogEntry> reference;
  for (int step = 0; step < 5000; ++step) {
    if (random() % 4 != 0) {
      MetadataLogEntry entry{static_cast<int64_t>(random()),
                             std::string(random() % 200, static_cast<char>('a' + step % 26))};
      log.push_back(entry);
      reference.push_back(entry);
    } else {
      const size_t count = random() % 5;
      const size_t kept = std::min(count, reference.size());
      EXPECT_EQ(log.Oldest(count),
                std::vector<MetadataLogEntry>(reference.begin(), reference.begin() + kept));
      log.DropOldest(count);
      reference.erase(reference.begin(), reference.begin() + kept);
    }
    ASSERT_EQ(Owned(log), reference) << "step " << step;
  }
}

}  // namespace
}  // namespace skade::spec
