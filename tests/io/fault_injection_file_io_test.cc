// The power-loss model of testing/fault_injection_file_io.h, checked on its
// own so the catalog tests can rely on it.
#include "testing/fault_injection_file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::testing {
namespace {

using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

TEST(FaultInjectionFileIOTest, KeepsOnlyFilesWhoseDataAndEntryWereSynced) {
  TempDir dir;
  FaultInjectionFileIO io;
  ASSERT_THAT(io.WriteFile(dir.Sub("entry-only"), "x", false), IsOk());
  ASSERT_THAT(io.WriteFile(dir.Sub("both"), "x", false), IsOk());
  ASSERT_THAT(io.SyncFile(dir.Sub("both")), IsOk());
  ASSERT_THAT(io.SyncDirectory(dir.path()), IsOk());
  // (A durable write syncs the directory too: the files after it are not.)
  ASSERT_THAT(io.WriteFile(dir.Sub("durable"), "x", true), IsOk());
  ASSERT_THAT(io.WriteFile(dir.Sub("unsynced"), "x", false), IsOk());
  ASSERT_THAT(io.WriteFile(dir.Sub("data-only"), "x", false), IsOk());
  ASSERT_THAT(io.SyncFile(dir.Sub("data-only")), IsOk());

  EXPECT_THAT(
      io.SimulatePowerLoss(),
      UnorderedElementsAre(dir.Sub("unsynced"), dir.Sub("data-only"), dir.Sub("entry-only")));
  EXPECT_TRUE(Exists(dir.Sub("both")));
  EXPECT_TRUE(Exists(dir.Sub("durable")));
  EXPECT_FALSE(Exists(dir.Sub("data-only")));
  EXPECT_THAT(io.ReadFile(dir.Sub("both")), IsError(ErrorKind::kIo));  // dead
}

TEST(FaultInjectionFileIOTest, ANewDirectoryNeedsItsOwnEntrySynced) {
  TempDir dir;
  FaultInjectionFileIO io;
  ASSERT_THAT(io.WriteFile(dir.Sub("a/b/f"), "x", false), IsOk());
  ASSERT_THAT(io.SyncFile(dir.Sub("a/b/f")), IsOk());
  // Syncing only the parent's parent leaves b's entries (f) unsynced.
  ASSERT_THAT(io.SyncDirectory(dir.Sub("a")), IsOk());
  auto lost = io.SimulatePowerLoss();
  EXPECT_THAT(lost, UnorderedElementsAre(dir.Sub("a/b/f")));
  EXPECT_TRUE(Exists(dir.Sub("a/b")));
}

TEST(FaultInjectionFileIOTest, AnUnsyncedDirectoryTakesItsFilesWithIt) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("old"));
  FaultInjectionFileIO io;
  ASSERT_THAT(io.WriteFile(dir.Sub("old/new/f"), "x", false), IsOk());
  ASSERT_THAT(io.SyncFile(dir.Sub("old/new/f")), IsOk());
  // An external fsync of old/new would not be seen; nothing synced old.
  io.SimulatePowerLoss();
  EXPECT_FALSE(Exists(dir.Sub("old/new")));
  EXPECT_TRUE(Exists(dir.Sub("old")));
}

TEST(FaultInjectionFileIOTest, SyncDirectoryMakesTheChainDurable) {
  TempDir dir;
  FaultInjectionFileIO io;
  ASSERT_THAT(io.WriteFile(dir.Sub("a/b/c/f"), "x", false), IsOk());
  ASSERT_THAT(io.SyncFile(dir.Sub("a/b/c/f")), IsOk());
  ASSERT_THAT(io.SyncDirectory(dir.Sub("a/b/c")), IsOk());
  EXPECT_THAT(io.SimulatePowerLoss(), IsEmpty());
}

TEST(FaultInjectionFileIOTest, FailedSyncsSyncNothing) {
  TempDir dir;
  FaultInjectionFileIO io;
  ASSERT_THAT(io.WriteFile(dir.Sub("f"), "x", false), IsOk());
  io.FailSyncs(true);
  EXPECT_THAT(io.SyncFile(dir.Sub("f")), IsError(ErrorKind::kIo));
  EXPECT_THAT(io.SyncDirectory(dir.path()), IsError(ErrorKind::kIo));
  EXPECT_THAT(io.SimulatePowerLoss(), UnorderedElementsAre(dir.Sub("f")));
}

}  // namespace
}  // namespace skade::testing
