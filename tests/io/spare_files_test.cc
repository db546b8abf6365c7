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
// them meanwhile), for at most 10 s: none if none came.
SpareFile TakeWhenReady(SpareFiles& spares, int dir) {
  for (int i = 0; i < 1000; ++i) {
    SpareFile spare = spares.Take(dir);
    if (spare.fd >= 0) return spare;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

// Spares made in `dir.path()`, for its subdirectory `a`.
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
  ASSERT_TRUE(spares.SetHome(dir.path()));
  SpareFile spare = TakeWhenReady(spares, a);
  ASSERT_GE(spare.fd, 0);
  struct stat st;
  ASSERT_EQ(::fstat(spare.fd, &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(st.st_nlink, 0u);  // no name anywhere
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(st.st_gid, ::getegid());
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 07777, 0644 & ~mask);
  EXPECT_TRUE(fs::is_empty(dir.path() + "/a"));
  ::close(spare.fd);
}

TEST_F(SpareFilesTest, ALinkedSpareIsTheFileAtItsName) {
  SpareFiles spares(2);
  ASSERT_TRUE(spares.SetHome(dir.path()));
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
  ASSERT_TRUE(spares.SetHome(dir.path()));
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
    ASSERT_TRUE(spares.SetHome(dir.path()));
    for (int i = 0; i < 1000 && spares.Ready() < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(spares.Ready(), 3u);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(spares.Ready(), 3u);  // stops there
  }
  EXPECT_TRUE(fs::is_empty(dir.path() + "/a"));
}

TEST_F(SpareFilesTest, NoneWithoutAHomeOrWithNoneAsked) {
  SpareFiles none(0);
  EXPECT_FALSE(none.SetHome(dir.path()));
  SpareFiles homeless(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(none.Take(a).fd, -1);
  EXPECT_EQ(homeless.Take(a).fd, -1);
  EXPECT_EQ(homeless.Ready(), 0u);
  EXPECT_FALSE(homeless.SetHome(dir.path() + "/missing"));
}

// A file created in a set-group-ID directory takes its group; a spare has
// the home's, so none is given for such a directory unless the home is one
// of the same group (review finding: a client could make other tables'
// metadata files take a group of its choosing, and its quota).
TEST_F(SpareFilesTest, NoneForADirectoryThatWouldGiveAnotherGroup) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs to give a directory a group it is not in";
  fs::create_directories(dir.path() + "/g");
  const gid_t other = ::getegid() + 4242;
  ASSERT_EQ(::chown((dir.path() + "/g").c_str(), -1, other), 0);
  ASSERT_EQ(::chmod((dir.path() + "/g").c_str(), 02755), 0);
  int g = OpenDirectory(dir.path() + "/g");
  ASSERT_GE(g, 0);
  SpareFiles spares(2);
  ASSERT_TRUE(spares.SetHome(dir.path()));
  for (int i = 0; i < 1000 && spares.Ready() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(spares.Ready(), 2u);
  EXPECT_EQ(spares.Take(g).fd, -1);
  SpareFile spare = spares.Take(a);
  EXPECT_GE(spare.fd, 0);
  ::close(spare.fd);
  // A home of that group gives spares for it, and not for `a`.
  fs::create_directories(dir.path() + "/g/home");
  ASSERT_TRUE(spares.SetHome(dir.path() + "/g/home"));
  spare = TakeWhenReady(spares, g);
  ASSERT_GE(spare.fd, 0);
  struct stat st;
  ASSERT_EQ(::fstat(spare.fd, &st), 0);
  EXPECT_EQ(st.st_gid, other);
  ::close(spare.fd);
  EXPECT_EQ(spares.Take(a).fd, -1);
  ::close(g);
}

}  // namespace
}  // namespace skade::io
