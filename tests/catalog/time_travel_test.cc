// Time travel through the commit log: LoadTableAt after expiry, as-of reads,
// ResolveMany, a table's history; the same answers under concurrent commits
// and index rebuilds; the index file reused by a reopen.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>

#include "skade/catalog/embedded_catalog.h"
#include "skade/spec/table_metadata_json.h"
#include "testing/fast_append.h"
#include "testing/gate.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

class TimeTravelTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open(bool background = false) {
    catalog_.reset();
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    options.commit_log_index.background = background;
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  LoadTableResult Create(const TableIdentifier& id, Properties properties = {}) {
    if (!*catalog_->NamespaceExists(id.ns)) {
      EXPECT_THAT(catalog_->CreateNamespace(id.ns, {}), IsOk());
    }
    CreateTableRequest request;
    request.name = id.name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    request.properties = std::move(properties);
    auto created = catalog_->CreateTable(id.ns, request);
    EXPECT_TRUE(created) << created.error().ToString();
    return *created;
  }

  int64_t Append(const TableIdentifier& id) {
    auto appended = testing::FastAppend(*catalog_, id);
    EXPECT_TRUE(appended) << appended.error().ToString();
    return appended ? *appended : 0;
  }

  Status Expire(const TableIdentifier& id, int64_t snapshot_id) {
    CommitTableRequest request{id, {}, {spec::RemoveSnapshots{{snapshot_id}}}};
    auto committed = catalog_->CommitTable(request);
    if (!committed) return tl::unexpected(committed.error());
    return OkStatus();
  }

  testing::TempDir dir_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
};

TEST_F(TimeTravelTest, LoadTableAtFindsExpiredSnapshots) {
  TableIdentifier id{{"n"}, "t"};
  Create(id);
  int64_t first = Append(id);
  int64_t second = Append(id);
  int64_t third = Append(id);
  ASSERT_THAT(Expire(id, first), IsOk());
  ASSERT_FALSE(catalog_->LoadTable(id)->metadata->SnapshotById(first));

  for (int round = 0; round < 2; ++round) {  // from the tail, then from the tree
    auto at_first = catalog_->LoadTableAt(id, first);
    ASSERT_THAT(at_first, IsOk());
    EXPECT_EQ(at_first->metadata->current_snapshot_id, first);
    EXPECT_TRUE(at_first->metadata->SnapshotById(first));
    EXPECT_FALSE(at_first->metadata->SnapshotById(second));
    auto at_third = catalog_->LoadTableAt(id, third);
    ASSERT_THAT(at_third, IsOk());
    EXPECT_EQ(at_third->metadata->current_snapshot_id, third);
    EXPECT_THAT(catalog_->LoadTableAt(id, 424242), IsError(ErrorKind::kNotFound));
    EXPECT_THAT(catalog_->LoadTableAt({{"n"}, "missing"}, first), IsError(ErrorKind::kNoSuchTable));
    ASSERT_THAT(catalog_->commit_log_index().Rebuild(), IsOk());
  }
  EXPECT_GT(catalog_->commit_log_index().stats().index_hits, 0u);
}

// A sweep over history reads around the metadata cache: it neither loads
// into it nor evicts what serves current reads, yet uses what is cached.
TEST_F(TimeTravelTest, HistoricalLoadsReadAroundTheMetadataCache) {
  TableIdentifier id{{"n"}, "t"};
  Create(id);
  std::vector<int64_t> snapshots;
  for (int i = 0; i < 5; ++i) snapshots.push_back(Append(id));
  Open();  // the commits cached what they wrote: start from a cold cache
  auto current = catalog_->LoadTable(id);
  ASSERT_THAT(current, IsOk());
  const auto before = catalog_->metadata_cache().stats();

  for (size_t i = 0; i + 1 < snapshots.size(); ++i) {
    auto at = catalog_->LoadTableAt(id, snapshots[i]);
    ASSERT_THAT(at, IsOk());
    EXPECT_EQ(at->metadata->current_snapshot_id, snapshots[i]);
    EXPECT_NE(at->metadata_location, current->metadata_location);
  }
  auto after = catalog_->metadata_cache().stats();
  EXPECT_EQ(after.loads, before.loads);
  EXPECT_EQ(after.entries, before.entries);

  // The newest snapshot's metadata is the current, cached file: shared, not re-read.
  auto at_newest = catalog_->LoadTableAt(id, snapshots.back());
  ASSERT_THAT(at_newest, IsOk());
  EXPECT_EQ(at_newest->metadata, current->metadata);
  EXPECT_GT(catalog_->metadata_cache().stats().hits, after.hits);
}

