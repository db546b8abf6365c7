// LmdbEnv's sharing of one environment per directory, and map growth while
// other transactions of the process are open.
#include "skade/store/lmdb/lmdb_env.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "skade/store/lmdb/lmdb_catalog_store.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::store::lmdb {
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
  LmdbOptions more_readers = Options(4 * kMiB, Durability::kNone);
  more_readers.max_readers += 1;
  EXPECT_THAT(LmdbEnv::Open(dir.Sub("env"), more_readers),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "cannot be reopened with more"));
  auto same = LmdbEnv::Open(dir.Sub("env"), Options(4 * kMiB, Durability::kNone));
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->get(), first->get());
}

TEST(LmdbEnvTest, SecondOpenWithLargerMapSizeGrowsTheSharedMap) {
  testing::TempDir dir;
  LmdbCatalogStoreOptions small;
  small.lmdb = Options(1 * kMiB);
  auto first = LmdbCatalogStore::Open(dir.Sub("env"), small);
  ASSERT_THAT(first, IsOk());
  LmdbCatalogStoreOptions large;
  large.lmdb = Options(64 * kMiB);
  auto second = LmdbCatalogStore::Open(dir.Sub("env"), large);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(&(*first)->env(), &(*second)->env());
  EXPECT_GE((*first)->env().MapSize(), 64 * kMiB);
  // Far more than the first open's 1 MiB fits now, through either handle.
  std::string big(256 * 1024, 'x');
  for (int i = 0; i < 16; ++i) {
    ASSERT_THAT((*first)->CreateNamespace({"n" + std::to_string(i)}, {{"p", big}}), IsOk());
  }
  // A smaller map size later never shrinks it.
  auto third = LmdbCatalogStore::Open(dir.Sub("env"), small);
  ASSERT_THAT(third, IsOk());
  EXPECT_GE((*third)->env().MapSize(), 64 * kMiB);
}

