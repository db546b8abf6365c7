// BackupStore and RestoreStore on a real catalog: backups taken while
// threads commit restore to a state the catalog had; neither direction
// writes over what it must not; the metadata check finds what the warehouse
// lacks and puts back only what the backup holds.
#include "skade/catalog/store_backup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/catalog/journal_recovery.h"
#include "skade/catalog/metadata_files.h"
#include "skade/catalog/warehouse_doctor.h"
#include "skade/io/location.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

namespace fs = std::filesystem;
using testing::IsError;
using testing::IsOk;

class StoreBackupTest : public ::testing::Test {
 protected:
  void SetUp() override { catalog_ = Open(""); }

  // The warehouse's catalog, on its own store or on the one at `store`.
  // At `durability` immediate, journaled files stay in the store until the
  // test flushes.
  std::shared_ptr<EmbeddedCatalog> Open(const std::string& store,
                                        store::Durability durability = store::Durability::kNone) {
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store = store;
    options.store_map_size = 1ull << 30;
    options.durability = durability;
    options.flush_interval_ms = 3600 * 1000;
    auto opened = EmbeddedCatalog::Open(options);
    EXPECT_THAT(opened, IsOk());
    return opened.value_or(nullptr);
  }

  void CreateTable(const TableIdentifier& id) {
    auto exists = catalog_->NamespaceExists(id.ns);
    ASSERT_THAT(exists, IsOk());
    if (!*exists) {
      ASSERT_THAT(catalog_->CreateNamespace(id.ns, {}), IsOk());
    }
    CreateTableRequest request;
    request.name = id.name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    ASSERT_TRUE(catalog_->CreateTable(id.ns, request));
  }

  Result<BackupManifest> Backup(const std::string& destination, BackupOptions options = {}) {
    options.warehouse = catalog_->warehouse_location();
    return BackupStore(catalog_->store(), catalog_->file_io(), catalog_->location_policy(),
                       destination, options);
  }

  static std::string PathOf(const std::string& location) { return *io::LocalPath(location); }

  testing::TempDir dir_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
};

// The snapshot ids of `metadata`'s main branch, oldest first.
std::vector<int64_t> Lineage(const spec::TableMetadata& metadata) {
  std::vector<int64_t> ids;
  for (auto s = metadata.CurrentSnapshot(); s;
       s = s->parent_snapshot_id ? metadata.SnapshotById(*s->parent_snapshot_id) : nullptr) {
    ids.insert(ids.begin(), s->snapshot_id);
  }
  return ids;
}

