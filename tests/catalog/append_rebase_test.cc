// Server-side rebase of stale appends (catalog/append_rebase.h): a client's
// append built on an old version commits on top of the current one with its
// own snapshot id, its manifests kept and a manifest list the catalog wrote;
// anything that is not a pure append on an unchanged table still conflicts.
// The clients here are table:: operations, which write real manifests and
// manifest lists as Iceberg Java does.
#include "skade/catalog/append_rebase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "avro/manifest_bomb.h"
#include "catalog/staged_append.h"
#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_list_writer.h"
#include "skade/table/delete_files.h"
#include "skade/table/fast_append.h"
#include "skade/table/snapshot_scan.h"
#include "table/table_fixture.h"
#include "testing/fast_append.h"

namespace skade::table {
namespace {

using skade::testing::StagedRequest;
using testing::IsError;
using testing::IsOk;

class AppendRebaseTest : public testing::TableTest {
 protected:
  // The table after one append of `name`.
  Table Appended(const Table& table, const std::string& name, int64_t records = 10) {
    FastAppend append(table);
    append.AppendFile(File(table, name, records));
    auto committed = append.Commit();
    EXPECT_TRUE(committed) << committed.error().ToString();
    return *committed;
  }

  Table Load(const Table& table) {
    auto loaded = catalog_->LoadTable(table.identifier());
    EXPECT_TRUE(loaded) << loaded.error().ToString();
    return Table(table.identifier(), *loaded, catalog_, io_);
  }

  // The request of an append of `name`.parquet (5 rows) staged on `base`;
  // the update stays alive (it deletes its files when destroyed).
  catalog::CommitTableRequest StaleAppend(const Table& base, const std::string& name = "x") {
    auto& append = updates_.emplace_back(std::make_unique<FastAppend>(base));
    append->AppendFile(File(base, name, 5));
    return StagedRequest(base, *append);
  }

  // `request` gets 409, and its message says `reason`.
  void ExpectConflict(const catalog::CommitTableRequest& request, const std::string& reason) {
    auto committed = catalog_->CommitTable(request);
    ASSERT_THAT(committed, IsError(ErrorKind::kCommitFailed));
    EXPECT_NE(committed.error().message.find(reason), std::string::npos)
        << committed.error().message;
  }

  std::vector<std::string> LiveFiles(const Table& table) {
    auto files = CurrentDataFiles(table);
    EXPECT_TRUE(files) << files.error().ToString();
    std::vector<std::string> names;
    for (const auto& file : *files) {
      names.push_back(file.file_path.substr(file.file_path.rfind('/') + 1));
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // The manifests of the list `request`'s snapshot names.
  std::vector<spec::ManifestFile> ClientManifests(const catalog::CommitTableRequest& request) {
    const auto& snapshot = *std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot;
    auto list = avro::ReadManifestList(*io_->ReadFile(snapshot.manifest_list));
    EXPECT_TRUE(list);
    return list ? list->manifests : std::vector<spec::ManifestFile>{};
  }

  // Makes `request`'s snapshot name a list of `manifests` instead, written
  // beside the client's (its name plus `suffix`) in `format_version`.
  void ListInstead(catalog::CommitTableRequest& request,
                   const std::vector<spec::ManifestFile>& manifests, const std::string& suffix,
                   int format_version = 2) {
    const auto& snapshot = *std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot;
    avro::ManifestListWriterOptions options;
    options.format_version = format_version;
    options.first_row_id = snapshot.first_row_id.value_or(0);
    options.snapshot_id = snapshot.snapshot_id;
    options.parent_snapshot_id = snapshot.parent_snapshot_id;
    options.sequence_number = snapshot.sequence_number;
    auto writer = *avro::ManifestListWriter::Make(options);
    for (const auto& manifest : manifests) ASSERT_THAT(writer->Add(manifest), IsOk());
    ASSERT_THAT(writer->WriteTo(*io_, snapshot.manifest_list + suffix, false), IsOk());
    auto replaced = std::make_shared<spec::Snapshot>(snapshot);
    replaced->manifest_list = snapshot.manifest_list + suffix;
    request.updates[0] = spec::AddSnapshot{replaced};
  }

  std::vector<std::unique_ptr<FastAppend>> updates_;
};

TEST_F(AppendRebaseTest, StaleAppendCommitsOnTopWithItsOwnSnapshotAndManifests) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  const auto& client_snapshot = *std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot;
  Table moved = Appended(base, "b", 7);

  auto committed = catalog_->CommitTable(request);
  ASSERT_TRUE(committed) << committed.error().ToString();
  const spec::TableMetadata& metadata = *committed->metadata;
  auto head = metadata.CurrentSnapshot();
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->snapshot_id, client_snapshot.snapshot_id);
  EXPECT_EQ(head->parent_snapshot_id, moved.metadata().current_snapshot_id);
  EXPECT_EQ(head->sequence_number, moved.metadata().last_sequence_number + 1);
  EXPECT_EQ(metadata.last_sequence_number, head->sequence_number);
  EXPECT_NE(head->manifest_list, client_snapshot.manifest_list);
  EXPECT_EQ(head->summary.at("total-data-files"), "3");
  EXPECT_EQ(head->summary.at("total-records"), "22");
  EXPECT_EQ(head->summary.at("added-records"), "5");
  EXPECT_EQ(head->summary.at(catalog::kRebasedFromSummaryKey),
            StrCat(*base.metadata().current_snapshot_id));
  // The client's list is replaced and gone; its manifest is in the new list.
  EXPECT_FALSE(Exists(client_snapshot.manifest_list));
  auto list = avro::ReadManifestList(*io_->ReadFile(head->manifest_list));
  ASSERT_TRUE(list);
  ASSERT_EQ(list->manifests.size(), 3u);
  EXPECT_EQ(list->manifests[0].added_snapshot_id, client_snapshot.snapshot_id);
  EXPECT_EQ(list->manifests[0].sequence_number, head->sequence_number);
  EXPECT_EQ(list->metadata.parent_snapshot_id, head->parent_snapshot_id);

