// The pipeline's building blocks: the encode pool, the bounded queue and
// the ordered write stage.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ingest_test_util.h"
#include "skade/ingest/bounded_queue.h"
#include "skade/ingest/ordered_writer_internal.h"
#include "skade/ingest/worker_pool.h"

namespace skade::ingest {
namespace {

using testing::HookedFileIO;
using testing::IsError;
using testing::IsOk;

TEST(WorkerPoolTest, RunsEveryIndexOnceAndWaits) {
  WorkerPool pool(3);
  std::vector<std::atomic<int>> runs(1000);
  pool.ParallelFor(runs.size(), [&](size_t i) { runs[i]++; });
  for (const auto& count : runs) EXPECT_EQ(count.load(), 1);
  pool.ParallelFor(0, [](size_t) { FAIL(); });
}

TEST(WorkerPoolTest, ConcurrentCallersShareTheWorkers) {
  WorkerPool pool(2);
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] { pool.ParallelFor(100, [&](size_t i) { sum += i; }); });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(sum.load(), 4 * 4950);
}

TEST(BoundedQueueTest, BlocksAtCapacityAndDrainsAfterClose) {
  BoundedQueue<int> queue(2);
  ASSERT_TRUE(queue.Push(1));
  ASSERT_TRUE(queue.Push(2));
  std::atomic<bool> third_pushed{false};
  std::thread producer([&] {
    queue.Push(3);
    third_pushed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_pushed.load());  // backpressure
  EXPECT_EQ(queue.Pop(), 1);
  producer.join();
  EXPECT_TRUE(third_pushed.load());
  queue.Close();
  EXPECT_FALSE(queue.Push(4));
  EXPECT_EQ(queue.Pop(), 2);
  EXPECT_EQ(queue.Pop(), 3);
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

TEST(BoundedQueueTest, AbortDropsWhatIsLeftAndWakesProducers) {
  BoundedQueue<int> queue(1);
  ASSERT_TRUE(queue.Push(1));
  std::thread producer([&] { EXPECT_FALSE(queue.Push(2)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.Abort();
  producer.join();
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

class OrderedWriterTest : public ::testing::Test {
 protected:
  std::vector<FileToWrite> Files(int n) {
    bytes_.resize(n);
    std::vector<FileToWrite> files;
    for (int i = 0; i < n; ++i) {
      bytes_[i] = StrCat("file ", i);
      files.push_back({dir_.Sub(StrCat("f", i)), &bytes_[i]});
    }
    return files;
  }

  skade::testing::TempDir dir_;
  std::vector<std::string> bytes_;
};

TEST_F(OrderedWriterTest, DeliversInSubmissionOrderWithBoundedWritesInFlight) {
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};
  // Later files finish first within each window, so completions arrive
  // out of order.
  HookedFileIO io([&](std::string_view location) -> Status {
    int now = ++in_flight;
    int seen = most_in_flight.load();
    while (now > seen && !most_in_flight.compare_exchange_weak(seen, now)) {
    }
    int index = std::stoi(std::string(location.substr(location.rfind('f') + 1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * (4 - index % 4)));
    --in_flight;
    return OkStatus();
  });
  auto files = Files(24);
  std::vector<size_t> delivered;
  std::vector<uint8_t> stored;
  ASSERT_THAT(WriteInOrder(
                  io, false, files, 4, {},
                  [&](size_t i) {
                    delivered.push_back(i);
                    return OkStatus();
                  },
                  &stored),
              IsOk());
  std::vector<size_t> expected(24);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  EXPECT_EQ(delivered, expected);
  EXPECT_LE(most_in_flight.load(), 4);
  EXPECT_GE(most_in_flight.load(), 2);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(*io.ReadFile(files[i].location), bytes_[i]);
}

TEST_F(OrderedWriterTest, StopsAtTheFirstFailureInOrder) {
  HookedFileIO io(testing::FailNthWrite("/f7", 1));
  auto files = Files(30);
  std::vector<size_t> delivered;
  std::vector<uint8_t> stored;
  Status status = WriteInOrder(
      io, false, files, 3, {},
      [&](size_t i) {
        delivered.push_back(i);
        return OkStatus();
      },
      &stored);
  EXPECT_THAT(status, IsError(ErrorKind::kIo));
  EXPECT_EQ(delivered.size(), 7u);  // 0-6, every file before the failure
  EXPECT_FALSE(stored[7]);
  for (size_t i = 10; i < files.size(); ++i) EXPECT_FALSE(stored[i]) << i;  // never started
}

TEST_F(OrderedWriterTest, ABlockedConsumerHoldsBackNewWrites) {
  std::atomic<int> writes{0};
  HookedFileIO io([&](std::string_view) -> Status {
    ++writes;
    return OkStatus();
  });
  auto files = Files(20);
  std::vector<uint8_t> stored;
  ASSERT_THAT(WriteInOrder(
                  io, false, files, 2, {},
                  [&](size_t i) {
                    if (i == 0) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(50));
                      EXPECT_LE(writes.load(), 2);  // the window is full
                    }
                    return OkStatus();
                  },
                  &stored),
              IsOk());
  EXPECT_EQ(writes.load(), 20);
}

}  // namespace
}  // namespace skade::ingest
