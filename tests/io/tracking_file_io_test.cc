// TrackingFileIO records exactly the complete files written without sync.
#include "skade/io/tracking_file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/counting_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::io {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::IsOk;

TEST(TrackingFileIOTest, RecordsCompleteFilesWrittenWithoutSync) {
  testing::TempDir dir;
  TrackingFileIO io(NewLocalFileIO());
  ASSERT_THAT(io.WriteFile(dir.Sub("plain"), "x", /*durable=*/false), IsOk());
  ASSERT_THAT(io.WriteFile(dir.Sub("durable"), "x", /*durable=*/true), IsOk());
  {
    auto dropped = io.NewOutputFile(dir.Sub("dropped"), /*durable=*/false);
    ASSERT_TRUE(dropped);
    ASSERT_THAT((*dropped)->Write("x"), IsOk());
  }  // removed without Close(): nothing to sync
  auto streamed = io.NewOutputFile(dir.Sub("streamed"), /*durable=*/false);
  ASSERT_TRUE(streamed);
  ASSERT_THAT((*streamed)->Write("x"), IsOk());
  EXPECT_THAT(io.TakeWritten(), ElementsAre(dir.Sub("plain")));  // not yet closed
  ASSERT_THAT((*streamed)->Close(), IsOk());
  ASSERT_THAT((*streamed)->Close(), IsOk());  // recorded once
  EXPECT_THAT(io.TakeWritten(), ElementsAre(dir.Sub("streamed")));
  EXPECT_THAT(io.TakeWritten(), IsEmpty());
}

TEST(TrackingFileIOTest, ForwardsWriteFilesAndRecordsTheUnsyncedOnes) {
  testing::TempDir dir;
  auto inner = std::make_shared<testing::CountingFileIO>(NewLocalFileIO());
  TrackingFileIO io(inner);
  ASSERT_THAT(io.WriteFiles({{dir.Sub("a"), "x", false}, {dir.Sub("b"), "y", true}}), IsOk());
  // One batch for the inner FileIO (its concurrency is kept), not two writes.
  EXPECT_THAT(inner->TakeWriteBatches(), ElementsAre(ElementsAre(dir.Sub("a"), dir.Sub("b"))));
  EXPECT_THAT(io.TakeWritten(), ElementsAre(dir.Sub("a")));
  // After an error some may exist: every unsynced one is recorded (a missing
  // file is skipped when synced), so none that exists escapes its sync.
  EXPECT_THAT(io.WriteFiles({{dir.Sub("c"), "x", false}, {dir.Sub("a"), "x", false}}),
              testing::IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(io.TakeWritten(), ElementsAre(dir.Sub("c"), dir.Sub("a")));
}

TEST(TrackingFileIOTest, ForwardsSyncs) {
  testing::TempDir dir;
  TrackingFileIO io(NewLocalFileIO());
  ASSERT_THAT(io.WriteFile(dir.Sub("f"), "x", /*durable=*/false), IsOk());
  EXPECT_THAT(io.SyncFile(dir.Sub("f")), IsOk());
  EXPECT_THAT(io.SyncDirectory(dir.path()), IsOk());
}

}  // namespace
}  // namespace skade::io
