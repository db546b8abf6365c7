// LmdbEnv's sharing of one environment per directory, and map growth while
// other transactions of the process are open.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "skade/store/catalog_store.h"
#include "skade/store/lmdb.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

constexpr uint64_t kMiB = 1ull << 20;

LmdbOptions Options(uint64_t map_size, Durability durability = Durability::kNone) {
  LmdbOptions options;
  options.map_size = map_size;
  options.durability = durability;
  return options;
}

// Regression: a second Open() of an environment already open in the process
// returned the first one and silently ignored its durability and map size.
TEST(LmdbEnvTest, SecondOpenWithOtherDurabilityIsRefused) {
  testing::TempDir dir;
  auto first = LmdbEnv::Open(dir.Sub("env"), Options(4 * kMiB, Durability::kNone));
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(LmdbEnv::Open(dir.Sub("env"), Options(4 * kMiB, Durability::kImmediate)),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "is already open in this process with durability none"));
  auto same = LmdbEnv::Open(dir.Sub("env"), Options(4 * kMiB, Durability::kNone));
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->get(), first->get());
}

TEST(LmdbEnvTest, SecondOpenWithLargerMapSizeGrowsTheSharedMap) {
  testing::TempDir dir;
  CatalogStoreOptions small;
  small.lmdb = Options(1 * kMiB);
  auto first = CatalogStore::Open(dir.Sub("env"), small);
  ASSERT_THAT(first, IsOk());
  CatalogStoreOptions large;
  large.lmdb = Options(64 * kMiB);
  auto second = CatalogStore::Open(dir.Sub("env"), large);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(&(*first)->env(), &(*second)->env());
  EXPECT_GE((*first)->env().MapSize(), 64 * kMiB);
  // Far more than the first open's 1 MiB fits now, through either handle.
  std::string big(256 * 1024, 'x');
  for (int i = 0; i < 16; ++i) {
    ASSERT_THAT((*first)->CreateNamespace({"n" + std::to_string(i)}, {{"p", big}}), IsOk());
  }
  // A smaller map size later never shrinks it.
  auto third = CatalogStore::Open(dir.Sub("env"), small);
  ASSERT_THAT(third, IsOk());
  EXPECT_GE((*third)->env().MapSize(), 64 * kMiB);
}

TEST(LmdbEnvTest, FullMapWithoutRoomToGrowIsKIo) {
  testing::TempDir dir;
  CatalogStoreOptions options;
  options.lmdb = Options(1 * kMiB);
  auto store = CatalogStore::Open(dir.Sub("env"), options);
  ASSERT_THAT(store, IsOk());
  std::string big(256 * 1024, 'x');
  Status status = OkStatus();
  for (int i = 0; i < 16 && status; ++i) {
    status = (*store)->CreateNamespace({"n" + std::to_string(i)}, {{"p", big}});
  }
  EXPECT_THAT(status, IsErrorWithMessage(ErrorKind::kIo, "raise the store map size"));
}

// The map starts at 1 MiB and must grow many times while reader threads keep
// read transactions open: a resize under an open reader remaps the file under
// it (a crash or garbage), and a write that fills the map must be redone on
// the larger map, not lost.
TEST(LmdbEnvTest, MapGrowsUnderConcurrentReadersWithoutLosingWrites) {
  testing::TempDir dir;
  CatalogStoreOptions options;
  options.lmdb = Options(1 * kMiB);
  options.lmdb.max_map_size = 1ull << 30;
  auto opened = CatalogStore::Open(dir.Sub("env"), options);
  ASSERT_THAT(opened, IsOk());
  CatalogStore& store = **opened;
  ASSERT_THAT(store.CreateNamespace({"n"}, {}), IsOk());

  constexpr int kWriters = 2;
  constexpr int kTablesPerWriter = 150;
  const std::string padding(32 * 1024, 'p');  // ~10 MiB of pointers and commit log
  auto location = [&](int writer, int table) {
    return std::to_string(writer) + "/" + std::to_string(table) + "/" + padding;
  };
  std::atomic<bool> stop{false};
  std::atomic<int> bad_reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        auto pointers = store.ReadTablePointers();
        if (!pointers) {
          ++bad_reads;
          continue;
        }
        for (const auto& change : pointers->tables) {
          if (!change.record || !change.record->metadata_location.ends_with(padding)) ++bad_reads;
        }
      }
    });
  }
  std::vector<std::thread> writers;
  std::atomic<int> failed_writes{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int t = 0; t < kTablesPerWriter; ++t) {
        spec::TableIdentifier id{{"n"}, "t" + std::to_string(w) + "_" + std::to_string(t)};
        auto swapped = store.SwapPointers({{id, std::nullopt, location(w, t), {}}});
        if (!swapped) {
          ADD_FAILURE() << swapped.error().ToString();
          ++failed_writes;
          return;
        }
      }
    });
  }
  for (auto& writer : writers) writer.join();
  stop = true;
  for (auto& reader : readers) reader.join();

  EXPECT_EQ(failed_writes, 0);
  EXPECT_EQ(bad_reads, 0);
  EXPECT_GT(store.env().MapSize(), 8 * kMiB);
  auto pointers = store.ReadTablePointers();
  ASSERT_THAT(pointers, IsOk());
  EXPECT_EQ(pointers->tables.size(), size_t{kWriters * kTablesPerWriter});
  for (int w = 0; w < kWriters; ++w) {
    for (int t = 0; t < kTablesPerWriter; ++t) {
      auto record = store.GetTable({{"n"}, "t" + std::to_string(w) + "_" + std::to_string(t)});
      ASSERT_THAT(record, IsOk());
      ASSERT_TRUE(record->has_value());
      EXPECT_EQ((*record)->metadata_location, location(w, t));
    }
  }
  EXPECT_EQ(*store.CommitSeq(), uint64_t{kWriters * kTablesPerWriter});
}

}  // namespace
}  // namespace skade::store
