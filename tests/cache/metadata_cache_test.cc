#include "skade/cache/metadata_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "skade/cache/epoch.h"
#include "testing/matchers.h"

namespace skade::cache {
namespace {

using testing::IsError;

constexpr size_t kMiB = 1ull << 20;

std::unique_ptr<MetadataCache> MakeCache(size_t capacity, size_t shards = 16) {
  auto cache = MetadataCache::Make({capacity, shards});
  EXPECT_TRUE(cache) << cache.error().ToString();
  return std::move(*cache);
}

// A file whose JSON text has `json_bytes` bytes (the metadata is a real,
// empty TableMetadata: the cache never looks inside).
MetadataFile FileOfSize(size_t json_bytes, char fill = 'x') {
  return {std::make_shared<const spec::TableMetadata>(),
          std::make_shared<const std::string>(json_bytes, fill)};
}

std::string Location(int i) { return "file:///w/t/metadata/" + std::to_string(i) + ".json"; }

bool Cached(const MetadataCache& cache, const std::string& location) {
  EpochGuard guard;
  return cache.Lookup(location, MetadataCache::Hash(location)) != nullptr;
}

TEST(MetadataCacheTest, CapacityIsValidated) {
  EXPECT_THAT(MetadataCache::Make({MetadataCache::kMinCapacityBytes - 1, 16}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(MetadataCache::Make({MetadataCache::kMaxCapacityBytes + 1, 16}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(MetadataCache::Make({16 * kMiB, 3}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_TRUE(MetadataCache::Make({MetadataCache::kMinCapacityBytes, 1}));
  EXPECT_TRUE(MetadataCache::Make({MetadataCache::kMaxCapacityBytes, 256}));
}

// Shards are only there to spread the lock; by default none is so small
// that a table with a long history (10,000 snapshots: ~3 MB of JSON, ~12 MB
// of weight) cannot be kept — a rejected file is read and parsed again on
// every load and every commit.
TEST(MetadataCacheTest, DefaultShardsKeepTheMetadataOfLongHistories) {
  auto cache = MetadataCache::Make({});
  ASSERT_TRUE(cache);
  EXPECT_EQ((*cache)->shards(), 4u);
  EXPECT_EQ(MetadataCache::Make({MetadataCache::kMinCapacityBytes, 0}).value()->shards(), 1u);
  EXPECT_EQ(MetadataCache::Make({MetadataCache::kMaxCapacityBytes, 0}).value()->shards(), 16u);
  EXPECT_EQ(MetadataCache::Make({64 * kMiB, 8}).value()->shards(), 8u);

  const std::string location = Location(1);
  (*cache)->Insert(location, MetadataCache::Hash(location), FileOfSize(3 * kMiB));
  EXPECT_TRUE(Cached(**cache, location));
  EXPECT_EQ((*cache)->stats().rejected, 0u);
}

TEST(MetadataCacheTest, LoadsOnceThenHitsAndReturnsTheSameObjects) {
  auto cache = MakeCache(16 * kMiB);
  std::string location = Location(1);
  uint64_t hash = MetadataCache::Hash(location);
  MetadataFile file = FileOfSize(1000);
  int loads = 0;
  auto load = [&]() -> Result<MetadataFile> {
    ++loads;
    return file;
  };
  auto first = cache->GetOrLoad(location, hash, load);
  auto second = cache->GetOrLoad(location, hash, load);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(second->metadata.get(), file.metadata.get());
  EXPECT_EQ(second->json.get(), file.json.get());
  {
    EpochGuard guard;
    const MetadataFile* hit = cache->Lookup(location, hash);
    ASSERT_NE(hit, nullptr);
    EXPECT_EQ(hit->json.get(), file.json.get());
  }
  EXPECT_FALSE(Cached(*cache, Location(2)));
  EXPECT_EQ(cache->stats().entries, 1u);
  EXPECT_EQ(cache->stats().loads, 1u);
  // The second GetOrLoad and the Lookup found it; the miss on Location(2)
  // is no hit (and no load: Lookup never loads).
  EXPECT_EQ(cache->stats().hits, 2u);
}

TEST(MetadataCacheTest, HoldsCountsNoHit) {
  auto cache = MakeCache(16 * kMiB);
  std::string location = Location(1);
  uint64_t hash = MetadataCache::Hash(location);
  {
    EpochGuard guard;
    EXPECT_FALSE(cache->Holds(location, hash));
  }
  cache->Insert(location, hash, FileOfSize(1000));
  {
    EpochGuard guard;
    EXPECT_TRUE(cache->Holds(location, hash));
    EXPECT_FALSE(cache->Holds(Location(2), MetadataCache::Hash(Location(2))));
  }
  // A caller that asks before it reads counts one hit for the read only.
  EXPECT_EQ(cache->stats().hits, 0u);
  EXPECT_EQ(cache->stats().loads, 0u);
}

TEST(MetadataCacheTest, FailedLoadIsReturnedAndNotCached) {
  auto cache = MakeCache(16 * kMiB);
  std::string location = Location(1);
  uint64_t hash = MetadataCache::Hash(location);
  int loads = 0;
  auto failing = [&]() -> Result<MetadataFile> {
    ++loads;
    return MakeError(ErrorKind::kIo, "disk on fire");
  };
  EXPECT_THAT(cache->GetOrLoad(location, hash, failing), IsError(ErrorKind::kIo));
  EXPECT_THAT(cache->GetOrLoad(location, hash, failing), IsError(ErrorKind::kIo));
  EXPECT_EQ(loads, 2);
  EXPECT_FALSE(Cached(*cache, location));
  EXPECT_TRUE(
      cache->GetOrLoad(location, hash, [] { return Result<MetadataFile>(FileOfSize(10)); }));
  EXPECT_TRUE(Cached(*cache, location));
}

// Regression: a loader that threw left its single-flight entry behind, and
// every later miss on the key waited forever (REST: 500 until restart).
TEST(MetadataCacheTest, LoaderThatThrowsLeavesNoFlightBehind) {
  auto cache = MakeCache(64 * kMiB);
  std::string location = Location(1);
  uint64_t hash = MetadataCache::Hash(location);
  auto throwing = []() -> Result<MetadataFile> { throw std::runtime_error("parser blew up"); };
  EXPECT_THAT(cache->GetOrLoad(location, hash, throwing), IsError(ErrorKind::kInternal));
  auto next = std::async(std::launch::async, [&] {
    return cache->GetOrLoad(location, hash, [] { return Result<MetadataFile>(FileOfSize(10)); });
  });
  ASSERT_EQ(next.wait_for(std::chrono::seconds(120)), std::future_status::ready);
  EXPECT_TRUE(next.get());
}

// Many threads miss on one key at once: the loader runs once and everyone
// gets its result. Misses on other keys meanwhile are not held up by it.
TEST(MetadataCacheTest, ConcurrentMissesOnOneKeyLoadOnceOthersProceed) {
  auto cache = MakeCache(16 * kMiB);
  std::string hot = Location(1);
  std::atomic<int> hot_loads{0};
  std::atomic<bool> release_hot{false};
  MetadataFile file = FileOfSize(1000);
  auto slow_load = [&]() -> Result<MetadataFile> {
    ++hot_loads;
    while (!release_hot) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return file;
  };
  constexpr int kThreads = 16;
  std::vector<std::thread> threads;
  std::atomic<int> same_object{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      auto loaded = cache->GetOrLoad(hot, MetadataCache::Hash(hot), slow_load);
      if (loaded && loaded->json.get() == file.json.get()) ++same_object;
    });
  }
  // While the hot key's load is stuck, other keys (also in its shard) load.
  for (int i = 2; i < 200; ++i) {
    std::string other = Location(i);
    ASSERT_TRUE(cache->GetOrLoad(other, MetadataCache::Hash(other),
                                 [] { return Result<MetadataFile>(FileOfSize(100)); }));
  }
  release_hot = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(hot_loads.load(), 1);
  EXPECT_EQ(same_object.load(), kThreads);
}

// Writers insert far more than fits, from several threads; a monitor checks
// the bound the whole time and the ledger matches the entries at the end.
TEST(MetadataCacheTest, StaysWithinItsByteBoundUnderConcurrentInserts) {
  constexpr size_t kCapacity = 10 * kMiB;
  auto cache = MakeCache(kCapacity);
  std::atomic<bool> stop{false};
  std::atomic<size_t> worst{0};
  std::thread monitor([&] {
    while (!stop) {
      size_t bytes = cache->stats().bytes;
      if (bytes > worst) worst = bytes;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < 3000; ++i) {
        std::string location = Location(w * 100000 + i);
        size_t size = 1000 + static_cast<size_t>((i * 7919) % 60000);
        if (i % 3 == 0) {
          cache->Insert(location, MetadataCache::Hash(location), FileOfSize(size));
        } else {
          (void)cache->GetOrLoad(location, MetadataCache::Hash(location),
                                 [&] { return Result<MetadataFile>(FileOfSize(size)); });
        }
      }
    });
  }
  for (auto& writer : writers) writer.join();
  stop = true;
  monitor.join();
  auto stats = cache->stats();
  EXPECT_LE(worst.load(), kCapacity);
  EXPECT_LE(stats.bytes, kCapacity);
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_GT(stats.bytes, kCapacity / 2) << "evicts far more than it must";
  // A file heavier than a shard is served but not kept.
  std::string huge = Location(-1);
  auto loaded = cache->GetOrLoad(huge, MetadataCache::Hash(huge),
                                 [] { return Result<MetadataFile>(FileOfSize(kCapacity)); });
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(Cached(*cache, huge));
  EXPECT_EQ(cache->stats().rejected, 1u);
}

// A hot working set read repeatedly survives a one-time scan of many cold
// files that alone would fill the cache several times over.
TEST(MetadataCacheTest, OneTimeScanDoesNotFlushTheHotSet) {
  constexpr size_t kCapacity = 10 * kMiB;
  auto cache = MakeCache(kCapacity, 1);
  constexpr size_t kFile = 20000;
  size_t weight = MetadataCache::EstimatedWeight(Location(0), FileOfSize(kFile));
  size_t hot_count = (kCapacity / weight) / 2;  // half the cache
  auto read = [&](int i) {
    std::string location = Location(i);
    return cache->GetOrLoad(location, MetadataCache::Hash(location),
                            [&] { return Result<MetadataFile>(FileOfSize(kFile)); });
  };
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < hot_count; ++i) ASSERT_TRUE(read(static_cast<int>(i)));
  }
  uint64_t loads_before_scan = cache->stats().loads;
  size_t scan = 5 * kCapacity / weight;
  for (size_t i = 0; i < scan; ++i) {
    ASSERT_TRUE(read(static_cast<int>(1000000 + i)));
    // The hot set stays in use during the scan.
    if (i % 16 == 0) {
      ASSERT_TRUE(read(static_cast<int>(i / 16 % hot_count)));
    }
  }
  EXPECT_EQ(cache->stats().loads, loads_before_scan + scan) << "hot entries were reloaded";
  for (size_t i = 0; i < hot_count; ++i) {
    EXPECT_TRUE(Cached(*cache, Location(static_cast<int>(i)))) << i;
  }
}

// Concurrent readers hit while writers churn the same shard: every hit
// returns the file inserted under that key (checked through its content).
TEST(MetadataCacheTest, HitsAreAlwaysTheirKeysFileUnderChurn) {
  auto cache = MakeCache(10 * kMiB, 1);
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  auto fill_for = [](int i) { return static_cast<char>('a' + i % 26); };
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        for (int i = 0; i < 500; ++i) {
          std::string location = Location(i);
          EpochGuard guard;
          const MetadataFile* hit = cache->Lookup(location, MetadataCache::Hash(location));
          if (hit != nullptr && (*hit->json)[0] != fill_for(i)) ++wrong;
        }
      }
    });
  }
  for (int i = 0; i < 20000; ++i) {
    int key = i % 500;
    std::string location = Location(key);
    cache->Insert(location, MetadataCache::Hash(location), FileOfSize(30000, fill_for(key)));
  }
  stop = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace skade::cache
