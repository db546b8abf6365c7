// The cached read path (pointer mirror + metadata cache) never answers with
// anything but the table's current metadata file once a commit returned,
// readers during a commit storm see complete tables that only move forward,
// and concurrent cold loads of one file read it once.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "skade/cache/epoch.h"
#include "skade/catalog/embedded_catalog.h"
#include "testing/counting_file_io.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

spec::SchemaPtr OneColumn() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
}

std::shared_ptr<EmbeddedCatalog> Open(const std::string& warehouse,
                                      std::shared_ptr<io::FileIO> file_io = nullptr,
                                      store::Durability durability = store::Durability::kNone) {
  EmbeddedCatalogOptions options;
  options.warehouse = warehouse;
  options.durability = durability;
  options.store_map_size = 1ull << 30;
  options.file_io = std::move(file_io);
  auto catalog = EmbeddedCatalog::Open(options);
  EXPECT_TRUE(catalog) << catalog.error().ToString();
  return *catalog;
}

void CreateTables(EmbeddedCatalog& catalog, const std::vector<TableIdentifier>& ids) {
  for (const auto& id : ids) {
    if (!*catalog.NamespaceExists(id.ns)) {
      ASSERT_THAT(catalog.CreateNamespace(id.ns, {}), IsOk());
    }
    CreateTableRequest request;
    request.name = id.name;
    request.schema = OneColumn();
    ASSERT_TRUE(catalog.CreateTable(id.ns, request));
  }
}

// A client's fast append, retried on conflict; returns the sequence number
// of the snapshot it committed.
Result<int64_t> Append(Catalog& catalog, const TableIdentifier& id) {
  int64_t snapshot_id = NewSnapshotId();
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(auto current, catalog.LoadTable(id));
    auto committed =
        catalog.CommitTable(testing::FastAppendRequest(id, *current.metadata, snapshot_id));
    if (committed) return committed->metadata->last_sequence_number;
    if (committed.error().kind != ErrorKind::kCommitFailed) {
      return tl::unexpected(committed.error());
    }
  }
}

// The main branch is one parent chain covering every snapshot, numbered
// without gaps up to last_sequence_number: a complete table.
bool IsComplete(const spec::TableMetadata& m) {
  size_t chain = 0;
  int64_t expected_sequence = m.last_sequence_number;
  for (auto s = m.CurrentSnapshot(); s;
       s = s->parent_snapshot_id ? m.SnapshotById(*s->parent_snapshot_id) : nullptr) {
    if (s->sequence_number != expected_sequence--) return false;
    ++chain;
  }
  return chain == m.snapshots.size() && expected_sequence == 0;
}

TEST(ReadPathTest, AfterACommitReturnsReadsServeExactlyThePointersFile) {
  testing::TempDir dir;
  auto catalog = Open(dir.path());
  TableIdentifier id{{"n"}, "t"};
  CreateTables(*catalog, {id});
  for (int i = 0; i < 50; ++i) {
    auto current = catalog->LoadTable(id);
    ASSERT_TRUE(current);
    auto committed =
        catalog->CommitTable(testing::FastAppendRequest(id, *current->metadata, 100 + i));
    ASSERT_TRUE(committed) << committed.error().ToString();
    auto pointer = catalog->store().GetTable(id);
    ASSERT_TRUE(pointer && *pointer);
    ASSERT_EQ((*pointer)->metadata_location, committed->metadata_location);
    auto loaded = catalog->LoadTable(id);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->metadata_location, committed->metadata_location);
    // The committed metadata itself is served (write-through), not a re-read.
    EXPECT_EQ(loaded->metadata.get(), committed->metadata.get());
    auto resolved = catalog->ResolveMetadata(id);
    ASSERT_TRUE(resolved);
    EXPECT_EQ(resolved->get(), committed->metadata.get());
    EXPECT_EQ((*resolved)->current_snapshot_id, 100 + i);
  }
}

