#include "skade/util/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace skade {
namespace {

TEST(ParallelForTest, RunsEveryIndexOnceWithResultsInInputOrder) {
  for (int threads : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> runs(100);
    std::vector<size_t> squares(100);
    Status done = ParallelFor(runs.size(), threads, [&](size_t i) -> Status {
      runs[i]++;
      squares[i] = i * i;
      return OkStatus();
    });
    ASSERT_TRUE(done.has_value()) << threads;
    for (size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i], 1) << threads;
      EXPECT_EQ(squares[i], i * i);
    }
  }
}

TEST(ParallelForTest, ReturnsTheErrorAndStopsTakingIndices) {
  for (int threads : {1, 4}) {
    std::atomic<int> started{0};
    Status done = ParallelFor(1000, threads, [&](size_t i) -> Status {
      started++;
      if (i == 0) return MakeError(ErrorKind::kNotFound, "index ", i);
      return OkStatus();
    });
    ASSERT_FALSE(done.has_value());
    EXPECT_EQ(done.error().kind, ErrorKind::kNotFound);
    EXPECT_EQ(done.error().message, "index 0");
    // One thread stops at the error; more may finish what they had started.
    if (threads == 1) EXPECT_EQ(started.load(), 1);
  }
}

TEST(ParallelForTest, AnExceptionIsAnErrorNotATermination) {
  for (int threads : {1, 4}) {
    Status done = ParallelFor(16, threads, [&](size_t i) -> Status {
      if (i == 3) throw std::runtime_error("no memory for index 3");
      return OkStatus();
    });
    ASSERT_FALSE(done.has_value());
    EXPECT_EQ(done.error().kind, ErrorKind::kInternal);
    EXPECT_EQ(done.error().message, "no memory for index 3");
  }
}

TEST(ParallelForTest, NothingToDoIsOk) {
  bool ran = false;
  EXPECT_TRUE(ParallelFor(0, 8, [&](size_t) -> Status {
                ran = true;
                return OkStatus();
              }).has_value());
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace skade