TEST_F(TimeTravelTest, AGoneMetadataFileIsSaidSo) {
  TableIdentifier id{{"n"}, "t"};
  // Keep one previous metadata file: the first append's is deleted later.
  Create(id, {{"write.metadata.delete-after-commit.enabled", "true"},
              {"write.metadata.previous-versions-max", "1"}});
  int64_t first = Append(id);
  std::string first_file = catalog_->LoadTable(id)->metadata_location;
  Append(id);
  Append(id);
  ASSERT_FALSE(*catalog_->file_io().Exists(first_file));
  // The current metadata still holds the snapshot: answered from it.
  auto from_current = catalog_->LoadTableAt(id, first);
  ASSERT_THAT(from_current, IsOk());
  EXPECT_EQ(from_current->metadata->current_snapshot_id, first);
  EXPECT_EQ(from_current->metadata_location, catalog_->LoadTable(id)->metadata_location);
  ASSERT_THAT(Expire(id, first), IsOk());
  // The same answer whether the file is still in the metadata cache or not.
  for (int round = 0; round < 2; ++round) {
    EXPECT_THAT(catalog_->LoadTableAt(id, first),
                IsErrorWithMessage(ErrorKind::kNotFound, "no longer exists"));
    Open();  // a new process: nothing of the file left in memory
  }
}

// One commit may add several snapshots to main (a transaction, or appends
// batched into one commit): each is answered as right after it landed.
TEST_F(TimeTravelTest, EachOfACommitsSnapshotsIsMainsHeadAtItself) {
  TableIdentifier id{{"n"}, "t"};
  Create(id);
  int64_t before = Append(id);
  auto current = *catalog_->LoadTable(id);
  auto first = testing::FastAppendRequest(id, *current.metadata, NewSnapshotId());
  auto first_snapshot = std::get<spec::AddSnapshot>(first.updates[0].value()).snapshot;
  auto second_snapshot = std::make_shared<spec::Snapshot>(*first_snapshot);
  second_snapshot->snapshot_id = NewSnapshotId();
  second_snapshot->parent_snapshot_id = first_snapshot->snapshot_id;
  second_snapshot->sequence_number = first_snapshot->sequence_number + 1;
  CommitTableRequest both = first;
  both.updates.push_back(spec::AddSnapshot{second_snapshot});
  both.updates.push_back(spec::SetSnapshotRef{
      "main", {second_snapshot->snapshot_id, spec::SnapshotRefType::kBranch, {}, {}, {}}});
  ASSERT_THAT(catalog_->CommitTable(both), IsOk());

  for (int64_t snapshot : {first_snapshot->snapshot_id, second_snapshot->snapshot_id, before}) {
    auto at = catalog_->LoadTableAt(id, snapshot);
    ASSERT_THAT(at, IsOk());
    EXPECT_EQ(at->metadata->current_snapshot_id, snapshot);
    EXPECT_EQ(at->metadata->refs.at("main").snapshot_id, snapshot);
    EXPECT_EQ(at->metadata->snapshot_log.back().snapshot_id, snapshot);
    // The JSON a REST answer embeds says the same.
    auto parsed = spec::TableMetadataFromJson(*at->metadata_json);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ((*parsed)->current_snapshot_id, snapshot);
  }
  auto at_first = *catalog_->LoadTableAt(id, first_snapshot->snapshot_id);
  EXPECT_EQ(at_first.metadata_location, catalog_->LoadTable(id)->metadata_location);
  EXPECT_TRUE(at_first.metadata->SnapshotById(second_snapshot->snapshot_id));
}