TEST(ReadPathTest, MissesAreConfirmedAndNamesAreValidated) {
  testing::TempDir dir;
  auto catalog = Open(dir.path());
  TableIdentifier id{{"n"}, "t"};
  CreateTables(*catalog, {id});
  EXPECT_TRUE(*catalog->TableExists(id));
  EXPECT_FALSE(*catalog->TableExists({{"n"}, "other"}));
  EXPECT_THAT(catalog->ResolveMetadata({{"n"}, "other"}), IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(catalog->LoadTable({{"n"}, "other"}), IsError(ErrorKind::kNoSuchTable));
  // "n\x1Ft" would alias another table's store key if names were not checked.
  EXPECT_THAT(catalog->TableExists({{std::string("n\x1f") + "x"}, "t"}),
              IsError(ErrorKind::kInvalidArgument));
  ASSERT_THAT(catalog->DropTable(id, false), IsOk());
  EXPECT_FALSE(*catalog->TableExists(id));
  EXPECT_THAT(catalog->ResolveMetadata(id), IsError(ErrorKind::kNoSuchTable));
}

TEST(ReadPathTest, MetadataCacheSizeIsValidated) {
  testing::TempDir dir;
  EmbeddedCatalogOptions options;
  options.warehouse = dir.path();
  options.store_map_size = 1ull << 30;
  options.metadata_cache_bytes = 1 << 20;
  EXPECT_THAT(EmbeddedCatalog::Open(options), IsError(ErrorKind::kInvalidArgument));
  options.metadata_cache_bytes = 10ull << 20;
  auto catalog = EmbeddedCatalog::Open(options);
  ASSERT_TRUE(catalog);
  EXPECT_EQ((*catalog)->metadata_cache().capacity_bytes(), 10ull << 20);
}

// Writers append to two tables while readers poll them. Each reader checks
// that every table it sees is complete, never older than what it saw before,
// and never older than a commit that had returned before its read began.
TEST(ReadPathTest, ReadersDuringACommitStormSeeCompleteTablesMovingForward) {
  testing::TempDir dir;
  auto catalog = Open(dir.path());
  std::vector<TableIdentifier> ids{{{"n"}, "a"}, {{"n"}, "b"}};
  CreateTables(*catalog, ids);
  std::vector<std::atomic<int64_t>> returned(ids.size());  // sequence numbers acknowledged
  std::atomic<int> writers_left{4};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 60; ++i) {
        size_t t = static_cast<size_t>(w + i) % ids.size();
        auto appended = Append(*catalog, ids[t]);
        if (!appended) {
          ++failures;
          continue;
        }
        // This commit has returned: no later read may see an older table.
        int64_t sequence = *appended;
        int64_t floor = returned[t].load();
        while (sequence > floor && !returned[t].compare_exchange_weak(floor, sequence)) {
        }
      }
      --writers_left;
    });
  }
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      std::vector<int64_t> last_seen(ids.size(), 0);
      while (writers_left > 0) {
        for (size_t t = 0; t < ids.size(); ++t) {
          int64_t floor = returned[t].load();
          spec::TableMetadataPtr m;
          if (r == 0) {
            auto loaded = catalog->LoadTable(ids[t]);
            if (loaded) m = loaded->metadata;
          } else {
            auto resolved = catalog->ResolveMetadata(ids[t]);
            if (resolved) m = *resolved;
          }
          if (!m || !IsComplete(*m) || m->last_sequence_number < last_seen[t] ||
              m->last_sequence_number < floor) {
            ++failures;
            continue;
          }
          last_seen[t] = m->last_sequence_number;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (const auto& id : ids) {
    auto m = catalog->ResolveMetadata(id);
    ASSERT_TRUE(m);
    EXPECT_EQ((*m)->snapshots.size(), 120u);
    EXPECT_TRUE(IsComplete(**m));
  }
}

// A second catalog on the warehouse starts with cold caches; many threads
// loading the same table at once read its metadata file once.
TEST(ReadPathTest, ConcurrentColdLoadsReadTheMetadataFileOnce) {
  testing::TempDir dir;
  TableIdentifier id{{"n"}, "t"};
  std::string location;
  {
    auto writer = Open(dir.path());
    CreateTables(*writer, {id});
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(testing::FastAppend(*writer, id));
    location = writer->LoadTable(id)->metadata_location;
  }
  auto counting = std::make_shared<testing::CountingFileIO>(io::NewLocalFileIO());
  auto catalog = Open(dir.path(), counting);
  constexpr int kThreads = 16;
  std::atomic<int> ready{0};
  std::atomic<int> same{0};
  std::vector<spec::TableMetadataPtr> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (ready < kThreads) std::this_thread::yield();
      auto loaded = catalog->LoadTable(id);
      if (loaded) results[t] = loaded->metadata;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counting->Reads(location), 1);
  EXPECT_EQ(catalog->metadata_cache().stats().loads, 1u);
  for (const auto& m : results) {
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m.get(), results[0].get());
  }
  // Warm from now on: no more reads.
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(catalog->ResolveMetadata(id));
  EXPECT_EQ(counting->Reads(location), 1);
}

}  // namespace
}  // namespace skade::catalog
