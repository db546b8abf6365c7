// channel_depth bounds memory: the pipelines encode lazily, so at most
// channel_depth + encode workers groups' files are held encoded at once,
// however long the input (IngestStats::peak_encoded_files counts the live
// encoded buffers).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ingest_test_util.h"
#include "skade/ingest/ingest.h"
#include "skade/util/worker_pool.h"

namespace skade::ingest {
namespace {

using testing::HookedFileIO;
using testing::IngestTest;
using testing::IsOk;

class MemoryBoundTest : public IngestTest, public ::testing::WithParamInterface<bool> {};

// Regression: the whole input used to be encoded before the first write.
TEST_P(MemoryBoundTest, AtMostChannelDepthPlusWorkersFilesAreHeldEncoded) {
  constexpr int kGroups = 30;
  constexpr int kDepth = 2;
  WorkerPool pool(2);
  // Slow writes: an unbounded encoder would run far ahead of the writer.
  auto io = std::make_shared<HookedFileIO>([](std::string_view location) {
    if (location.ends_with(".parquet")) std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return OkStatus();
  });
  table::Table table = Create("events", nullptr, {}, nullptr, io);
  IngestOptions options;
  options.pool = &pool;
  options.channel_depth = kDepth;
  options.files_per_commit = 10;
  auto groups = testing::EventGroups(kGroups, 50);
  auto result = GetParam() ? IngestPipelinedOverlap(table, groups, options)
                           : IngestPipelined(table, groups, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->stats.files, kGroups);
  EXPECT_GE(result->stats.peak_encoded_files, 1);
  EXPECT_LE(result->stats.peak_encoded_files, kDepth + 2);
  EXPECT_EQ(testing::CommittedRows(result->table), testing::RowsOf(groups));
}

TEST_P(MemoryBoundTest, ParallelIngestIsBoundedToo) {
  WorkerPool pool(2);
  table::Table table = Create("events");
  IngestOptions options;
  options.pool = &pool;
  options.channel_depth = 1;
  auto groups = testing::EventGroups(12, 20);
  auto result = IngestParallel(table, groups, options);
  ASSERT_THAT(result, IsOk());
  EXPECT_LE(result->stats.peak_encoded_files, 1 + 2);
  EXPECT_EQ(testing::CommittedRows(result->table), testing::RowsOf(groups));
}

INSTANTIATE_TEST_SUITE_P(SerialAndOverlapped, MemoryBoundTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Overlapped" : "Serial"; });

}  // namespace
}  // namespace skade::ingest
