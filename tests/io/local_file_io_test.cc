// LocalFileIO's sync operations and location helpers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "skade/io/file_io.h"
#include "skade/util/strings.h"
#include "testing/birth_time.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"
#include "testing/unix_socket.h"

namespace skade::io {
namespace {

using testing::IsError;
using testing::IsOk;

TEST(LocalFileIOTest, SyncFileAndDirectory) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  std::string file = dir.Sub("a/b/f");
  ASSERT_THAT(io->WriteFile(file, "x", /*durable=*/false), IsOk());
  EXPECT_THAT(io->SyncFile(file), IsOk());
  EXPECT_THAT(io->SyncDirectory(dir.Sub("a/b")), IsOk());
  // Again: the chain is known durable now, the directory itself still syncs.
  EXPECT_THAT(io->SyncDirectory("file://" + dir.Sub("a/b")), IsOk());
}

TEST(LocalFileIOTest, SyncOfAMissingFileOrDirectoryIsNotFound) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  EXPECT_THAT(io->SyncFile(dir.Sub("missing")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io->SyncDirectory(dir.Sub("missing")), IsError(ErrorKind::kNotFound));
}

// Many files in one call (one syncfs per file system here); files and
// directories that are gone are skipped, as the flusher needs.
TEST(LocalFileIOTest, SyncFilesSkipsWhatIsGone) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->WriteFile(dir.Sub("a/f1"), "x", /*durable=*/false), IsOk());
  ASSERT_THAT(io->WriteFile(dir.Sub("a/b/f2"), "y", /*durable=*/false), IsOk());
  EXPECT_THAT(io->SyncFiles({dir.Sub("a/f1"), "file://" + dir.Sub("a/b/f2"), dir.Sub("a/gone"),
                             dir.Sub("missing/f3")}),
              IsOk());
  EXPECT_THAT(io->SyncFiles({}), IsOk());
  EXPECT_THAT(io->SyncFiles({"s3://bucket/f"}), IsError(ErrorKind::kInvalidArgument));
}

// Regression: a directory that already existed was assumed durable, so a
// durable write into one left by a crashed process never synced its entry.
// The write must sync the chain, including a directory re-created after
// this FileIO had synced it once.
TEST(LocalFileIOTest, DurableWriteIntoAnExistingUnsyncedDirectory) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Sub("left/by/crash"));
  auto io = NewLocalFileIO();
  EXPECT_THAT(io->WriteFile(dir.Sub("left/by/crash/f"), "x", /*durable=*/true), IsOk());
  ASSERT_THAT(io->DeleteFile(dir.Sub("left/by/crash/f")), IsOk());
  std::filesystem::remove_all(dir.Sub("left/by"));
  std::filesystem::create_directories(dir.Sub("left/by/crash"));
  EXPECT_THAT(io->WriteFile(dir.Sub("left/by/crash/g"), "y", /*durable=*/true), IsOk());
  EXPECT_EQ(*io->ReadFile(dir.Sub("left/by/crash/g")), "y");
}

TEST(LocalFileIOTest, DurableStreamedWrite) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  auto file = io->NewOutputFile(dir.Sub("new/dir/f"), /*durable=*/true);
  ASSERT_TRUE(file);
  ASSERT_THAT((*file)->Write("abc"), IsOk());
  EXPECT_THAT((*file)->Close(), IsOk());
  EXPECT_EQ(*io->ReadFile(dir.Sub("new/dir/f")), "abc");
}

// A write larger than one write(2) is handed (local_file_io.cc kMaxWriteBytes)
// lands whole and in order, in one call and across calls.
TEST(LocalFileIOTest, LargeWritesArriveWholeAndInOrder) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  std::string contents(3 * 256 * 1024 + 7, '\0');
  for (size_t i = 0; i < contents.size(); ++i) contents[i] = static_cast<char>(i * 131 + i / 4099);
  ASSERT_THAT(io->WriteFile(dir.Sub("whole"), contents, /*durable=*/false), IsOk());
  EXPECT_EQ(*io->ReadFile(dir.Sub("whole")), contents);
  auto file = io->NewOutputFile(dir.Sub("parts"), /*durable=*/true);
  ASSERT_TRUE(file);
  ASSERT_THAT((*file)->Write(std::string_view(contents).substr(0, 300000)), IsOk());
  ASSERT_THAT((*file)->Write(std::string_view(contents).substr(300000)), IsOk());
  EXPECT_EQ((*file)->BytesWritten(), static_cast<int64_t>(contents.size()));
  ASSERT_THAT((*file)->Close(), IsOk());
  EXPECT_EQ(*io->ReadFile(dir.Sub("parts")), contents);
}

