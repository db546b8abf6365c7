// Nothing acknowledged is lost: a committer process killed with SIGKILL at
// random moments, and a simulated power loss (FaultInjectionFileIO drops
// every write that was not synced) while many threads write. After each,
// a fresh open reads a complete table holding every acknowledged row.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "commit/committer_test_util.h"
#include "testing/fault_injection_file_io.h"
#include "testing/worker_process.h"

namespace skade::commit::testing {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const spec::Schema> IdSchema() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
}

std::shared_ptr<arrow::RecordBatch> IdRow(int64_t id) {
  arrow::Int64Builder ids;
  EXPECT_TRUE(ids.Append(id).ok());
  return arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64(), false)}), 1,
                                  {ids.Finish().ValueOrDie()});
}

// Every id in the table; fails the test unless every file the current
// snapshot names exists with its recorded size.
std::multiset<int64_t> IdsIn(const table::Table& table) {
  std::multiset<int64_t> ids;
  auto files = table::CurrentDataFiles(table);
  EXPECT_TRUE(files) << files.error().ToString();
  if (!files) return ids;
  for (const auto& file : *files) {
    auto size = table.io().FileSize(file.file_path);
    EXPECT_TRUE(size) << size.error().ToString();
    if (!size) continue;
    EXPECT_EQ(*size, file.file_size_in_bytes) << file.file_path;
    auto rows = ReadParquet(file.file_path)->CombineChunksToBatch().ValueOrDie();
    auto column = std::static_pointer_cast<arrow::Int64Array>(rows->column(0));
    for (int64_t i = 0; i < column->length(); ++i) ids.insert(column->Value(i));
  }
  return ids;
}

int Rounds(int brief, int long_mode) { return std::getenv("SKADE_LONG_TESTS") ? long_mode : brief; }

TEST_F(CommitterTest, KilledCommitterProcessesLoseNoAcknowledgedWrite) {
  Create("t", nullptr, {}, IdSchema());
  std::string warehouse = dir_.Sub("warehouse");
  catalog_.reset();
  std::mt19937 random(20261201);
  std::set<int64_t> acknowledged;
  const int rounds = Rounds(6, 40);
  for (int round = 0; round < rounds; ++round) {
    auto worker = skade::testing::WorkerProcess::Start(SKADE_COMMITTER_WORKER, {warehouse, "16"});
    // Killed at a random point, at least a few acknowledgements in.
    int wait_for = 3 + static_cast<int>(random() % 60);
    for (int i = 0; i < wait_for; ++i) {
      if (!worker.NextAck()) break;
    }
    worker.Kill();
    auto outcome = worker.Wait();
    ASSERT_EQ(outcome.signal, SIGKILL) << outcome.stderr_text;
    acknowledged.insert(outcome.acks.begin(), outcome.acks.end());

    OpenCatalog(io::NewLocalFileIO());
    std::multiset<int64_t> ids = IdsIn(Load("t"));
    for (int64_t id : acknowledged) {
      ASSERT_EQ(ids.count(id), 1u) << "round " << round << ": lost or duplicated " << id;
    }
    catalog_.reset();
  }
  EXPECT_GT(acknowledged.size(), static_cast<size_t>(rounds));
}

TEST_F(CommitterTest, APowerLossKeepsEveryAcknowledgedWrite) {
  std::mt19937 random(1201);
  const int rounds = Rounds(4, 20);
  std::set<int64_t> acknowledged;
  size_t lost_files = 0;
  Create("t", nullptr, {}, IdSchema());
  for (int round = 0; round < rounds; ++round) {
    auto io = std::make_shared<skade::testing::FaultInjectionFileIO>();
    committer_.reset();
    catalog_.reset();
    OpenCatalog(io);
    MakeCommitter();
    std::atomic<int64_t> acks{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int k = 0; k < 8; ++k) {
      threads.emplace_back([&, k] {
        for (int64_t i = 0; !stop; ++i) {
          int64_t id = (static_cast<int64_t>(round) << 40) + i * 8 + k;
          if (!committer_->Append({{"db"}, "t"}, IdRow(id))) return;  // the power went
          std::lock_guard<std::mutex> lock(mutex);
          acknowledged.insert(id);
          ++acks;
        }
      });
    }
    int64_t lose_after = 5 + static_cast<int64_t>(random() % 80);
    while (acks < lose_after) std::this_thread::yield();
    {
      // No acknowledgement may slip in between the loss and the tally.
      std::lock_guard<std::mutex> lock(mutex);
      lost_files += io->SimulatePowerLoss().size();
    }
    stop = true;
    for (auto& thread : threads) thread.join();
    committer_.reset();
    catalog_.reset();

    OpenCatalog(io::NewLocalFileIO());
    std::multiset<int64_t> ids = IdsIn(Load("t"));
    for (int64_t id : acknowledged) {
      ASSERT_EQ(ids.count(id), 1u) << "round " << round << ": lost or duplicated " << id;
    }
  }
  // The flushes' files went unsynced into the store's journal: the loss took
  // some, and reopening restored every one an acknowledged write needs.
  EXPECT_GT(lost_files, 0u);
}

}  // namespace
}  // namespace skade::commit::testing