  Table result(base.identifier(), *committed, catalog_, io_);
  EXPECT_EQ(LiveFiles(result), (std::vector<std::string>{"a.parquet", "b.parquet", "x.parquet"}));
  // The appended file inherits the rebased snapshot's sequence number.
  auto entries = LiveEntries(result, *head);
  ASSERT_TRUE(entries);
  for (const auto& entry : *entries) {
    if (entry.data_file.file_path.ends_with("x.parquet")) {
      EXPECT_EQ(entry.sequence_number, head->sequence_number);
    }
  }
}

TEST_F(AppendRebaseTest, TheNextRebaseReadsTheBranchsListsFromTheCache) {
  // Two clients append to the version they loaded, after a third moved main.
  Table base = Appended(Create("t"), "a");
  auto first = StaleAppend(base, "x");
  auto second = StaleAppend(base, "y");
  Appended(base, "b");
  ASSERT_TRUE(catalog_->CommitTable(first));

  // The second's base list was the first rebase's base, and its head's list
  // is the one the first rebase wrote: neither is read again.
  const cache::ManifestCache& lists = *catalog_->manifest_cache_ptr();
  cache::ManifestCache::Stats before = lists.stats();
  auto committed = catalog_->CommitTable(second);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(lists.stats().misses, before.misses);
  EXPECT_EQ(lists.stats().hits, before.hits + 2);

  Table result(base.identifier(), *committed, catalog_, io_);
  EXPECT_EQ(LiveFiles(result),
            (std::vector<std::string>{"a.parquet", "b.parquet", "x.parquet", "y.parquet"}));
  // The list built on the cached one is the one on disk.
  auto head = committed->metadata->CurrentSnapshot();
  auto list = avro::ReadManifestList(*io_->ReadFile(head->manifest_list));
  ASSERT_TRUE(list);
  ASSERT_EQ(list->manifests.size(), 4u);
  for (const auto& manifest : list->manifests) EXPECT_TRUE(Exists(manifest.manifest_path));
}

TEST_F(AppendRebaseTest, OffByTablePropertyTheStaleAppendConflicts) {
  Table base = Appended(Create("t", nullptr, {{catalog::kRebaseAppendsProperty, "false"}}), "a");
  auto request = StaleAppend(base);
  Appended(base, "b");
  ExpectConflict(request, "not rebased: skade.commit.rebase-appends is false");
}

TEST_F(AppendRebaseTest, StaleDeleteStillConflicts) {
  Table base = Appended(Create("t"), "a");
  DeleteFiles remove(base, PartitionFilter::All());
  auto request = StagedRequest(base, remove);
  Appended(base, "b");
  ExpectConflict(request, "not append");
}

TEST_F(AppendRebaseTest, SchemaChangedSinceTheClientLoadedConflicts) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  auto fields = testing::EventSchema()->fields();
  fields.push_back({4, "note", spec::Type::String(), false, {}, {}, {}});
  auto schema = std::make_shared<const spec::Schema>(1, fields);
  catalog::CommitTableRequest evolve{base.identifier(), {}, {}};
  evolve.updates.push_back(spec::AddSchema{schema, 4});
  evolve.updates.push_back(spec::SetCurrentSchema{-1});
  ASSERT_TRUE(catalog_->CommitTable(evolve));
  Appended(Load(base), "b");

