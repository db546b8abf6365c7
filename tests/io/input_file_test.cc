// InputFile: random-access reads of the local FileIO (pread), of FileIO's
// default (the whole file through ReadFile) and through a ForwardingFileIO.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/io/forwarding_file_io.h"
#include "testing/matchers.h"
#include "testing/memory_file_io.h"
#include "testing/temp_dir.h"

namespace skade::io {
namespace {

using testing::IsError;
using testing::IsOk;

std::string Pattern(size_t size) {
  std::string out(size, '\0');
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return out;
}

// Ranges inside, across and past the end, and bad arguments.
void ExpectRandomAccess(InputFile& file, const std::string& contents) {
  ASSERT_EQ(file.Size(), static_cast<int64_t>(contents.size()));
  std::string out(contents.size() + 16, '\0');
  auto read = file.ReadAt(0, static_cast<int64_t>(contents.size()), out.data());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, static_cast<int64_t>(contents.size()));
  EXPECT_EQ(out.substr(0, contents.size()), contents);
  read = file.ReadAt(1000, 333, out.data());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, 333);
  EXPECT_EQ(out.substr(0, 333), contents.substr(1000, 333));
  // Across the end: what is there.
  int64_t size = file.Size();
  read = file.ReadAt(size - 10, 100, out.data());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, 10);
  EXPECT_EQ(out.substr(0, 10), contents.substr(contents.size() - 10));
  // At and past the end: nothing.
  EXPECT_EQ(*file.ReadAt(size, 5, out.data()), 0);
  EXPECT_EQ(*file.ReadAt(size + 100, 5, out.data()), 0);
  EXPECT_EQ(*file.ReadAt(3, 0, out.data()), 0);
  EXPECT_THAT(file.ReadAt(-1, 5, out.data()), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(file.ReadAt(0, -5, out.data()), IsError(ErrorKind::kInvalidArgument));
}

TEST(InputFileTest, LocalReadsRanges) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  std::string contents = Pattern(100000);
  ASSERT_THAT(io->WriteFile(dir.Sub("f"), contents, false), IsOk());
  auto file = io->NewInputFile(dir.Sub("f"));
  ASSERT_THAT(file, IsOk());
  ExpectRandomAccess(**file, contents);
  auto as_uri = io->NewInputFile("file://" + dir.Sub("f"));
  ASSERT_THAT(as_uri, IsOk());
  EXPECT_EQ((*as_uri)->Size(), 100000);
}

TEST(InputFileTest, LocalReadsConcurrently) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  std::string contents = Pattern(1 << 20);
  ASSERT_THAT(io->WriteFile(dir.Sub("f"), contents, false), IsOk());
  auto file = io->NewInputFile(dir.Sub("f"));
  ASSERT_THAT(file, IsOk());
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::string out(4096, '\0');
      for (int64_t offset = t * 4096; offset + 4096 <= (1 << 20); offset += 4 * 4096) {
        auto read = (*file)->ReadAt(offset, 4096, out.data());
        if (!read || *read != 4096 || out != contents.substr(offset, 4096)) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(InputFileTest, LocalRejectsWhatIsNotARegularFile) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  EXPECT_THAT(io->NewInputFile(dir.Sub("missing")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io->NewInputFile(dir.path()), IsError(ErrorKind::kInvalidArgument));
  ASSERT_EQ(::mkfifo(dir.Sub("fifo").c_str(), 0600), 0);
  EXPECT_THAT(io->NewInputFile(dir.Sub("fifo")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(io->NewInputFile("s3://bucket/key"), IsError(ErrorKind::kInvalidArgument));
}

TEST(InputFileTest, LocalEmptyFile) {
  testing::TempDir dir;
  auto io = NewLocalFileIO();
  ASSERT_THAT(io->WriteFile(dir.Sub("empty"), "", false), IsOk());
  auto file = io->NewInputFile(dir.Sub("empty"));
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ((*file)->Size(), 0);
  char byte;
  EXPECT_EQ(*(*file)->ReadAt(0, 1, &byte), 0);
}

TEST(InputFileTest, DefaultReadsTheWholeFileThroughReadFile) {
  testing::MemoryFileIO io;
  std::string contents = Pattern(5000);
  ASSERT_THAT(io.WriteFile("mem/f", contents, false), IsOk());
  auto file = io.NewInputFile("mem/f");
  ASSERT_THAT(file, IsOk());
  ExpectRandomAccess(**file, contents);
  EXPECT_THAT(io.NewInputFile("mem/missing"), IsError(ErrorKind::kNotFound));
}

TEST(InputFileTest, ForwardingFileIOOpensThroughItsInner) {
  testing::TempDir dir;
  ForwardingFileIO io(NewLocalFileIO());
  std::string contents = Pattern(3000);
  ASSERT_THAT(io.WriteFile(dir.Sub("f"), contents, false), IsOk());
  auto file = io.NewInputFile(dir.Sub("f"));
  ASSERT_THAT(file, IsOk());
  ExpectRandomAccess(**file, contents);
  EXPECT_THAT(io.NewInputFile(dir.path()), IsError(ErrorKind::kInvalidArgument));
}

}  // namespace
}  // namespace skade::io
