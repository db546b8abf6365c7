// One lock per table (catalog/table_locks.h): tables never share one, one
// table is held by one caller at a time, and a table's entry goes once no
// one holds or waits for it.
#include "skade/catalog/table_locks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "skade/util/strings.h"
#include "testing/gate.h"

namespace skade::catalog {
namespace {

// Striped locks would share a mutex among these, and one thread taking
// them all would wait for itself (this test then hangs).
TEST(TableLocksTest, ManyTablesAreHeldAtOnce) {
  TableLocks locks;
  std::vector<TableLocks::Held> held;
  for (int i = 0; i < 1000; ++i) held.push_back(locks.Lock(StrCat("table", i)));
  EXPECT_EQ(locks.Count(), 1000u);
  held.clear();
  EXPECT_EQ(locks.Count(), 0u);
}

TEST(TableLocksTest, OneTableIsHeldByOneCallerAtATime) {
  TableLocks locks;
  std::atomic<bool> released{false};
  std::atomic<bool> second_saw_release{false};
  std::thread second;
  {
    auto held = locks.Lock("table");
    second = std::thread([&] {
      auto again = locks.Lock("table");
      second_saw_release = released.load();
    });
    // Time for the second caller to reach the lock (if it took it, it
    // sees no release).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    released = true;
  }
  second.join();
  EXPECT_TRUE(second_saw_release);
  EXPECT_EQ(locks.Count(), 0u);
}

// A waiter keeps the table's lock alive when its holder lets go: the lock it
// then holds is the one a third caller waits for (were the entry dropped
// under the waiter, the third would make a fresh one and not wait).
TEST(TableLocksTest, AWaiterKeepsTheLockItWaitsFor) {
  TableLocks locks;
  std::atomic<bool> second_holds{false};
  std::atomic<bool> second_released{false};
  std::atomic<bool> third_saw_release{false};
  skade::testing::Gate second_may_release;
  std::thread second, third;
  {
    auto first = locks.Lock("table");
    second = std::thread([&] {
      auto held = locks.Lock("table");
      second_holds = true;
      second_may_release.Wait();
      second_released = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the second waits
  }
  skade::testing::WaitUntil([&] { return second_holds.load(); });
  third = std::thread([&] {
    auto held = locks.Lock("table");
    third_saw_release = second_released.load();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the third waits
  second_may_release.Open();
  second.join();
  third.join();
  EXPECT_TRUE(third_saw_release);
  EXPECT_EQ(locks.Count(), 0u);
}

TEST(TableLocksTest, AHeldLockMovesWithoutReleasing) {
  TableLocks locks;
  std::vector<TableLocks::Held> held;
  held.reserve(1);
  {
    auto first = locks.Lock("a");
    held.push_back(std::move(first));
  }
  EXPECT_EQ(locks.Count(), 1u);
  held.push_back(locks.Lock("b"));  // grows the vector: moves the first again
  EXPECT_EQ(locks.Count(), 2u);
  held.clear();
  EXPECT_EQ(locks.Count(), 0u);
}

}  // namespace
}  // namespace skade::catalog