TEST_F(StoreBackupTest, BackupsTakenWhileThreadsCommitRestoreToAStateTheCatalogHad) {
  const std::vector<TableIdentifier> tables = {
      {{"a"}, "t1"}, {{"a"}, "t2"}, {{"b"}, "t3"}, {{"b", "c"}, "t4"}};
  ASSERT_THAT(catalog_->CreateNamespace({"b"}, {}), IsOk());
  for (const auto& id : tables) CreateTable(id);

  std::atomic<bool> stop = false;
  std::vector<std::thread> writers;
  for (const auto& id : tables) {
    writers.emplace_back([&, id] {
      while (!stop.load()) ASSERT_THAT(testing::FastAppend(*catalog_, id), IsOk());
    });
  }
  std::vector<BackupManifest> manifests;
  for (int i = 0; i < 4; ++i) {
    auto manifest = Backup(dir_.Sub(StrCat("backup", i)));
    ASSERT_THAT(manifest, IsOk());
    manifests.push_back(std::move(*manifest));
  }
  stop = true;
  for (auto& writer : writers) writer.join();

  std::map<TableIdentifier, std::vector<int64_t>> final_lineage;
  for (const auto& id : tables) {
    auto loaded = catalog_->LoadTable(id);
    ASSERT_THAT(loaded, IsOk());
    final_lineage[id] = Lineage(*loaded->metadata);
  }
  EXPECT_LT(manifests.front().commit_seq, manifests.back().commit_seq);
  for (size_t i = 0; i < manifests.size(); ++i) {
    const BackupManifest& manifest = manifests[i];
    EXPECT_EQ(manifest.commits.size(), manifest.commit_seq);
    EXPECT_EQ(manifest.namespaces, (std::vector<spec::Namespace>{{"a"}, {"b"}, {"b", "c"}}));
    std::string store = dir_.Sub(StrCat("restored", i));
    auto restored = RestoreStore(dir_.Sub(StrCat("backup", i)), store, {});
    ASSERT_THAT(restored, IsOk());
    EXPECT_EQ(restored->manifest.commit_seq, manifest.commit_seq);

    auto restored_catalog = Open(store);
    ASSERT_NE(restored_catalog, nullptr);
    auto seq = restored_catalog->store().CommitSeq();
    ASSERT_THAT(seq, IsOk());
    EXPECT_EQ(*seq, manifest.commit_seq);
    // commit_seq agrees with the pointers: each is the last commit of its
    // table up to the backup's seq.
    std::map<uint64_t, std::string> last_commit;
    for (const auto& commit : manifest.commits) {
      last_commit[commit.table_id] = commit.metadata_location;
    }
    ASSERT_EQ(manifest.tables.size(), tables.size());
    for (const auto& table : manifest.tables) {
      EXPECT_EQ(table.metadata_location, last_commit.at(table.table_id));
      auto loaded = restored_catalog->LoadTable(table.identifier);
      ASSERT_THAT(loaded, IsOk());
      EXPECT_EQ(loaded->metadata_location, table.metadata_location);
      // A state the table had: its history is the start of the history it has now.
      auto lineage = Lineage(*loaded->metadata);
      const auto& now = final_lineage.at(table.identifier);
      ASSERT_LE(lineage.size(), now.size());
      EXPECT_TRUE(std::equal(lineage.begin(), lineage.end(), now.begin()));
    }
    // The restored catalog commits on from there.
    EXPECT_THAT(testing::FastAppend(*restored_catalog, tables[0]), IsOk());
  }
}

TEST_F(StoreBackupTest, BackupReplacesOnlyAnEarlierBackup) {
  CreateTable({{"a"}, "t"});
  fs::create_directories(dir_.Sub("other"));
  std::ofstream(dir_.Sub("other/notes.txt")) << "mine";
  EXPECT_THAT(Backup(dir_.Sub("other")), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(Backup(dir_.Sub("other"), {.force = true}), IsError(ErrorKind::kAlreadyExists));
  EXPECT_TRUE(fs::exists(dir_.Sub("other/notes.txt")));

  fs::create_directories(dir_.Sub("empty"));
  ASSERT_THAT(Backup(dir_.Sub("empty")), IsOk());
  EXPECT_THAT(Backup(dir_.Sub("empty")), IsError(ErrorKind::kAlreadyExists));
  ASSERT_THAT(testing::FastAppend(*catalog_, {{"a"}, "t"}), IsOk());
  auto replaced = Backup(dir_.Sub("empty"), {.force = true});
  ASSERT_THAT(replaced, IsOk());
  EXPECT_EQ(replaced->commit_seq, 2u);
  auto manifest = ReadBackupManifest(dir_.Sub("empty"));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->commit_seq, 2u);
  // Nothing is left beside it: no partial or replaced directory.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"empty", "other", "warehouse"}));
}

TEST_F(StoreBackupTest, RestoreRefusesANonEmptyTargetAndNeverReplacesAStoreInUse) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  fs::create_directories(dir_.Sub("target"));
  std::ofstream(dir_.Sub("target/data")) << "something";
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("target"), {}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_TRUE(fs::exists(dir_.Sub("target/data")));

  // The warehouse's own store is open (catalog_): not even with force.
  std::string live = EmbeddedCatalog::DefaultStorePath(dir_.Sub("warehouse"));
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), live, {.force = true}),
              IsError(ErrorKind::kInvalidArgument));

  // Force moves aside only a catalog store: not a directory of something
  // else, nor a warehouse (a --store/--warehouse mix-up).
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("target"), {.force = true}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_TRUE(fs::exists(dir_.Sub("target/data")));
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("warehouse"), {.force = true}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_TRUE(fs::exists(live + "/data.mdb"));

  ASSERT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}), IsOk());
  auto forced = RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {.force = true});
  ASSERT_THAT(forced, IsOk());
  EXPECT_TRUE(fs::exists(forced->replaced + "/data.mdb"));  // moved aside, not deleted
  auto restored = Open(dir_.Sub("store"));
  ASSERT_NE(restored, nullptr);
  EXPECT_THAT(restored->LoadTable({{"a"}, "t"}), IsOk());
}