// A snapshot a commit adds and removes again never existed: not logged, so
// a later commit that really adds that id is the one found.
TEST_F(TimeTravelTest, ASnapshotAddedAndRemovedInOneCommitIsNotLogged) {
  TableIdentifier id{{"n"}, "t"};
  Create(id);
  auto current = *catalog_->LoadTable(id);
  const int64_t snapshot_id = NewSnapshotId();
  auto request = testing::FastAppendRequest(id, *current.metadata, snapshot_id);
  request.updates.pop_back();  // no ref: it can be removed in the same commit
  request.updates.push_back(spec::RemoveSnapshots{{snapshot_id}});
  ASSERT_THAT(catalog_->CommitTable(request), IsOk());
  auto history = catalog_->TableHistory(id, 0, 10);
  ASSERT_THAT(history, IsOk());
  EXPECT_TRUE(history->back().added_snapshot_ids.empty());
  EXPECT_THAT(catalog_->LoadTableAt(id, snapshot_id), IsError(ErrorKind::kNotFound));

  current = *catalog_->LoadTable(id);
  ASSERT_THAT(catalog_->CommitTable(testing::FastAppendRequest(id, *current.metadata, snapshot_id)),
              IsOk());
  auto at = catalog_->LoadTableAt(id, snapshot_id);
  ASSERT_THAT(at, IsOk());
  EXPECT_EQ(at->metadata->current_snapshot_id, snapshot_id);
}

// "a.b" + "c" and "a" + "b.c" print alike; a batch naming both keeps them
// apart (a key the log lacks is looked up in its own table's metadata).
TEST_F(TimeTravelTest, ResolveManyKeepsTablesWithAlikeNamesApart) {
  TableIdentifier nested{{"a", "b"}, "c"};
  TableIdentifier dotted{{"a"}, "b.c"};
  ASSERT_THAT(catalog_->CreateNamespace({"a"}, {}), IsOk());
  Create(nested);
  Create(dotted);
  ASSERT_EQ(nested.ToString(), dotted.ToString());
  int64_t snapshot = Append(nested);
  for (const auto& [first, second, second_found] :
       {std::tuple{nested, dotted, false}, std::tuple{dotted, nested, true}}) {
    std::vector<SnapshotKey> keys{{first, 31337}, {second, snapshot}};
    auto resolved = catalog_->ResolveMany(keys);
    ASSERT_THAT(resolved, IsOk());
    EXPECT_FALSE((*resolved)[0]);
    EXPECT_EQ((*resolved)[1].has_value(), second_found);
  }
}

