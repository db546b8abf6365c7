// Many writers on one table — threads in one process, and separate
// processes — lose nothing and keep one linear history.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mutex>
#include <set>
#include <thread>

#include "skade/catalog/embedded_catalog.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"
#include "testing/worker_process.h"

namespace skade::catalog {
namespace {

using testing::IsOk;

spec::SchemaPtr OneColumn() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
}

std::shared_ptr<EmbeddedCatalog> OpenWithTable(const std::string& warehouse,
                                               const TableIdentifier& id) {
  EmbeddedCatalogOptions options;
  options.warehouse = warehouse;
  options.store_map_size = 1ull << 30;
  auto catalog = EmbeddedCatalog::Open(options);
  EXPECT_TRUE(catalog) << catalog.error().ToString();
  EXPECT_THAT((*catalog)->CreateNamespace(id.ns, {}), IsOk());
  CreateTableRequest request;
  request.name = id.name;
  request.schema = OneColumn();
  EXPECT_TRUE((*catalog)->CreateTable(id.ns, request));
  return *catalog;
}

// Checks the table's main branch is one parent chain holding exactly
// `expected` (in some order) and returns its length.
void ExpectLinearHistory(Catalog& catalog, const TableIdentifier& id,
                         const std::set<int64_t>& expected) {
  auto loaded = catalog.LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  const auto& m = *loaded->metadata;
  std::set<int64_t> chain;
  int64_t expected_sequence = m.last_sequence_number;
  for (auto snapshot = m.CurrentSnapshot(); snapshot;
       snapshot = snapshot->parent_snapshot_id ? m.SnapshotById(*snapshot->parent_snapshot_id)
                                               : nullptr) {
    ASSERT_TRUE(chain.insert(snapshot->snapshot_id).second) << "cycle in history";
    EXPECT_EQ(snapshot->sequence_number, expected_sequence--);
  }
  EXPECT_EQ(chain.size(), m.snapshots.size());
  EXPECT_EQ(chain, expected);
  EXPECT_EQ(m.snapshot_log.size(), expected.size());
}

TEST(ConcurrencyTest, EightThreadsTimesTwoHundredCommitsToOneTable) {
  testing::TempDir dir;
  TableIdentifier id{{"n"}, "t"};
  auto catalog = OpenWithTable(dir.path(), id);
  constexpr int kThreads = 8;
  constexpr int kCommits = 200;
  std::mutex mutex;
  std::set<int64_t> acknowledged;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCommits; ++i) {
        int retries = 0;
        auto snapshot_id = testing::FastAppend(*catalog, id, &retries);
        ASSERT_TRUE(snapshot_id) << snapshot_id.error().ToString();
        conflicts += retries;
        std::lock_guard<std::mutex> lock(mutex);
        acknowledged.insert(*snapshot_id);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(acknowledged.size(), static_cast<size_t>(kThreads * kCommits));
  ExpectLinearHistory(*catalog, id, acknowledged);
  RecordProperty("client_conflict_retries", conflicts.load());
}

TEST(ConcurrencyTest, FourProcessesTimesOneHundredCommitsToOneTable) {
  testing::TempDir dir;
  TableIdentifier id{{"n"}, "t"};
  auto catalog = OpenWithTable(dir.path(), id);
  std::vector<testing::WorkerProcess> workers;
  for (int p = 0; p < 4; ++p) {
    workers.push_back(testing::WorkerProcess::Start({dir.path(), "n.t", "100"}));
  }
  std::set<int64_t> acknowledged;
  for (auto& worker : workers) {
    auto result = worker.Wait();
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    EXPECT_EQ(result.acks.size(), 100u);
    acknowledged.insert(result.acks.begin(), result.acks.end());
  }
  ASSERT_EQ(acknowledged.size(), 400u);
  ExpectLinearHistory(*catalog, id, acknowledged);
}

}  // namespace
}  // namespace skade::catalog