// Retention keeps each table's last commit before its cut: a backup of a
// pruned log holds those and every later one, and restores.
TEST_F(StoreBackupTest, APrunedCommitLogIsBackedUpAndRestored) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(testing::FastAppend(*catalog_, {{"a"}, "t"}), IsOk());
  CreateTable({{"a"}, "u"});
  ASSERT_THAT(catalog_->store().PruneCommitLog(NowMillis() + 60'000, 1000), IsOk());
  ASSERT_THAT(testing::FastAppend(*catalog_, {{"a"}, "u"}), IsOk());
  auto backed_up = Backup(dir_.Sub("backup"));
  ASSERT_THAT(backed_up, IsOk());
  EXPECT_EQ(backed_up->commit_seq, 4u);
  // t's last (2), u's create (3) and the commit after the cut (4).
  ASSERT_EQ(backed_up->commits.size(), 3u);
  EXPECT_EQ(backed_up->commits.front().commit_seq, 2u);
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}), IsOk());
}

// A restored store numbers its commits on from the backup's last one, so a
// change-feed reader that had read past the backup would resume at numbers
// that now name other commits. Its position (number and check) says so.
TEST_F(StoreBackupTest, AChangeFeedPositionFromPastTheBackupIsRefusedAfterARestore) {
  const TableIdentifier id{{"a"}, "t"};
  CreateTable(id);
  ASSERT_THAT(testing::FastAppend(*catalog_, id), IsOk());
  auto position_of_last = [](EmbeddedCatalog& catalog) {
    auto page = catalog.ReadChanges({0}, 1000);
    EXPECT_THAT(page, IsOk());
    const auto& [seq, commit] = page->commits.back();
    return ChangePosition::After(seq, commit);
  };
  const ChangePosition at_backup = position_of_last(*catalog_);
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  ASSERT_THAT(testing::FastAppend(*catalog_, id), IsOk());
  ASSERT_THAT(testing::FastAppend(*catalog_, id), IsOk());
  const ChangePosition past_backup = position_of_last(*catalog_);
  ASSERT_EQ(past_backup.seq, at_backup.seq + 2);
  // The reader's own position goes on working before the restore.
  EXPECT_THAT(catalog_->ReadChanges(past_backup, 10), IsOk());

  ASSERT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("restored"), {}), IsOk());
  auto restored = Open(dir_.Sub("restored"));
  ASSERT_NE(restored, nullptr);
  // Right after the restore the reader's number is past the end: 410 too.
  EXPECT_THAT(restored->ReadChanges(past_backup, 10), IsError(ErrorKind::kGone));
  EXPECT_THAT(restored->ReadChanges({past_backup.seq}, 10), IsError(ErrorKind::kInvalidArgument));
  for (int i = 0; i < 3; ++i) ASSERT_THAT(testing::FastAppend(*restored, id), IsOk());

  auto refused = restored->ReadChanges(past_backup, 10);
  ASSERT_THAT(refused, IsError(ErrorKind::kGone));
  EXPECT_NE(refused.error().message.find("restored from a backup"), std::string::npos)
      << refused.error().message;
  // A position the backup holds is the same commit there: paging goes on.
  auto from_backup = restored->ReadChanges(at_backup, 10);
  ASSERT_THAT(from_backup, IsOk());
  EXPECT_EQ(from_backup->commits.size(), 3u);
  // A bare number is not checked.
  EXPECT_THAT(restored->ReadChanges({past_backup.seq}, 10), IsOk());
}

// A backup whose store does not hold the history its manifest lists (the
// store file tampered with, say) is refused, and so is a truncated one —
// with an error, not a fault on the first page past the file's end.
TEST_F(StoreBackupTest, RestoreRejectsADifferentHistoryOrATruncatedStore) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(testing::FastAppend(*catalog_, {{"a"}, "t"}), IsOk());
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  std::string original = manifest->ToJson();
  manifest->commits.front().metadata_location += ".other";
  std::ofstream(dir_.Sub("backup/manifest.json"), std::ios::trunc) << manifest->ToJson();
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}),
              IsError(ErrorKind::kCorruption));
  std::ofstream(dir_.Sub("backup/manifest.json"), std::ios::trunc) << original;

  fs::resize_file(dir_.Sub("backup/store/data.mdb"), 8192);
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}),
              IsError(ErrorKind::kCorruption));
  // Nothing is left behind: no store, no partial directory.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"backup", "warehouse"}));
}

