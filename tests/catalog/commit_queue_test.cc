// Concurrent commits to one table share one physical commit
// (catalog/table_commit_queue.h): requests that arrive while a commit to the
// table is in flight go into the next batch — one metadata file, each
// request answered with metadata that holds its own snapshot, a request
// that fails on its own failing alone.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>

#include "catalog/staged_append.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/spec/table_properties.h"
#include "skade/store/commit_listener.h"
#include "skade/store/table_key.h"
#include "skade/table/fast_append.h"
#include "skade/table/snapshot_scan.h"
#include "table/table_fixture.h"
#include "testing/gate.h"

namespace skade::table {
namespace {

using testing::IsError;
using testing::IsOk;

// Holds the first metadata-file write after Arm() until Release().
class GateFileIO : public io::ForwardingFileIO {
 public:
  using ForwardingFileIO::ForwardingFileIO;

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    if (location.ends_with(".metadata.json") && armed_.exchange(false)) {
      blocked_ = true;
      release_.Wait();
    }
    return inner().WriteFile(location, contents, durable);
  }

  void Arm() { armed_ = true; }
  void WaitUntilBlocked() {
    skade::testing::WaitUntil([&] { return blocked_.load(); });
  }
  void Release() { release_.Open(); }

 private:
  std::atomic<bool> armed_{false};
  std::atomic<bool> blocked_{false};
  skade::testing::Gate release_;
};

class CommitQueueTest : public testing::TableTest {
 protected:
  void SetUp() override {
    TableTest::SetUp();
    Reopen(nullptr);
  }

  // The catalog again, on the same warehouse, with `manifest_cache`
  // (EmbeddedCatalogOptions::manifest_cache).
  void Reopen(std::shared_ptr<cache::ManifestCache> manifest_cache) {
    catalog_.reset();
    gate_ = std::make_shared<GateFileIO>(io::NewLocalFileIO());
    catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    options.file_io = gate_;
    options.manifest_cache = std::move(manifest_cache);
    auto opened = catalog::EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  // Eight appends built on one version of a new table: the first commits
  // while the other seven queue, then those seven commit as one batch, each
  // rebased on the one before it (whose manifest list is not written yet).
  // The fourth fails its own requirement and alone.
  void CommitOneAndABatchOfSeven();

  // The request a client sends for an append of `name` built on `base`
  // (the update stays alive: it deletes its files when destroyed).
  catalog::CommitTableRequest AppendRequest(const Table& base, const std::string& name) {
    auto& append = updates_.emplace_back(std::make_unique<FastAppend>(base));
    append->AppendFile(File(base, name, 1));
    return skade::testing::StagedRequest(base, *append);
  }

  // Commits `requests`: the first alone (held at its metadata file), the
  // rest queued behind it as one batch. Once per test (the gate opens once).
  std::vector<Result<catalog::LoadTableResult>> CommitAsABatchBehindTheFirst(
      const std::vector<catalog::CommitTableRequest>& requests) {
    gate_->Arm();
    std::vector<Result<catalog::LoadTableResult>> results(requests.size(), tl::unexpected(Error{}));
    std::vector<std::thread> threads;
    threads.emplace_back([&] { results[0] = catalog_->CommitTable(requests[0]); });
    gate_->WaitUntilBlocked();
    for (size_t i = 1; i < requests.size(); ++i) {
      threads.emplace_back([&, i] { results[i] = catalog_->CommitTable(requests[i]); });
    }
    skade::testing::WaitUntil([&] { return catalog_->queued_commits() == requests.size() - 1; });
    gate_->Release();
    for (auto& thread : threads) thread.join();
    return results;
  }

  // Four appends and `bad` behind them: every append commits once, and
  // `bad` alone fails, with `kind`.
  void ExpectOnlyTheBadRequestFails(const Table& base, catalog::CommitTableRequest bad,
                                    ErrorKind kind) {
    std::vector<catalog::CommitTableRequest> requests;
    for (int i = 0; i < 4; ++i) requests.push_back(AppendRequest(base, StrCat("f", i)));
    requests.push_back(std::move(bad));
    auto results = CommitAsABatchBehindTheFirst(requests);
    for (size_t i = 0; i + 1 < results.size(); ++i) {
      ASSERT_TRUE(results[i]) << i << ": " << results[i].error().ToString();
    }
    EXPECT_THAT(results.back(), IsError(kind));
    auto loaded = catalog_->LoadTable(base.identifier());
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->metadata->snapshots.size(), 4u);
  }

  size_t MetadataFileCount(const Table& table) {
    size_t count = 0;
    for (const auto& name : MetadataFiles(table)) count += name.ends_with(".metadata.json");
    return count;
  }

