// ScanPlanStore: plans kept per table under unguessable ids, paged out once,
// released when fully fetched, cancelled, expired or evicted to stay in
// bounds; every miss is NoSuchPlanId or NoSuchPlanTask.
#include "skade/rest/scan_plan_store.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "testing/matchers.h"

namespace skade::rest {
namespace {

using testing::IsError;
using testing::IsOk;

const spec::TableIdentifier kTable{{"ns"}, "t"};
const spec::TableIdentifier kOther{{"ns"}, "u"};

struct FakeClock {
  int64_t now = 1000;
  std::function<int64_t()> Function() {
    return [this] { return now; };
  }
};

TEST(ScanPlanStoreTest, PagesAreServedUntilEachWasFetchedOnce) {
  ScanPlanStore store;
  auto added = store.Add(kTable, {"page0", "page1", "page2"});
  ASSERT_THAT(added, IsOk());
  EXPECT_EQ(added->plan_id.size(), 32u);
  ASSERT_EQ(added->plan_tasks.size(), 3u);
  EXPECT_EQ(store.stats().plans, 1u);
  EXPECT_EQ(store.stats().bytes, 15u);

  EXPECT_EQ(**store.FetchPage(kTable, added->plan_tasks[1]), "page1");
  EXPECT_EQ(**store.FetchPage(kTable, added->plan_tasks[1]), "page1");  // again: a retry
  EXPECT_EQ(*store.PendingPlanTasks(kTable, added->plan_id),
            (std::vector<std::string>{added->plan_tasks[0], added->plan_tasks[2]}));
  EXPECT_EQ(**store.FetchPage(kTable, added->plan_tasks[0]), "page0");
  EXPECT_EQ(**store.FetchPage(kTable, added->plan_tasks[2]), "page2");
  // Every page fetched: released.
  EXPECT_EQ(store.stats().plans, 0u);
  EXPECT_EQ(store.stats().bytes, 0u);
  EXPECT_THAT(store.FetchPage(kTable, added->plan_tasks[0]), IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_THAT(store.PendingPlanTasks(kTable, added->plan_id), IsError(ErrorKind::kNoSuchPlanId));
}

TEST(ScanPlanStoreTest, APlanBelongsToItsTable) {
  ScanPlanStore store;
  auto added = *store.Add(kTable, {"a", "b"});
  EXPECT_THAT(store.PendingPlanTasks(kOther, added.plan_id), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(store.FetchPage(kOther, added.plan_tasks[0]), IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_THAT(store.Cancel(kOther, added.plan_id), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(store.PendingPlanTasks(kTable, added.plan_id), IsOk());
}

TEST(ScanPlanStoreTest, MalformedAndUnknownTokensAreNoSuchPlanTask) {
  ScanPlanStore store;
  auto added = *store.Add(kTable, {"a", "b"});
  for (const std::string& token :
       {std::string(), std::string("-"), added.plan_id, added.plan_id + "-", added.plan_id + "-2",
        added.plan_id + "--1", added.plan_id + "-x", added.plan_id + "-99999999999999999999",
        "0" + added.plan_tasks[0], std::string(100000, 'a') + "-0",
        // Other spellings of page 0: only the token handed out names it.
        added.plan_id + "-00", added.plan_id + "-+0", added.plan_id + "-+1"}) {
    EXPECT_THAT(store.FetchPage(kTable, token), IsError(ErrorKind::kNoSuchPlanTask)) << token;
  }
  EXPECT_THAT(store.PendingPlanTasks(kTable, "nope"), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_EQ(store.stats().plans, 1u);
}

TEST(ScanPlanStoreTest, IdsAreUniqueAndRandom) {
  ScanPlanStore store;
  std::set<std::string> ids;
  for (int i = 0; i < 200; ++i) ids.insert(store.Add(kTable, {"x"})->plan_id);
  EXPECT_EQ(ids.size(), 200u);
}

TEST(ScanPlanStoreTest, CancelDropsThePlan) {
  ScanPlanStore store;
  auto added = *store.Add(kTable, {"a", "b"});
  EXPECT_THAT(store.Cancel(kTable, added.plan_id), IsOk());
  EXPECT_THAT(store.Cancel(kTable, added.plan_id), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(store.FetchPage(kTable, added.plan_tasks[0]), IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_EQ(store.stats().bytes, 0u);
}

TEST(ScanPlanStoreTest, PlansExpire) {
  FakeClock clock;
  ScanPlanStoreOptions options;
  options.lifetime_ms = 500;
  options.now_ms = clock.Function();
  ScanPlanStore store(options);
  auto added = *store.Add(kTable, {"a", "b"});
  clock.now += 499;
  EXPECT_THAT(store.FetchPage(kTable, added.plan_tasks[0]), IsOk());
  clock.now += 1;
  EXPECT_THAT(store.FetchPage(kTable, added.plan_tasks[1]), IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_THAT(store.PendingPlanTasks(kTable, added.plan_id), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_EQ(store.stats().plans, 0u);
}

TEST(ScanPlanStoreTest, BoundsEvictTheLeastRecentlyUsedPlans) {
  ScanPlanStoreOptions options;
  options.max_plans = 3;
  options.max_bytes = 10;
  ScanPlanStore store(options);
  auto a = *store.Add(kTable, {"aa"});
  auto b = *store.Add(kTable, {"bb"});
  auto c = *store.Add(kTable, {"cc"});
  ASSERT_THAT(store.PendingPlanTasks(kTable, a.plan_id), IsOk());  // a is now the newest use
  auto d = *store.Add(kTable, {"dd"});                             // over max_plans: b goes
  EXPECT_THAT(store.PendingPlanTasks(kTable, b.plan_id), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_EQ(store.stats().plans, 3u);
  auto e = *store.Add(kTable, {"eeeeee"});  // 6 + 6 > 10 bytes: c goes, then 4 + 6 fit
  EXPECT_THAT(store.PendingPlanTasks(kTable, c.plan_id), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(store.PendingPlanTasks(kTable, a.plan_id), IsOk());
  EXPECT_THAT(store.PendingPlanTasks(kTable, d.plan_id), IsOk());
  EXPECT_THAT(store.PendingPlanTasks(kTable, e.plan_id), IsOk());
  EXPECT_EQ(store.stats().bytes, 10u);
  // One plan larger than the whole store is refused, and evicts nothing.
  EXPECT_THAT(store.Add(kTable, {"0123456789", "x"}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(store.stats().plans, 3u);
}

TEST(ScanPlanStoreTest, ConcurrentClientsEachGetTheirPages) {
  ScanPlanStore store;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::string mine = std::to_string(t) + ":" + std::to_string(i);
        auto added = store.Add(kTable, {mine + "/0", mine + "/1"});
        if (!added) {
          ++wrong;
          continue;
        }
        for (int page = 0; page < 2; ++page) {
          auto got = store.FetchPage(kTable, added->plan_tasks[page]);
          if (!got || **got != mine + "/" + std::to_string(page)) ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(store.stats().plans, 0u);
}

}  // namespace
}  // namespace skade::rest
