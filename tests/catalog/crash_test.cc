// A writer killed with SIGKILL at random moments — including between writing
// a metadata file and swapping the pointer — never loses an acknowledged
// commit and never leaves the table unreadable.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "skade/catalog/embedded_catalog.h"
#include "skade/io/location.h"
#include "skade/store/catalog_store.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"
#include "testing/worker_process.h"

namespace skade::catalog {
namespace {

using testing::IsOk;

// Creates `id` (and its namespace) in the warehouse `options` names.
void CreateTable(const EmbeddedCatalogOptions& options, const TableIdentifier& id) {
  auto catalog = EmbeddedCatalog::Open(options);
  ASSERT_TRUE(catalog);
  ASSERT_THAT((*catalog)->CreateNamespace(id.ns, {}), IsOk());
  CreateTableRequest request;
  request.name = id.name;
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  ASSERT_TRUE((*catalog)->CreateTable(id.ns, request));
}

TEST(CrashTest, KilledWritersLoseNoAcknowledgedCommit) {
  testing::TempDir dir;
  TableIdentifier id{{"n"}, "t"};
  {
    EmbeddedCatalogOptions options;
    options.warehouse = dir.path();
    options.store_map_size = 1ull << 30;
    ASSERT_NO_FATAL_FAILURE(CreateTable(options, id));
  }

  std::mt19937 random(20261129);
  std::set<int64_t> acknowledged;
  int injected = 0;
  int external = 0;
  constexpr int kRounds = 24;
  for (int round = 0; round < kRounds; ++round) {
    // Even rounds crash inside the commit path (after the metadata file is
    // written, before the pointer swap); odd rounds are killed from outside.
    bool inject = round % 2 == 0;
    auto worker =
        testing::WorkerProcess::Start({dir.path(), "n.t", "1000000", inject ? "0.15" : "0"});
    if (!inject) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 200));
      worker.Kill();
    }
    auto outcome = worker.Wait();
    ASSERT_EQ(outcome.signal, SIGKILL)
        << "worker exited " << outcome.exit_code << ": " << outcome.stderr_text;
    (inject ? injected : external)++;
    acknowledged.insert(outcome.acks.begin(), outcome.acks.end());

    // A fresh open after the crash must see a complete, readable table.
    EmbeddedCatalogOptions options;
    options.warehouse = dir.path();
    options.store_map_size = 1ull << 30;
    auto catalog = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(catalog) << catalog.error().ToString();
    auto loaded = (*catalog)->LoadTable(id);
    ASSERT_TRUE(loaded) << "round " << round << ": " << loaded.error().ToString();
    const auto& m = *loaded->metadata;
    for (int64_t ack : acknowledged) {
      ASSERT_NE(m.SnapshotById(ack), nullptr) << "round " << round << " lost snapshot " << ack;
    }
    // History stays one chain.
    size_t chain = 0;
    for (auto s = m.CurrentSnapshot(); s;
         s = s->parent_snapshot_id ? m.SnapshotById(*s->parent_snapshot_id) : nullptr) {
      ++chain;
    }
    EXPECT_EQ(chain, m.snapshots.size());
  }
  EXPECT_EQ(injected + external, kRounds);
  EXPECT_GT(acknowledged.size(), 0u);
}

// At immediate a killed writer leaves the metadata files of its last commits
// journaled in the store (its flusher had not released them). The page cache
// keeps them whole across kill -9; here some are torn and one is removed
// too, as a power loss could. The next open restores them from the store.
TEST(CrashTest, KilledImmediateWriterLeavesJournaledFilesThatOpenRestores) {
  testing::TempDir dir;
  TableIdentifier id{{"n"}, "t"};
  EmbeddedCatalogOptions options;
  options.warehouse = dir.path();
  options.store_map_size = 1ull << 30;
  options.durability = store::Durability::kImmediate;
  ASSERT_NO_FATAL_FAILURE(CreateTable(options, id));

  // No flush round in the worker's life.
  auto worker = testing::WorkerProcess::Start({dir.path(), "n.t", "1000000", "0", "3600000"});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(worker.NextAck());
  worker.Kill();
  auto outcome = worker.Wait();
  ASSERT_EQ(outcome.signal, SIGKILL) << outcome.stderr_text;
  ASSERT_GE(outcome.acks.size(), 20u);

  std::vector<store::JournaledFile> journal;
  {
    store::CatalogStoreOptions store_options;
    store_options.map_size = options.store_map_size;
    auto opened = store::CatalogStore::Open(dir.Sub(".skade/catalog"), store_options);
    ASSERT_THAT(opened, IsOk());
    auto files = (*opened)->ReadJournaledFiles();
    ASSERT_THAT(files, IsOk());
    journal = std::move(*files);
  }
  ASSERT_GE(journal.size(), 20u) << "the killed worker's files were not left journaled";
  auto path = [](const store::JournaledFile& file) { return *io::LocalPath(file.location); };
  std::filesystem::resize_file(path(journal.back()), journal.back().size() / 3);
  std::filesystem::remove(path(journal[journal.size() - 2]));
  {
    std::ofstream garble(path(journal[0]), std::ios::binary | std::ios::trunc);
    garble << "{\"format-version\": ";
  }

  auto catalog = EmbeddedCatalog::Open(options);
  ASSERT_TRUE(catalog) << catalog.error().ToString();
  auto loaded = (*catalog)->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  for (int64_t ack : outcome.acks) {
    EXPECT_NE(loaded->metadata->SnapshotById(ack), nullptr) << "lost snapshot " << ack;
  }
  for (const auto& file : journal) {
    auto bytes = (*catalog)->file_io().ReadFile(file.location);
    ASSERT_THAT(bytes, IsOk());
    EXPECT_TRUE(store::Holds(file, *bytes)) << file.location;
  }
  EXPECT_TRUE((*catalog)->store().ReadJournaledFiles()->empty());
}

}  // namespace
}  // namespace skade::catalog