  std::shared_ptr<GateFileIO> gate_;
  std::vector<std::unique_ptr<FastAppend>> updates_;
};

void CommitQueueTest::CommitOneAndABatchOfSeven() {
  Table base = Create("t");
  constexpr int kFollowers = 7;
  std::vector<catalog::CommitTableRequest> requests;
  for (int i = 0; i <= kFollowers; ++i) requests.push_back(AppendRequest(base, StrCat("f", i)));
  // One follower fails on its own: it must not take the others with it.
  requests[3].requirements[0] = spec::AssertTableUuid{"00000000-0000-0000-0000-000000000000"};
  const size_t files_before = MetadataFileCount(base);

  gate_->Arm();
  std::vector<Result<catalog::LoadTableResult>> results(requests.size(), tl::unexpected(Error{}));
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = catalog_->CommitTable(requests[0]); });
  gate_->WaitUntilBlocked();
  for (int i = 1; i <= kFollowers; ++i) {
    threads.emplace_back([&, i] { results[i] = catalog_->CommitTable(requests[i]); });
  }
  skade::testing::WaitUntil(
      [&] { return catalog_->queued_commits() == static_cast<size_t>(kFollowers); });
  gate_->Release();
  for (auto& thread : threads) thread.join();

  for (size_t i = 0; i < results.size(); ++i) {
    if (i == 3) {
      EXPECT_THAT(results[i], IsError(ErrorKind::kCommitFailed));
      continue;
    }
    ASSERT_TRUE(results[i]) << i << ": " << results[i].error().ToString();
    int64_t own = skade::testing::StagedSnapshotId(requests[i]);
    EXPECT_NE(results[i]->metadata->SnapshotById(own), nullptr) << i;
  }
  // The leader's commit, then one for the seven queued behind it.
  EXPECT_EQ(MetadataFileCount(base), files_before + 2);
  auto loaded = catalog_->LoadTable(base.identifier());
  ASSERT_TRUE(loaded);
  // One linear history of the 7 appends that succeeded.
  int chain = 0;
  for (auto at = loaded->metadata->CurrentSnapshot(); at;
       at = at->parent_snapshot_id ? loaded->metadata->SnapshotById(*at->parent_snapshot_id)
                                   : nullptr) {
    ++chain;
  }
  EXPECT_EQ(chain, kFollowers);
  EXPECT_EQ(loaded->metadata->snapshots.size(), static_cast<size_t>(kFollowers));
  Table result(base.identifier(), *loaded, catalog_, io_);
  auto files = CurrentDataFiles(result);
  ASSERT_TRUE(files);
  EXPECT_EQ(files->size(), static_cast<size_t>(kFollowers));
}

TEST_F(CommitQueueTest, CommitsArrivingDuringACommitShareTheNextMetadataFile) {
  CommitOneAndABatchOfSeven();
}

// Without the manifest cache each rebase in the batch reads the list the one
// before it made from the batch's pending files, not from disk.
TEST_F(CommitQueueTest, ABatchRebasesOnItsPendingListsWithoutTheManifestCache) {
  Reopen(std::make_shared<cache::ManifestCache>(cache::ManifestCacheOptions{.capacity_bytes = 0}));
  CommitOneAndABatchOfSeven();
}

// A request whose location is refused fails alone, as one with a failed
// requirement does: the merged commit is retried without it.
TEST_F(CommitQueueTest, AForbiddenMoveInABatchFailsOnlyItsRequest) {
  Table base = Create("t");
  Table other = Create("other");
  std::vector<catalog::CommitTableRequest> requests;
  for (int i = 0; i < 4; ++i) requests.push_back(AppendRequest(base, StrCat("f", i)));
  requests.push_back({base.identifier(), {}, {spec::SetLocation{other.metadata().location}}});
  // A root no table may have (catalog::CheckOwnRoots) fails alone too.
  requests.push_back({base.identifier(),
                      {},
                      {spec::SetProperties{{{spec::kDataPath, catalog_->warehouse_location()}}}}});
  constexpr size_t kForbidden = 2;

  auto results = CommitAsABatchBehindTheFirst(requests);

  for (size_t i = 0; i < results.size(); ++i) {
    if (i + kForbidden >= results.size()) {
      EXPECT_THAT(results[i], IsError(ErrorKind::kForbidden)) << i;
      continue;
    }
    ASSERT_TRUE(results[i]) << i << ": " << results[i].error().ToString();
  }
  auto loaded = catalog_->LoadTable(base.identifier());
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->metadata->snapshots.size(), 4u);
  EXPECT_EQ(loaded->metadata->location, base.metadata().location);
  EXPECT_EQ(loaded->metadata->Property(spec::kDataPath, ""), "");
}