TEST(LocalFileIOTest, CreateDirectoriesMakesTheChainAndAcceptsAnExistingOne) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->CreateDirectories("file://" + dir.Sub("t/metadata")), IsOk());
  EXPECT_TRUE(std::filesystem::is_directory(dir.Sub("t/metadata")));
  EXPECT_THAT(io->CreateDirectories(dir.Sub("t/metadata")), IsOk());
  ASSERT_THAT(io->WriteFile(dir.Sub("t/file"), "x", /*durable=*/false), IsOk());
  // A file where a directory must be: the path is wrong, not the storage.
  EXPECT_THAT(io->CreateDirectories(dir.Sub("t/file")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->CreateDirectories(dir.Sub("t/file/below")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->CreateDirectories("relative/dir"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocalFileIOTest, WriteFilesWritesInOrderAndStopsAtTheFirstError) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->WriteFile(dir.Sub("b"), "old", false), IsOk());
  EXPECT_THAT(
      io->WriteFiles(
          {{dir.Sub("a"), "1", false}, {dir.Sub("b"), "2", true}, {dir.Sub("c"), "3", false}}),
      IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io->ReadFile(dir.Sub("a")), "1");
  EXPECT_EQ(*io->ReadFile(dir.Sub("b")), "old");
  EXPECT_FALSE(*io->Exists(dir.Sub("c")));
  ASSERT_THAT(io->WriteFiles({{dir.Sub("c"), "3", true}}), IsOk());
  EXPECT_EQ(*io->ReadFile(dir.Sub("c")), "3");
}

// Paths come from locations clients name: a path that cannot name a file
// here is the caller's mistake, not a failure of the storage.
TEST(LocalFileIOTest, APathThatCannotBeAFileIsInvalid) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->WriteFile(dir.Sub("file"), "x", false), IsOk());
  for (const std::string& path :
       {dir.Sub("file/below"), dir.Sub("file/below/deeper"), dir.Sub(std::string(300, 'n')),
        dir.Sub(std::string(300, 'd') + "/f")}) {
    EXPECT_THAT(io->WriteFile(path, "y", true), IsError(ErrorKind::kInvalidArgument)) << path;
  }
  EXPECT_THAT(io->ReadFile(dir.Sub("file/below")), IsError(ErrorKind::kInvalidArgument));

  // A loop of symbolic links is the path's fault too (a client that can
  // write the warehouse may plant one), not the server's.
  std::filesystem::create_symlink(dir.Sub("loop"), dir.Sub("loop"));
  EXPECT_THAT(io->CreateDirectories(dir.Sub("loop/t/metadata")),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->WriteFile(dir.Sub("loop/f"), "y", true), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->ReadFile(dir.Sub("loop/f")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->ReadFile(dir.Sub("loop")), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocalFileIOTest, ParentLocation) {
  EXPECT_EQ(ParentLocation("file:///a/b/c.json"), "file:///a/b");
  EXPECT_EQ(ParentLocation("file:/a/b"), "file:/a");
  EXPECT_EQ(ParentLocation("file:///a"), "file:///");
  EXPECT_EQ(ParentLocation("/a/b/"), "/a");
  EXPECT_EQ(ParentLocation("/a"), "/");
  EXPECT_EQ(ParentLocation("name"), "");
}

TEST(LocalFileIOTest, LocalPathAcceptsTheThreeLocalSpellingsOnly) {
  EXPECT_EQ(*LocalPath("file:/a/b"), "/a/b");
  EXPECT_EQ(*LocalPath("file:///a/b"), "/a/b");
  EXPECT_EQ(*LocalPath("/a/b"), "/a/b");
  EXPECT_EQ(*LocalPath("/a//b/../c"), "/a//b/../c");  // as written: the OS resolves it
  EXPECT_THAT(LocalPath("s3://bucket/a"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(LocalPath("file://host/a"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(LocalPath("a/b"), IsError(ErrorKind::kInvalidArgument));
}

TEST(LocalFileIOTest, CheckLocationAcceptsOnlyFilesOfThisMachine) {
  auto io = NewLocalFileIO();
  EXPECT_THAT(io->CheckLocation(*Location::Parse("/a")), IsOk());
  EXPECT_THAT(io->CheckLocation(*Location::Parse("file:///a")), IsOk());
  EXPECT_THAT(io->CheckLocation(*Location::Parse("s3://bucket/a")),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->CheckLocation(*Location::Parse("file://host/a")),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->ResolveLocation(*Location::Parse("s3://bucket/a")),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(LocalFileIOTest, ResolveLocationFollowsLinksOfTheExistingPrefix) {
  testing::TempDir dir;
  std::string real = std::filesystem::canonical(dir.path()).string();
  std::filesystem::create_directories(real + "/real/sub");
  std::filesystem::create_directory_symlink(real + "/real", real + "/link");
  auto io = NewLocalFileIO();
  auto resolve = [&](const std::string& location) {
    auto resolved = io->ResolveLocation(*Location::Parse(location));
    return resolved ? resolved->ToString() : resolved.error().ToString();
  };
  EXPECT_EQ(resolve(real + "/link/sub/f"), "file://" + real + "/real/sub/f");
  EXPECT_EQ(resolve("file://" + real + "/link"), "file://" + real + "/real");
  // The missing rest stays lexical.
  EXPECT_EQ(resolve(real + "/link/missing/x"), "file://" + real + "/real/missing/x");
  EXPECT_EQ(resolve(real + "/none/x"), "file://" + real + "/none/x");
}

// A file a client named is checked where it leads, then read from there: a
// link made on its way after the check is refused, never followed.
TEST(LocalFileIOTest, ACheckedReadFollowsNoLinkMadeAfterTheCheck) {
  testing::TempDir dir;
  testing::TempDir outside;
  namespace fs = std::filesystem;
  const std::string real = fs::canonical(dir.path()).string();
  fs::create_directories(real + "/real/sub");
  fs::create_directory_symlink(real + "/real", real + "/link");
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->WriteFile(real + "/real/sub/f", "checked", false), IsOk());
  ASSERT_THAT(io->WriteFile(outside.Sub("sub/f"), "secret", false), IsOk());
  ASSERT_THAT(io->WriteFile(outside.Sub("g"), "secret", false), IsOk());
  const std::string location = real + "/link/sub/f";
  auto resolved = io->ResolveLocation(*Location::Parse(location));
  ASSERT_THAT(resolved, IsOk());
  EXPECT_EQ(*io->ReadCheckedFileUpTo(location, *resolved, 100), "checked");
  EXPECT_THAT(io->ReadCheckedFileUpTo(location, *resolved, 3),
              IsError(ErrorKind::kInvalidArgument));

  // A directory on the way swapped for a link after the check.
  fs::rename(real + "/real/sub", real + "/real/sub-before");
  fs::create_directory_symlink(outside.Sub("sub"), real + "/real/sub");
  EXPECT_EQ(*io->ReadFile(location), "secret");  // what an unchecked read would get
  EXPECT_THAT(io->ReadCheckedFileUpTo(location, *resolved, 100), IsError(ErrorKind::kForbidden));
  // The file itself swapped for one.
  fs::create_directories(real + "/real/other");
  auto g = io->ResolveLocation(*Location::Parse(real + "/real/other/g"));
  ASSERT_THAT(g, IsOk());
  fs::create_symlink(outside.Sub("g"), real + "/real/other/g");
  EXPECT_THAT(io->ReadCheckedFileUpTo(g->ToString(), *g, 100), IsError(ErrorKind::kForbidden));

  // Otherwise as ReadFileUpTo: missing, not a regular file, not a resolved path.
  auto missing = io->ResolveLocation(*Location::Parse(real + "/real/none"));
  EXPECT_THAT(io->ReadCheckedFileUpTo("m", *missing, 100), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io->ReadCheckedFileUpTo("d", Location{"file", "", real + "/real"}, 100),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(
      io->ReadCheckedFileUpTo("p", Location{"file", "", real + "/real/../real/sub-before/f"}, 100),
      IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->ReadCheckedFileUpTo("s", Location{"s3", "b", "/k"}, 100),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(LocalFileIOTest, ACheckedDeleteFollowsNoLinkMadeAfterTheCheck) {
  testing::TempDir dir;
  testing::TempDir outside;
  namespace fs = std::filesystem;
  const std::string real = fs::canonical(dir.path()).string();
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->WriteFile(real + "/t/data/f", "mine", false), IsOk());
  ASSERT_THAT(io->WriteFile(outside.Sub("data/f"), "theirs", false), IsOk());
  const std::string location = real + "/t/data/f";
  auto checked = io->ResolveLocation(*Location::Parse(location));
  ASSERT_THAT(checked, IsOk());

  // The directory swapped for a link to another table's after the check: an
  // unchecked delete would remove that table's file; the checked one refuses.
  fs::rename(real + "/t/data", real + "/t/data-before");
  fs::create_directory_symlink(outside.Sub("data"), real + "/t/data");
  EXPECT_THAT(io->DeleteCheckedFile(location, *checked), IsError(ErrorKind::kForbidden));
  EXPECT_TRUE(fs::exists(outside.Sub("data/f")));

  // Without a link, it deletes; a link that is the file itself is removed,
  // not followed; a missing file is kNotFound.
  fs::remove(real + "/t/data");
  fs::rename(real + "/t/data-before", real + "/t/data");
  EXPECT_THAT(io->DeleteCheckedFile(location, *checked), IsOk());
  EXPECT_FALSE(fs::exists(location));
  fs::create_symlink(outside.Sub("data/f"), location);
  EXPECT_THAT(io->DeleteCheckedFile(location, *checked), IsOk());
  EXPECT_FALSE(fs::is_symlink(location));
  EXPECT_TRUE(fs::exists(outside.Sub("data/f")));
  EXPECT_THAT(io->DeleteCheckedFile(location, *checked), IsError(ErrorKind::kNotFound));
}

// A directory whose real path is `real`, one outside it (`elsewhere`), and
// a policy that allows only the first, recording what it was asked.
class LocalFileIOConfinedTest : public ::testing::Test {
 protected:
  std::function<Status(const Location&)> InsideOnly() {
    return [this](const Location& where) -> Status {
      asked.push_back(where.path);
      if (where.IsUnder(*Location::Parse(real))) return OkStatus();
      return Status(MakeError(ErrorKind::kForbidden, "outside"));
    };
  }

  testing::TempDir dir;
  testing::TempDir outside;
  const std::string real = std::filesystem::canonical(dir.path()).string();
  const std::string elsewhere = std::filesystem::canonical(outside.path()).string();
  std::shared_ptr<FileIO> io = NewLocalFileIO();
  std::vector<std::string> asked;
};

TEST_F(LocalFileIOConfinedTest, AConfinedWriteIsAskedWhereTheFileWasCreated) {
  namespace fs = std::filesystem;
  fs::create_directories(real + "/t");
  fs::create_directory_symlink(elsewhere, real + "/t/metadata");
  const std::string location = real + "/t/metadata/m.json";
  auto inside_only = InsideOnly();

  // Through the link: asked with where the file is, refused, and gone.
  EXPECT_THAT(io->WriteConfinedFile(location, "{}", false, inside_only),
              IsError(ErrorKind::kForbidden));
  EXPECT_EQ(asked, std::vector<std::string>{elsewhere + "/m.json"});
  EXPECT_TRUE(fs::is_empty(elsewhere));

  // A directory that does not exist yet is not made through the link.
  EXPECT_THAT(io->WriteConfinedFile(real + "/t/metadata/new/m.json", "{}", false, inside_only),
              IsError(ErrorKind::kForbidden));
  EXPECT_TRUE(fs::is_empty(elsewhere));

  // Without the link: written, durably too, directories made.
  fs::remove(real + "/t/metadata");
  EXPECT_THAT(io->WriteConfinedFile(location, "{}", true, inside_only), IsOk());
  EXPECT_EQ(asked.back(), location);
  EXPECT_EQ(*io->ReadFile(location), "{}");
  EXPECT_THAT(io->WriteConfinedFile(real + "/t/metadata/new/m.json", "{}", false, inside_only),
              IsOk());
  // Never over an existing file.
  EXPECT_THAT(io->WriteConfinedFile(location, "[]", false, inside_only),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(*io->ReadFile(location), "{}");
}

// A writer's table directory swapped with a link out, again and again, while
// confined writes make directories in it (renameat2 RENAME_EXCHANGE, as a
// client that can write there can): nothing is made outside, and a write
// either lands inside or is refused with a client's error, never an I/O
// error or a missing file.
TEST_F(LocalFileIOConfinedTest, AConfinedWriteRacingADirectorySwapMakesNothingOutside) {
  namespace fs = std::filesystem;
  fs::create_directories(real + "/t/metadata");
  fs::create_directory_symlink(elsewhere, real + "/t/swap");
  auto inside_only = InsideOnly();

  std::atomic<bool> done = false;
  std::thread swapper([&] {
    const std::string a = real + "/t/metadata", b = real + "/t/swap";
    while (!done) ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
  });
  int written = 0;
  std::map<ErrorKind, int> refused;
  for (int i = 0; i < 3000; ++i) {
    Status s = io->WriteConfinedFile(StrCat(real, "/t/metadata/d", i, "/m.json"), "{}", false,
                                     inside_only);
    if (s) {
      ++written;
    } else {
      ++refused[s.error().kind];
      EXPECT_THAT(s.error().kind,
                  ::testing::AnyOf(ErrorKind::kForbidden, ErrorKind::kInvalidArgument))
          << s.error().message;
    }
  }
  done = true;
  swapper.join();
  EXPECT_TRUE(fs::is_empty(elsewhere)) << fs::directory_iterator(elsewhere)->path();
  EXPECT_GT(written, 0);
  EXPECT_FALSE(refused.empty());  // the race was met
}

TEST_F(LocalFileIOConfinedTest, AConfinedReadIsAskedWhereTheFileIs) {
  namespace fs = std::filesystem;
  ASSERT_THAT(io->WriteFile(real + "/t/metadata/m.json", "inside", false), IsOk());
  ASSERT_THAT(io->WriteFile(elsewhere + "/m.json", "outside", false), IsOk());
  auto inside_only = InsideOnly();
  EXPECT_EQ(*io->ReadConfinedFileUpTo(real + "/t/metadata/m.json", 100, inside_only), "inside");
  EXPECT_THAT(io->ReadConfinedFileUpTo(real + "/t/metadata/m.json", 3, inside_only),
              IsError(ErrorKind::kInvalidArgument));  // larger than asked for

  // A link in the file's place is not followed, wherever it leads.
  fs::create_symlink(real + "/t/metadata/m.json", real + "/t/metadata/link.json");
  asked.clear();
  EXPECT_THAT(io->ReadConfinedFileUpTo(real + "/t/metadata/link.json", 100, inside_only),
              IsError(ErrorKind::kForbidden));
  EXPECT_TRUE(asked.empty());

  // Through a link in place of its directory: asked with where it is.
  fs::rename(real + "/t/metadata", real + "/t/before");
  fs::create_directory_symlink(elsewhere, real + "/t/metadata");
  EXPECT_THAT(io->ReadConfinedFileUpTo(real + "/t/metadata/m.json", 100, inside_only),
              IsError(ErrorKind::kForbidden));
  EXPECT_EQ(asked, std::vector<std::string>{elsewhere + "/m.json"});
  EXPECT_THAT(io->ReadConfinedFileUpTo(real + "/t/metadata/gone.json", 100, inside_only),
              IsError(ErrorKind::kNotFound));
}

TEST_F(LocalFileIOConfinedTest, ConfinedDirectoriesAreNotMadeThroughALinkOut) {
  namespace fs = std::filesystem;
  fs::create_directories(real + "/ns");
  fs::create_directory_symlink(elsewhere, real + "/ns/link");
  EXPECT_THAT(io->CreateConfinedDirectories(real + "/ns/link/t/metadata", InsideOnly()),
              IsError(ErrorKind::kForbidden));
  EXPECT_EQ(asked, std::vector<std::string>{elsewhere + "/t/metadata"});
  EXPECT_TRUE(fs::is_empty(elsewhere));
  // A file where a directory must be is a wrong path.
  ASSERT_THAT(io->WriteFile(real + "/ns/file", "x", false), IsOk());
  EXPECT_THAT(io->CreateConfinedDirectories(real + "/ns/file/t", InsideOnly()),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->CreateConfinedDirectories(real + "/ns/t/data/", InsideOnly()), IsOk());
  EXPECT_TRUE(fs::is_directory(real + "/ns/t/data"));
  EXPECT_THAT(io->CreateConfinedDirectories(real + "/ns/t/data", InsideOnly()), IsOk());
}

// Review finding: the kernel cannot name a real path of PATH_MAX bytes or
// more, which short links can make; resolving the path by name then failed
// too, and the unresolved path, inside, was asked instead: the write and the
// read went through. Now neither can tell where the file lies, and refuses.
TEST_F(LocalFileIOConfinedTest, AFileWhoseRealPathIsTooLongToNameIsRefused) {
  namespace fs = std::filesystem;
  // elsewhere/d0/.../d21, each name 200 bytes: a real path of about 4,450.
  const std::string name(200, 'd');
  int dir = ::open(elsewhere.c_str(), O_PATH | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  std::string first_half, second_half;
  for (int i = 0; i < 22; ++i) {
    ASSERT_EQ(::mkdirat(dir, name.c_str(), 0777), 0);
    int next = ::openat(dir, name.c_str(), O_PATH | O_DIRECTORY);
    ::close(dir);
    ASSERT_GE(next, 0);
    dir = next;
    (i < 11 ? first_half : second_half) += (i == 0 || i == 11 ? "" : "/") + name;
  }
  int file = ::openat(dir, "m.json", O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(file, 0);
  ASSERT_EQ(::write(file, "{}", 2), 2);
  ::close(file);
  ::close(dir);
  // Links whose own targets are short: half-way, then the rest from there.
  fs::create_directory_symlink(first_half, elsewhere + "/half");
  fs::create_directories(real + "/t");
  fs::create_directory_symlink(elsewhere + "/half/" + second_half, real + "/t/metadata");

  EXPECT_THAT(io->WriteConfinedFile(real + "/t/metadata/new.json", "{}", false, InsideOnly()),
              IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(fs::exists(real + "/t/metadata/new.json"));
  EXPECT_THAT(io->CreateConfinedDirectories(real + "/t/metadata/sub", InsideOnly()),
              IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(fs::exists(real + "/t/metadata/sub"));
  EXPECT_EQ(*io->ReadFile(real + "/t/metadata/m.json"), "{}");  // there, unconfined
  EXPECT_THAT(io->ReadConfinedFileUpTo(real + "/t/metadata/m.json", 100, InsideOnly()),
              IsError(ErrorKind::kForbidden));
  EXPECT_TRUE(asked.empty());
}

TEST_F(LocalFileIOConfinedTest, AConfinedReadOfASocketIsAWrongPath) {
  const std::string path = real + "/sock.json";
  testing::PlaceUnixSocket(path, real + "/s");
  EXPECT_THAT(io->ReadConfinedFileUpTo(path, 100, InsideOnly()),
              IsError(ErrorKind::kInvalidArgument));
}

// A confined write that need not be durable links a file made ahead
// (io/spare_files.h) into place: made well before the write, and then an
// ordinary file. A durable one creates its file, and so does one into a
// directory that gives its files another group.
TEST_F(LocalFileIOConfinedTest, AConfinedWriteLinksAFileMadeAheadIntoPlace) {
  namespace fs = std::filesystem;
  using std::chrono::milliseconds;
  fs::create_directories(real + "/t/metadata");
  io->MakeSpareFilesIn(real);
  const std::string first = real + "/t/metadata/0.json";
  ASSERT_THAT(io->WriteConfinedFile(first, "{}", false, InsideOnly()), IsOk());
  using testing::BirthTime;
  using testing::CoarseNow;
  if (!BirthTime(first)) GTEST_SKIP() << "no birth times here";
  bool made_ahead = false;
  for (int i = 1; i <= 50 && !made_ahead; ++i) {
    std::this_thread::sleep_for(milliseconds(100));  // the spares are made meanwhile
    const std::string location = StrCat(real, "/t/metadata/", i, ".json");
    const auto began = CoarseNow();
    ASSERT_THAT(io->WriteConfinedFile(location, StrCat("{\"v\":", i, "}"), false, InsideOnly()),
                IsOk());
    made_ahead = *BirthTime(location) + milliseconds(20) < began;
    EXPECT_EQ(*io->ReadFile(location), StrCat("{\"v\":", i, "}"));
    EXPECT_EQ(fs::hard_link_count(location), 1u);
  }
  EXPECT_TRUE(made_ahead);

  std::this_thread::sleep_for(milliseconds(100));
  const std::string durable = real + "/t/metadata/durable.json";
  const auto began = CoarseNow();
  ASSERT_THAT(io->WriteConfinedFile(durable, "{}", true, InsideOnly()), IsOk());
  EXPECT_GE(*BirthTime(durable), began);

  if (::geteuid() != 0) return;  // giving a directory a group it is not in
  const std::string grouped = real + "/t/grouped";
  fs::create_directories(grouped);
  const gid_t other = ::getegid() + 4242;
  ASSERT_EQ(::chown(grouped.c_str(), -1, other), 0);
  ASSERT_EQ(::chmod(grouped.c_str(), 02755), 0);
  ASSERT_THAT(io->WriteConfinedFile(grouped + "/m.json", "{}", false, InsideOnly()), IsOk());
  struct stat st;
  ASSERT_EQ(::stat((grouped + "/m.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, other);
}

}  // namespace
}  // namespace skade::io