// Registering another table's file over a table replaces it as a drop and a
// create would; the table's own earlier file keeps its history.
TEST_F(TimeTravelTest, RegisterOverAnotherTableStartsAHistoryOfItsOwn) {
  TableIdentifier a{{"n"}, "a"};
  TableIdentifier b{{"n"}, "b"};
  Create(a);
  int64_t a_snapshot = Append(a);
  const std::string a_first = catalog_->LoadTable(a)->metadata_location;
  Append(a);
  Create(b);
  Append(b);
  const std::string b_file = catalog_->LoadTable(b)->metadata_location;

  // The same table pointed back at an earlier file: its history goes on.
  ASSERT_THAT(catalog_->RegisterTable(a, a_first, true, {}), IsOk());
  EXPECT_THAT(catalog_->LoadTableAt(a, a_snapshot), IsOk());
  EXPECT_EQ(catalog_->TableHistory(a, 0, 100)->size(), 4u);  // create, 2 appends, register

  ASSERT_THAT(catalog_->DropTable(b, false), IsOk());
  ASSERT_THAT(catalog_->RegisterTable(a, b_file, true, {}), IsOk());
  auto history = catalog_->TableHistory(a, 0, 100);
  ASSERT_THAT(history, IsOk());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ(history->front().metadata_location, b_file);
  EXPECT_THAT(catalog_->LoadTableAt(a, a_snapshot), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(catalog_->LoadTableAsOf(a, NowMillis()), IsOk());

  // A table whose own metadata cannot be read cannot say it is the same
  // table: it is replaced, never mixed with the file's.
  TableIdentifier c{{"n"}, "c"};
  Create(c);
  int64_t c_snapshot = Append(c);
  const std::string c_file = catalog_->LoadTable(c)->metadata_location;
  ASSERT_THAT(catalog_->DropTable(a, false), IsOk());
  ASSERT_THAT(catalog_->file_io().DeleteFile(c_file), IsOk());
  Open();  // nothing of c's file cached
  ASSERT_THAT(catalog_->RegisterTable(c, a_first, true, {}), IsOk());
  EXPECT_EQ(catalog_->TableHistory(c, 0, 100)->size(), 1u);
  EXPECT_THAT(catalog_->LoadTableAt(c, c_snapshot), IsError(ErrorKind::kNotFound));
}

TEST_F(TimeTravelTest, AsOfReadsTheCommitCurrentAtThatTime) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id);
  // Each commit in a millisecond of its own, so each time names one commit.
  int64_t created_time = (*catalog_->TableHistory(id, 0, 1))[0].committed_at_ms;
  testing::WaitUntil([&] { return NowMillis() > created_time; });
  int64_t first = Append(id);
  auto history = catalog_->TableHistory(id, 0, 100);
  ASSERT_THAT(history, IsOk());
  ASSERT_EQ(history->size(), 2u);
  int64_t first_time = (*history)[1].committed_at_ms;
  testing::WaitUntil([&] { return NowMillis() > first_time; });
  int64_t second = Append(id);

  auto at_first = catalog_->LoadTableAsOf(id, first_time);
  ASSERT_THAT(at_first, IsOk());
  EXPECT_EQ(at_first->metadata->current_snapshot_id, first);
  auto now = catalog_->LoadTableAsOf(id, NowMillis());
  ASSERT_THAT(now, IsOk());
  EXPECT_EQ(now->metadata->current_snapshot_id, second);
  auto at_create = catalog_->LoadTableAsOf(id, (*history)[0].committed_at_ms);
  ASSERT_THAT(at_create, IsOk());
  EXPECT_EQ(at_create->metadata_location, created.metadata_location);
  EXPECT_THAT(catalog_->LoadTableAsOf(id, (*history)[0].committed_at_ms - 1),
              IsError(ErrorKind::kNotFound));
}

TEST_F(TimeTravelTest, HistoryKeepsExpiredSnapshotsAndPages) {
  TableIdentifier id{{"n"}, "t"};
  Create(id);
  std::vector<int64_t> appended;
  for (int i = 0; i < 5; ++i) appended.push_back(Append(id));
  ASSERT_THAT(Expire(id, appended[0]), IsOk());
  auto history = catalog_->TableHistory(id, 0, 100);
  ASSERT_THAT(history, IsOk());
  ASSERT_EQ(history->size(), 7u);  // create, 5 appends, the expiry
  for (size_t i = 0; i < appended.size(); ++i) {
    EXPECT_EQ((*history)[i + 1].added_snapshot_ids, std::vector<int64_t>{appended[i]});
  }
  EXPECT_TRUE(history->back().added_snapshot_ids.empty());
  EXPECT_EQ(history->back().metadata_location, catalog_->LoadTable(id)->metadata_location);
  auto page = catalog_->TableHistory(id, (*history)[2].commit_seq, 3);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(page->size(), 3u);
  EXPECT_EQ((*page)[0].commit_seq, (*history)[3].commit_seq);
  EXPECT_THAT(catalog_->TableHistory({{"n"}, "missing"}, 0, 10), IsError(ErrorKind::kNoSuchTable));
}

