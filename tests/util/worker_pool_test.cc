// WorkerPool: every index runs once, and concurrent callers share the workers.
#include "skade/util/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace skade {
namespace {

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

}  // namespace
}  // namespace skade