  ExpectConflict(request, "schema");
}

// A table another client left at the largest sequence number has no next
// one: a stale append gets 409 saying so (the rebase does not overflow), and
// the table's own writers a clear error.
TEST_F(AppendRebaseTest, NothingFollowsTheLargestSequenceNumber) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  auto last =
      skade::testing::FastAppendRequest(base.identifier(), base.metadata(), NewSnapshotId());
  auto snapshot = std::make_shared<spec::Snapshot>(
      *std::get<spec::AddSnapshot>(last.updates[0].value()).snapshot);
  snapshot->sequence_number = std::numeric_limits<int64_t>::max();
  snapshot->manifest_list = base.metadata().CurrentSnapshot()->manifest_list;
  last.updates[0] = spec::AddSnapshot{snapshot};
  ASSERT_TRUE(catalog_->CommitTable(last));

  ExpectConflict(request, "the table's last sequence number is the largest there is");
  FastAppend append(Load(base));
  append.AppendFile(File(base, "c", 1));
  EXPECT_THAT(append.Commit(), IsError(ErrorKind::kInvalidArgument));
}

TEST_F(AppendRebaseTest, BranchResetBehindTheClientsBaseConflicts) {
  Table first = Appended(Create("t"), "a");
  Table base = Appended(first, "b");
  auto request = StaleAppend(base);
  // Roll main back to the first snapshot: the client's base is no ancestor.
  catalog::CommitTableRequest rollback{base.identifier(), {}, {}};
  rollback.updates.push_back(spec::SetSnapshotRef{
      spec::kMainBranch,
      {*first.metadata().current_snapshot_id, spec::SnapshotRefType::kBranch, {}, {}, {}}});
  ASSERT_TRUE(catalog_->CommitTable(rollback));

  ExpectConflict(request, "no longer an ancestor");
}

TEST_F(AppendRebaseTest, ManifestListOutsideTheTableIsNeverReadAndConflicts) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  Appended(base, "b");
  for (std::string location :
       {dir_.Sub("elsewhere.avro"), StrCat(base.metadata().location, "/metadata/missing.avro")}) {
    auto snapshot = std::make_shared<spec::Snapshot>(
        *std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot);
    snapshot->manifest_list = location;
    auto hostile = request;
    hostile.updates[0] = spec::AddSnapshot{snapshot};
    auto committed = catalog_->CommitTable(hostile);
    ASSERT_THAT(committed, IsError(ErrorKind::kCommitFailed)) << location;
    EXPECT_NE(committed.error().message.find("not rebased"), std::string::npos);
  }
}

// A rebase reads the client's files whole: one past 64 MiB is not read for a
// rebase (the client gets the 409 it would get without one).
TEST_F(AppendRebaseTest, AManifestListTooLargeToRebaseConflicts) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  Appended(base, "b");
  const std::string& list =
      std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot->manifest_list;
  auto bytes = io_->ReadFile(list);
  ASSERT_THAT(bytes, IsOk());
  bytes->resize((64u << 20) + 1);
  ASSERT_THAT(io_->DeleteFile(list), IsOk());
  ASSERT_THAT(io_->WriteFile(list, *bytes, false), IsOk());
  ExpectConflict(request, "not rebased: cannot read");
  EXPECT_NE(catalog_->CommitTable(request).error().message.find("larger than the 64 MiB"),
            std::string::npos);
}

// Review finding: a 3.6 MB deflate manifest of identical entries made the
// rebase throw std::bad_alloc (500, CommitStateUnknown). Its read now stops
// at the readers' memory limit, and the append is not rebased (409).
TEST_F(AppendRebaseTest, AManifestThatInflatesPastTheMemoryLimitConflicts) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  Appended(base, "b");
  const std::string manifest = ClientManifests(request).front().manifest_path;
  auto bytes = io_->ReadFile(manifest);
  ASSERT_THAT(bytes, IsOk());
  const std::string bomb = avro::testing::ManifestBomb(
      *bytes, avro::ContainerReaderOptions{}.max_decoded_bytes / sizeof(spec::ManifestEntry) + 1);
  ASSERT_LT(bomb.size(), 1u << 20);
  ASSERT_THAT(io_->DeleteFile(manifest), IsOk());
  ASSERT_THAT(io_->WriteFile(manifest, bomb, false), IsOk());
  ExpectConflict(request, StrCat("not rebased: cannot read ", manifest,
                                 ": manifest holds more than 512 MiB of entries"));
}