TEST_F(TimeTravelTest, ResolveManyMatchesLoadTableAt) {
  TableIdentifier a{{"n"}, "a"};
  TableIdentifier b{{"n"}, "b"};
  Create(a);
  Create(b);
  std::vector<SnapshotKey> keys;
  for (int i = 0; i < 20; ++i) {
    keys.push_back({a, Append(a)});
    keys.push_back({b, Append(b)});
  }
  ASSERT_THAT(catalog_->commit_log_index().Rebuild(), IsOk());
  size_t tail_only = keys.size();
  keys.push_back({b, Append(b)});            // only in the tail
  keys.push_back({a, keys[1].snapshot_id});  // b's snapshot, asked of a
  keys.push_back({a, keys[0].snapshot_id});  // a run of one table's keys
  keys.push_back({a, 31337});
  size_t missing = keys.size();
  keys.push_back({{{"n"}, "missing"}, 1});   // no such table
  keys.push_back({{{}, ""}, 1});             // not a valid identifier
  keys.push_back({a, keys[2].snapshot_id});  // after them, found again
  auto resolved = catalog_->ResolveMany(keys);
  ASSERT_THAT(resolved, IsOk());
  ASSERT_EQ(resolved->size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    auto loaded = catalog_->LoadTableAt(keys[i].table, keys[i].snapshot_id);
    if (loaded) {
      EXPECT_EQ((*resolved)[i], loaded->metadata_location) << i;
    } else {
      EXPECT_FALSE((*resolved)[i]) << i;
    }
  }
  EXPECT_TRUE((*resolved)[tail_only]);
  EXPECT_FALSE((*resolved)[tail_only + 1]);
  EXPECT_TRUE((*resolved)[tail_only + 2]);
  EXPECT_FALSE((*resolved)[tail_only + 3]);
  EXPECT_FALSE((*resolved)[missing]);
  EXPECT_TRUE((*resolved)[keys.size() - 1]);
}

TEST_F(TimeTravelTest, SameAnswersUnderConcurrentCommitsAndRebuilds) {
  Open(/*background=*/false);
  std::vector<TableIdentifier> tables;
  for (int t = 0; t < 3; ++t) {
    tables.push_back({{"n"}, StrCat("t", t)});
    Create(tables.back());
  }
  std::mutex mutex;
  std::vector<std::pair<size_t, int64_t>> known;  // (table, snapshot) acknowledged
  std::atomic<int> writers_done{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 60; ++i) {
        size_t table = (w + i) % tables.size();
        int64_t snapshot = Append(tables[table]);
        std::lock_guard lock(mutex);
        known.emplace_back(table, snapshot);
      }
      ++writers_done;
    });
  }
  threads.emplace_back([&] {
    while (writers_done < 2) EXPECT_THAT(catalog_->commit_log_index().Rebuild(), IsOk());
  });
  threads.emplace_back([&] {
    std::mt19937 random(3);
    while (writers_done < 2) {
      std::pair<size_t, int64_t> key;
      {
        std::lock_guard lock(mutex);
        if (known.empty()) continue;
        key = known[random() % known.size()];
      }
      auto loaded = catalog_->LoadTableAt(tables[key.first], key.second);
      // The commit that added the snapshot made it current.
      if (!loaded || loaded->metadata->current_snapshot_id != key.second) ++wrong;
    }
  });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  std::vector<SnapshotKey> keys;
  for (const auto& [table, snapshot] : known) keys.push_back({tables[table], snapshot});
  auto resolved = catalog_->ResolveMany(keys);
  ASSERT_THAT(resolved, IsOk());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE((*resolved)[i]);
    EXPECT_EQ(catalog_->LoadTableAt(keys[i].table, keys[i].snapshot_id)->metadata_location,
              *(*resolved)[i]);
  }
}

TEST_F(TimeTravelTest, AReopenedCatalogMapsItsIndex) {
  TableIdentifier id{{"n"}, "t"};
  Create(id);
  std::vector<int64_t> appended;
  for (int i = 0; i < 10; ++i) appended.push_back(Append(id));
  ASSERT_THAT(catalog_->commit_log_index().Rebuild(), IsOk());
  Open();
  auto stats = catalog_->commit_log_index().stats();
  EXPECT_TRUE(stats.mapped);
  EXPECT_EQ(stats.builds, 0u);
  for (int64_t snapshot : appended) {
    auto loaded = catalog_->LoadTableAt(id, snapshot);
    ASSERT_THAT(loaded, IsOk());
    EXPECT_EQ(loaded->metadata->current_snapshot_id, snapshot);
  }
  EXPECT_EQ(catalog_->commit_log_index().stats().index_hits, appended.size());
}

}  // namespace
}  // namespace skade::catalog