TEST(LmdbEnvTest, FullMapWithoutRoomToGrowIsKIo) {
  testing::TempDir dir;
  LmdbCatalogStoreOptions options;
  options.lmdb = Options(1 * kMiB);
  auto store = LmdbCatalogStore::Open(dir.Sub("env"), options);
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
  LmdbCatalogStoreOptions options;
  options.lmdb = Options(1 * kMiB);
  options.lmdb.max_map_size = 1ull << 30;
  auto opened = LmdbCatalogStore::Open(dir.Sub("env"), options);
  ASSERT_THAT(opened, IsOk());
  LmdbCatalogStore& store = **opened;
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

// A thread that holds a transaction while the map must grow cannot let the
// resize through; the resize gives up with a retryable error instead of
// waiting forever, and the same write succeeds once the reader is gone.
TEST(LmdbEnvTest, ResizeBlockedByAnOpenReaderFailsRetryablyInsteadOfHanging) {
  testing::TempDir dir;
  LmdbCatalogStoreOptions options;
  options.lmdb = Options(kMiB / 4);
  options.lmdb.max_map_size = 64 * kMiB;
  options.lmdb.resize_wait_ms = 200;
  auto opened = LmdbCatalogStore::Open(dir.Sub("env"), options);
  ASSERT_THAT(opened, IsOk());
  LmdbCatalogStore& store = **opened;
  // Within the 1 MiB a namespace's properties may take, beyond the map.
  Properties big{{"p", std::string(kMiB - 64, 'x')}};
  {
    auto reader = store.env().BeginRead();
    ASSERT_THAT(reader, IsOk());
    auto blocked = store.CreateNamespace({"n"}, big);
    ASSERT_THAT(blocked, IsErrorWithMessage(ErrorKind::kIo, "stayed open for 200 ms"));
    EXPECT_TRUE(blocked.error().retryable);
  }
  EXPECT_THAT(store.CreateNamespace({"n"}, big), IsOk());
  EXPECT_EQ((*store.GetNamespace({"n"}))->at("p").size(), kMiB - 64);
}

// Writes `bytes` into a database of its own in the environment at `path`, on
// a map of `map_size`, as another process would. Raw LMDB: an LmdbEnv
// inherited through fork() must not be used. Returns an LMDB code.
int GrowFromAnotherProcess(const std::string& path, uint64_t map_size, size_t bytes) {
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return rc;
  mdb_env_set_mapsize(env, map_size);
  mdb_env_set_maxdbs(env, 16);
  mdb_env_set_maxreaders(env, 1022);
  rc = mdb_env_open(env, path.c_str(), MDB_NOSYNC, 0644);
  MDB_txn* txn = nullptr;
  if (rc == 0) rc = mdb_txn_begin(env, nullptr, 0, &txn);
  MDB_dbi dbi = 0;
  if (rc == 0) rc = mdb_dbi_open(txn, "filler", MDB_CREATE, &dbi);
  std::string value(64 * 1024, 'f');
  for (size_t i = 0; rc == 0 && i * value.size() < bytes; ++i) {
    std::string key = std::to_string(i);
    MDB_val k{key.size(), key.data()};
    MDB_val v{value.size(), value.data()};
    rc = mdb_put(txn, dbi, &k, &v, 0);
  }
  if (rc == 0) {
    rc = mdb_txn_commit(txn);
  } else if (txn != nullptr) {
    mdb_txn_abort(txn);
  }
  mdb_env_close(env);
  return rc;
}

// Another process grows the map past this one's: the next transactions get
// MDB_MAP_RESIZED, and adopting the new size must wait for the readers of
// this process, which keep going meanwhile.
TEST(LmdbEnvTest, MapGrownByAnotherProcessIsAdoptedUnderConcurrentReaders) {
  testing::TempDir dir;
  LmdbCatalogStoreOptions options;
  options.lmdb = Options(1 * kMiB);
  auto opened = LmdbCatalogStore::Open(dir.Sub("env"), options);
  ASSERT_THAT(opened, IsOk());
  LmdbCatalogStore& store = **opened;
  ASSERT_THAT(store.CreateNamespace({"n"}, {{"k", "v"}}), IsOk());

  // Before any thread exists here, so the child is a plain copy.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(GrowFromAnotherProcess(store.env().path(), 64 * kMiB, 8 * kMiB));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << mdb_strerror(WEXITSTATUS(status));

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto properties = store.GetNamespace({"n"});
        if (!properties || !*properties || (*properties)->at("k") != "v") ++failures;
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 50; ++i) {
      if (!store.CreateNamespace({"m" + std::to_string(i)}, {})) ++failures;
    }
  });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_GE(store.env().MapSize(), 64 * kMiB);
}

// LMDB 0.9 begins a read at the last published transaction T and takes its
// root from meta page T&1 without checking the page is still T's. A reader
// delayed there while two commits land read T+2's root before T+2 was
// published (before it was durable), and its next read went back to T+1.
// Readers here check that what they see never goes back while a writer
// commits as fast as LMDB can (durability none: no syncs between commits).
TEST(LmdbEnvTest, ReadsNeverGoBackWhileCommitsLand) {
  testing::TempDir dir;
  auto opened = LmdbEnv::Open(dir.Sub("env"), Options(64 * kMiB));
  ASSERT_THAT(opened, IsOk());
  LmdbEnv& env = **opened;
  auto dbi = env.OpenDatabase("counter");
  ASSERT_THAT(dbi, IsOk());
  auto value_of = [](std::string_view text) { return std::stoull(std::string(text)); };

  constexpr uint64_t kCommits = 100'000;
  std::atomic<bool> done{false};
  std::atomic<int> went_back{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t last_seen = 0;
      while (!done) {
        auto txn = env.BeginRead();
        if (!txn) {
          ++failures;
          return;
        }
        auto value = txn->Get(*dbi, "n");
        if (!value) {
          ++failures;
          return;
        }
        uint64_t seen = *value ? value_of(**value) : 0;
        // The snapshot is the one its id names: each commit writes its own id.
        if (seen != 0 && seen != txn->id()) ++went_back;
        if (seen < last_seen) ++went_back;
        last_seen = seen;
      }
    });
  }
  for (uint64_t i = 0; i < kCommits && went_back == 0 && failures == 0; ++i) {
    auto txn = env.BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT(txn->Put(*dbi, "n", std::to_string(txn->id())), IsOk());
    ASSERT_THAT(txn->Commit(), IsOk());
  }
  done = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(went_back, 0);
}

}  // namespace
}  // namespace skade::store::lmdb
