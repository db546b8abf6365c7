#include "skade/util/uuid.h"

#include <gtest/gtest.h>

#include <set>

#include "skade/util/random.h"

namespace skade {
namespace {

TEST(UuidTest, NewUuidsAreCanonicalVersion4AndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string uuid = NewUuid();
    ASSERT_TRUE(IsUuid(uuid)) << uuid;
    EXPECT_EQ(uuid[14], '4');
    EXPECT_NE(std::string("89ab").find(uuid[19]), std::string::npos);
    seen.insert(uuid);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(UuidTest, RejectsNonCanonicalText) {
  EXPECT_TRUE(IsUuid("9C12D441-03FE-4693-9A96-A0705DDF69C1"));
  EXPECT_FALSE(IsUuid("9c12d44103fe46939a96a0705ddf69c1"));
  EXPECT_FALSE(IsUuid("9c12d441-03fe-4693-9a96-a0705ddf69cz"));
  EXPECT_FALSE(IsUuid(""));
}

TEST(RandomTest, SnapshotIdsArePositive) {
  for (int i = 0; i < 1000; ++i) EXPECT_GT(NewSnapshotId(), 0);
}

}  // namespace
}  // namespace skade