// A store listener that throws once told of its `n`th commit that changed a
// table (not the flusher's), standing in for any failure after the store
// committed: that commit's callers hear "state unknown".
class ThrowAfterCommit : public store::CommitListener {
 public:
  explicit ThrowAfterCommit(int n) : left_(n) {}
  void OnCommitting(uint64_t, uint64_t) override {}
  void OnCommitted(uint64_t, uint64_t, const std::vector<store::TableChange>& changes) override {
    if (!changes.empty() && --left_ == 0) throw std::runtime_error("injected after commit");
  }
  void OnCommitFailed(uint64_t) override {}

 private:
  std::atomic<int> left_;
};

// A batch with a request refused on its own whose merged commit landed but
// answered "state unknown": the others keep that answer and are not
// committed again one by one (which found their snapshots there, failed
// them, and deleted files the table now references).
TEST_F(CommitQueueTest, ABatchWhoseCommitStateIsUnknownIsNotCommittedAgain) {
  Table base = Create("t");
  std::vector<catalog::CommitTableRequest> requests;
  for (int i = 0; i < 4; ++i) requests.push_back(AppendRequest(base, StrCat("f", i)));
  requests.push_back({base.identifier(),
                      {},
                      {spec::SetProperties{{{spec::kDataPath, catalog_->warehouse_location()}}}}});
  // Told of the first request's commit, then of the batch's. (The table
  // pointer mirror, the listener it replaces, catches up from the store.)
  ThrowAfterCommit listener(2);
  catalog_->store().SetCommitListener(&listener);
  auto results = CommitAsABatchBehindTheFirst(requests);
  catalog_->store().SetCommitListener(nullptr);

  ASSERT_TRUE(results[0]) << results[0].error().ToString();
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_THAT(results[i], IsError(ErrorKind::kCommitStateUnknown)) << i;
  }
  EXPECT_THAT(results[4], IsError(ErrorKind::kForbidden));
  auto loaded = catalog_->LoadTable(base.identifier());
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->metadata->snapshots.size(), 4u);
  for (const auto& snapshot : loaded->metadata->snapshots) {
    auto exists = catalog_->file_io().Exists(snapshot->manifest_list);
    ASSERT_TRUE(exists);
    EXPECT_TRUE(*exists) << snapshot->manifest_list;
  }
}

// A request refused on its own (catalog::CheckOwnRoots) while the batch
// commits: the others are answered once, not committed a second time.
TEST_F(CommitQueueTest, ARequestRefusedAloneNeverMakesTheOthersCommitTwice) {
  Table base = Create("t");
  ExpectOnlyTheBadRequestFails(
      base,
      {base.identifier(),
       {},
       {spec::SetProperties{{{spec::kDataPath, catalog_->warehouse_location()}}}}},
      ErrorKind::kForbidden);
}

// A metadata path that cannot be written (under a file) fails the merged
// commit: the requests are committed one by one, so only it fails.
TEST_F(CommitQueueTest, AnUnwritableMetadataPathInABatchFailsOnlyItsRequest) {
  Table base = Create("t");
  ExpectOnlyTheBadRequestFails(
      base,
      {base.identifier(),
       {},
       {spec::SetProperties{{{spec::kMetadataPath, base.metadata_location() + "/under-a-file"}}}}},
      ErrorKind::kInvalidArgument);
}

// A commit to one table, held in its metadata-file write (the table's lock
// held), does not hold back a commit to another: not even to one whose key
// hashes alike, which with a fixed array of striped table locks shared its
// mutex and waited for the whole held commit (this test then hangs).
TEST_F(CommitQueueTest, ACommitInFlightHoldsBackNoOtherTable) {
  Table held = Create("held");
  const size_t held_hash = std::hash<std::string>()(store::TableKey(held.identifier()));
  std::string alike;
  for (int i = 0; alike.empty(); ++i) {
    std::string name = StrCat("alike", i);
    if (std::hash<std::string>()(store::TableKey({{"db"}, name})) % 64 == held_hash % 64) {
      alike = name;
    }
  }
  Table other = Create(alike);

  gate_->Arm();
  std::thread commit([&] {
    EXPECT_THAT(catalog_->CommitTable({held.identifier(), {}, {spec::SetProperties{{{"k", "1"}}}}}),
                IsOk());
  });
  gate_->WaitUntilBlocked();
  EXPECT_THAT(catalog_->CommitTable({other.identifier(), {}, {spec::SetProperties{{{"k", "2"}}}}}),
              IsOk());
  gate_->Release();
  commit.join();
}

}  // namespace
}  // namespace skade::table
