// SpareFiles: unnamed files made ahead of need, and linking one into place.
#include "skade/io/spare_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "testing/temp_dir.h"

namespace skade::io {
namespace {

namespace fs = std::filesystem;

int OpenDirectory(const std::string& path) {
  return ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

std::string Contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// Takes spares from `spares` for `dir` until one is ready (the thread makes
// them meanwhile), for at most 10 s: -1 if none came.
SpareFile TakeWhenReady(SpareFiles& spares, int dir) {
  for (int i = 0; i < 1000; ++i) {
    SpareFile spare = spares.Take(dir);
    if (spare.fd >= 0) return spare;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

class SpareFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir.path() + "/a");
    a = OpenDirectory(dir.path() + "/a");
    ASSERT_GE(a, 0);
  }
  void TearDown() override { ::close(a); }

  testing::TempDir dir;
  int a = -1;
};

TEST_F(SpareFilesTest, ASpareIsAnUnnamedEmptyFileLikeOneCreatedThere) {
  SpareFiles spares(2);
  SpareFile spare = TakeWhenReady(spares, a);
  ASSERT_GE(spare.fd, 0);
  struct stat st;
  ASSERT_EQ(::fstat(spare.fd, &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(st.st_nlink, 0u);  // no name anywhere
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 07777, 0644 & ~mask);
  EXPECT_TRUE(fs::is_empty(dir.path() + "/a"));
  ::close(spare.fd);
}

TEST_F(SpareFilesTest, ALinkedSpareIsTheFileAtItsName) {
  SpareFiles spares(2);
  SpareFile spare = TakeWhenReady(spares, a);
  ASSERT_GE(spare.fd, 0);
  ASSERT_EQ(LinkSpareFile(spare.fd, a, "m.json"), 0);
  ASSERT_EQ(::write(spare.fd, "{}", 2), 2);
  ::close(spare.fd);
  EXPECT_EQ(Contents(dir.path() + "/a/m.json"), "{}");
  EXPECT_EQ(fs::hard_link_count(dir.path() + "/a/m.json"), 1u);
}

TEST_F(SpareFilesTest, LinkingWhereANameIsTakenIsEexistAndLeavesItAlone) {
  SpareFiles spares(2);
  { std::ofstream(dir.path() + "/a/m.json") << "kept"; }
  fs::create_symlink(dir.path() + "/nowhere", dir.path() + "/a/link.json");
  SpareFile spare = TakeWhenReady(spares, a);
  ASSERT_GE(spare.fd, 0);
  EXPECT_EQ(LinkSpareFile(spare.fd, a, "m.json"), EEXIST);
  EXPECT_EQ(LinkSpareFile(spare.fd, a, "link.json"), EEXIST);  // not followed
  EXPECT_EQ(Contents(dir.path() + "/a/m.json"), "kept");
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/a/link.json"));
  EXPECT_FALSE(fs::exists(dir.path() + "/nowhere"));
  // Still unnamed and empty: it can be given back, or linked elsewhere.
  struct stat st;
  ASSERT_EQ(::fstat(spare.fd, &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(LinkSpareFile(spare.fd, a, "other.json"), 0);
  ::close(spare.fd);
  EXPECT_EQ(Contents(dir.path() + "/a/other.json"), "");
}

TEST_F(SpareFilesTest, AtMostTheAskedNumberAreKeptAndNoneHasAName) {
  {
    SpareFiles spares(3);
    ::close(TakeWhenReady(spares, a).fd);
    for (int i = 0; i < 1000 && spares.ReadyFor(a) < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(spares.ReadyFor(a), 3u);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(spares.ReadyFor(a), 3u);  // stops there
  }
  EXPECT_TRUE(fs::is_empty(dir.path() + "/a"));
}

TEST_F(SpareFilesTest, AHomeRemovedIsReplacedByTheDirectoryOfTheNextTake) {
  SpareFiles spares(1);
  fs::create_directories(dir.path() + "/gone");
  int gone = OpenDirectory(dir.path() + "/gone");
  ASSERT_GE(gone, 0);
  ::close(TakeWhenReady(spares, gone).fd);  // the home: gone
  // Taken before the thread can make another, or after it did: drained
  // either way once the home is removed.
  fs::remove(dir.path() + "/gone");
  for (int i = 0; i < 10; ++i) {
    SpareFile spare = spares.Take(gone);
    if (spare.fd >= 0) ::close(spare.fd);
  }
  ::close(gone);
  // `a` is on the same file system: its spares are made there now.
  SpareFile spare = TakeWhenReady(spares, a);
  ASSERT_GE(spare.fd, 0);
  EXPECT_EQ(LinkSpareFile(spare.fd, a, "m.json"), 0);
  ::close(spare.fd);
  EXPECT_TRUE(fs::exists(dir.path() + "/a/m.json"));
}

TEST_F(SpareFilesTest, NoneAreKeptWhenAskedForNone) {
  SpareFiles spares(0);
  EXPECT_EQ(spares.Take(a).fd, -1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(spares.Take(a).fd, -1);
}

}  // namespace
}  // namespace skade::io