// One over 8 MiB is read (after taking one of the slots for such files).
TEST_F(AppendRebaseTest, ALargeManifestListIsRebased) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  Table moved = Appended(base, "b");
  auto manifests = ClientManifests(request);
  std::string key((9u << 20), '\0');
  std::mt19937_64 random(7);  // incompressible: the list is written deflated
  for (char& c : key) c = static_cast<char>(random());
  manifests.front().key_metadata = std::move(key);
  ASSERT_NO_FATAL_FAILURE(ListInstead(request, manifests, ".large"));
  const auto& list =
      std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot->manifest_list;
  ASSERT_GT(*io_->FileSize(list), 8 << 20);

  auto committed = catalog_->CommitTable(request);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(committed->metadata->CurrentSnapshot()->parent_snapshot_id,
            moved.metadata().current_snapshot_id);
}

TEST_F(AppendRebaseTest, ListThatDropsABaseManifestConflicts) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  Appended(base, "b");
  // The client's own list, less the base's manifest: a rewrite, not an append.
  auto manifests = ClientManifests(request);
  ASSERT_NO_FATAL_FAILURE(ListInstead(request, {manifests.front()}, ".dropped"));

  ExpectConflict(request, "drops or rewrites");
}

TEST_F(AppendRebaseTest, ListThatNamesANewManifestTwiceConflicts) {
  Table base = Appended(Create("t"), "a");
  auto request = StaleAppend(base);
  Appended(base, "b");
  // The client's list with its new manifest twice: its rows would count twice.
  auto manifests = ClientManifests(request);
  manifests.insert(manifests.begin(), manifests.front());
  ASSERT_NO_FATAL_FAILURE(ListInstead(request, manifests, ".twice"));
  ExpectConflict(request, "is listed twice");

  // However it is spelled: a bare path and file:// name the same file.
  auto respelled = StaleAppend(base, "z");
  manifests = ClientManifests(respelled);
  manifests.insert(manifests.begin(), manifests.front());
  std::string& path = manifests.front().manifest_path;
  path = path.starts_with("file://") ? path.substr(std::string_view("file://").size())
                                     : StrCat("file://", path);
  ASSERT_NO_FATAL_FAILURE(ListInstead(respelled, manifests, ".twice"));
  ExpectConflict(respelled, "is listed twice");
}

TEST_F(AppendRebaseTest, V3RowIdsStartAtTheTablesNextRowId) {
  Table base = Appended(Create("t", nullptr, {{"format-version", "3"}}), "a", 10);
  auto request = StaleAppend(base);
  Table moved = Appended(base, "b", 7);
  ASSERT_EQ(moved.metadata().next_row_id, 17);

  auto committed = catalog_->CommitTable(request);
  ASSERT_TRUE(committed) << committed.error().ToString();
  auto head = committed->metadata->CurrentSnapshot();
  EXPECT_EQ(head->first_row_id, 17);
  EXPECT_EQ(head->added_rows, 5);
  EXPECT_EQ(committed->metadata->next_row_id, 22);
  auto list = avro::ReadManifestList(*io_->ReadFile(head->manifest_list));
  ASSERT_TRUE(list);
  EXPECT_EQ(list->manifests[0].first_row_id, 17);
}

// The rows a client's list claims become the rebased snapshot's row ids:
// counts past the largest id are not rebased (409 saying why), and the
// table stays as it was.
TEST_F(AppendRebaseTest, V3RowCountsPastTheLargestRowIdAreRefused) {
  Table base = Appended(Create("t", nullptr, {{"format-version", "3"}}), "a", 10);
  auto request = StaleAppend(base);
  Table moved = Appended(base, "b", 7);
  auto manifests = ClientManifests(request);
  manifests.front().added_rows_count = std::numeric_limits<int64_t>::max() - 3;
  ASSERT_NO_FATAL_FAILURE(ListInstead(request, manifests, ".huge", 3));

  ExpectConflict(request, "negative or overflow");
  EXPECT_EQ(Load(base).metadata().next_row_id, 17);
  EXPECT_EQ(Load(base).metadata().current_snapshot_id, moved.metadata().current_snapshot_id);
}

TEST_F(AppendRebaseTest, TableOperationsNoLongerRetryAgainstStaleAppends) {
  // table::FastAppend's own retry would also succeed; with rebase the first
  // attempt does, and its cleanup keeps every file the table references.
  Table base = Appended(Create("t"), "a");
  FastAppend stale(base);
  stale.AppendFile(File(base, "x", 5));
  Appended(base, "b");
  auto committed = stale.Commit();
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(LiveFiles(*committed),
            (std::vector<std::string>{"a.parquet", "b.parquet", "x.parquet"}));
  auto head = committed->metadata().CurrentSnapshot();
  EXPECT_TRUE(Exists(head->manifest_list));
  auto list = avro::ReadManifestList(*io_->ReadFile(head->manifest_list));
  for (const auto& manifest : list->manifests) EXPECT_TRUE(Exists(manifest.manifest_path));
}

}  // namespace
}  // namespace skade::table