TEST_F(StoreBackupTest, RestoreRejectsABackupThatDoesNotMatchItsManifest) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  manifest->commit_seq += 1;
  fs::remove(dir_.Sub("backup/manifest.json"));
  std::ofstream(dir_.Sub("backup/manifest.json")) << manifest->ToJson();
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("target"), {}),
              IsError(ErrorKind::kCorruption));
  EXPECT_FALSE(fs::exists(dir_.Sub("target")));

  std::ofstream(dir_.Sub("backup/manifest.json"), std::ios::trunc) << R"({"format":"other"})";
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("target"), {}),
              IsError(ErrorKind::kCorruption));
}

TEST_F(StoreBackupTest, TheMetadataCheckPutsBackOnlyWhatTheBackupHolds) {
  const TableIdentifier kept{{"a"}, "kept"};
  const TableIdentifier lost{{"a"}, "lost"};
  CreateTable(kept);
  CreateTable(lost);
  ASSERT_THAT(testing::FastAppend(*catalog_, kept), IsOk());
  ASSERT_THAT(Backup(dir_.Sub("backup"), {.with_metadata = true}), IsOk());
  ASSERT_THAT(Backup(dir_.Sub("bare")), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  std::map<TableIdentifier, std::string> current;
  for (const auto& table : manifest->tables) {
    EXPECT_FALSE(table.metadata_copy.empty());
    current[table.identifier] = table.metadata_location;
  }
  std::string first = manifest->commits.front().metadata_location;  // kept's first version
  ASSERT_NE(first, current[kept]);
  fs::remove(PathOf(current[lost]));
  fs::remove(PathOf(first));

  auto bare = CheckBackupMetadata(dir_.Sub("bare"), *manifest, catalog_->store(),
                                  catalog_->file_io(), catalog_->location_policy(), {});
  ASSERT_THAT(bare, IsOk());
  ASSERT_EQ(bare->missing_current.size(), 1u);
  EXPECT_EQ(bare->missing_current[0].identifier, lost);
  EXPECT_TRUE(bare->rewritten_current.empty());  // the bare backup has no copy
  EXPECT_EQ(bare->missing_history, std::vector<std::string>{first});
  EXPECT_FALSE(fs::exists(PathOf(current[lost])));

  auto check = CheckBackupMetadata(dir_.Sub("backup"), *manifest, catalog_->store(),
                                   catalog_->file_io(), catalog_->location_policy(), {});
  ASSERT_THAT(check, IsOk());
  ASSERT_EQ(check->rewritten_current.size(), 1u);
  EXPECT_EQ(check->rewritten_current[0].identifier, lost);
  EXPECT_THAT(ReadMetadataFile(catalog_->file_io(), current[lost]), IsOk());
  EXPECT_EQ(check->missing_history, std::vector<std::string>{first});  // never had a copy
}

// The journal a backup copies holds the files of its last commits, each
// kept as a difference from the version before. With the warehouse's
// metadata lost too, the current file comes back from the backup's copy; an
// older journaled one whose base is gone is reported, and the doctor
// releases it so the catalog opens.
TEST_F(StoreBackupTest, AJournaledCurrentFileComesBackFromTheCopyWhenItsBaseIsLostToo) {
  catalog_.reset();
  catalog_ = Open("", store::Durability::kImmediate);
  ASSERT_TRUE(catalog_);
  const TableIdentifier table{{"a"}, "t"};
  CreateTable(table);
  ASSERT_THAT(testing::FastAppend(*catalog_, table), IsOk());
  ASSERT_THAT(catalog_->Flush(), IsOk());
  std::vector<std::string> versions;  // journaled, each a difference from the one before
  for (int i = 0; i < 2; ++i) {
    ASSERT_THAT(testing::FastAppend(*catalog_, table), IsOk());
    auto loaded = catalog_->LoadTable(table);
    ASSERT_THAT(loaded, IsOk());
    versions.push_back(loaded->metadata_location);
  }
  auto journal = catalog_->store().ReadJournaledFiles();
  ASSERT_THAT(journal, IsOk());
  std::map<std::string, std::string> bytes;
  for (const auto& location : versions) {
    auto entry = std::find_if(journal->begin(), journal->end(),
                              [&](const auto& file) { return file.location == location; });
    ASSERT_NE(entry, journal->end());
    EXPECT_TRUE(entry->delta) << location;
    auto read = catalog_->file_io().ReadFile(location);
    ASSERT_THAT(read, IsOk());
    bytes[location] = *read;
  }
  ASSERT_THAT(Backup(dir_.Sub("backup"), {.with_metadata = true}), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  std::string metadata_directory = fs::path(PathOf(versions.back())).parent_path();
  for (const auto& entry : fs::directory_iterator(metadata_directory)) {
    if (entry.path().string().ends_with(".metadata.json")) fs::remove(entry.path());
  }
  // Without the put-back, the open's recovery could rebuild neither.
  auto recovered =
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy());
  EXPECT_THAT(recovered, IsError(ErrorKind::kCorruption));

  auto check = CheckBackupMetadata(dir_.Sub("backup"), *manifest, catalog_->store(),
                                   catalog_->file_io(), catalog_->location_policy(), {});
  ASSERT_THAT(check, IsOk());
  ASSERT_EQ(check->rewritten_current.size(), 1u);
  EXPECT_EQ(check->rewritten_current[0].identifier, table);
  EXPECT_TRUE(check->journaled_current.empty());
  auto current = catalog_->file_io().ReadFile(versions.back());
  ASSERT_THAT(current, IsOk());
  EXPECT_EQ(*current, bytes[versions.back()]);
  ASSERT_EQ(check->unrebuildable.size(), 1u);
  EXPECT_EQ(check->unrebuildable[0].location, versions.front());
  EXPECT_THAT(check->unrebuildable[0].reason, ::testing::HasSubstr("is missing"));
  EXPECT_THAT(
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy()),
      IsError(ErrorKind::kCorruption));

  WarehouseDoctor doctor(catalog_->store(), catalog_->file_io(), catalog_->location_policy());
  auto report = doctor.Run({.repair = true, .drop_dangling = true});
  ASSERT_THAT(report, IsOk());
  // (testing::FastAppend names manifest lists it does not write.)
  auto released =
      std::find_if(report->problems.begin(), report->problems.end(),
                   [&](const auto& problem) { return problem.location == versions[0]; });
  ASSERT_NE(released, report->problems.end()) << report->ToJson();
  EXPECT_EQ(released->repair, DoctorRepair::kReleased);
  EXPECT_THAT(
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy()),
      IsOk());
  auto loaded = catalog_->LoadTable(table);
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_location, versions.back());
}

TEST_F(StoreBackupTest, AManifestCannotLeadTheCheckOutOfTheBackupOrTheWarehouse) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("backup"), {.with_metadata = true}), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  std::string outside = "file://" + dir_.Sub("elsewhere/00000-x.metadata.json");
  std::string traversal = catalog_->warehouse_location() + "/a/t/metadata/00009-y.metadata.json";
  // Copies named outside the backup's metadata directory are not read.
  manifest->tables = {{{{"a"}, "t"}, 1, outside, manifest->tables[0].metadata_copy},
                      {{{"a"}, "u"}, 2, traversal, "metadata/../manifest.json"}};
  auto check = CheckBackupMetadata(dir_.Sub("backup"), *manifest, catalog_->store(),
                                   catalog_->file_io(), catalog_->location_policy(), {});
  ASSERT_THAT(check, IsOk());
  EXPECT_EQ(check->not_allowed, std::vector<std::string>{outside});
  ASSERT_EQ(check->missing_current.size(), 1u);
  EXPECT_TRUE(check->rewritten_current.empty());
  EXPECT_FALSE(fs::exists(dir_.Sub("elsewhere")));
  EXPECT_FALSE(fs::exists(PathOf(traversal)));
}

}  // namespace
}  // namespace skade::catalog
