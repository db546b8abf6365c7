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
#include <iterator>
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

  // The names in the test's directory, sorted: what a failed backup or
  // restore must not have left beside its destination.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

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
  EXPECT_EQ(Names(), (std::vector<std::string>{"empty", "other", "warehouse"}));
}

// Regression: --force deleted any directory with a file named manifest.json,
// the warehouse's own included. It replaces only what is recognisably an
// earlier backup: a manifest in a skade backup's format, and nothing else.
TEST_F(StoreBackupTest, ForceReplacesNoDirectoryThatIsNotASkadeBackup) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("real")), IsOk());
  auto refused = [&](const std::string& name, const std::string& because) {
    auto forced = Backup(dir_.Sub(name), {.force = true});
    EXPECT_THAT(forced, IsError(ErrorKind::kAlreadyExists)) << name;
    if (!forced) {
      EXPECT_THAT(forced.error().message, ::testing::HasSubstr(because)) << name;
    }
    EXPECT_TRUE(fs::exists(dir_.Sub(name + "/manifest.json"))) << name;
  };
  // Another application's manifest.json.
  fs::create_directories(dir_.Sub("foreign"));
  std::ofstream(dir_.Sub("foreign/manifest.json")) << R"({"app":"x"})";
  std::ofstream(dir_.Sub("foreign/data.bin")) << "mine";
  refused("foreign", "is not a skade backup's");
  EXPECT_TRUE(fs::exists(dir_.Sub("foreign/data.bin")));
  // The format alone is not a backup's manifest.
  fs::create_directories(dir_.Sub("format-only"));
  std::ofstream(dir_.Sub("format-only/manifest.json")) << R"({"format":"skade-backup"})";
  refused("format-only", "is not a skade backup's");
  // A backup's manifest, copied beside someone's files.
  fs::create_directories(dir_.Sub("copied"));
  fs::copy_file(dir_.Sub("real/manifest.json"), dir_.Sub("copied/manifest.json"));
  std::ofstream(dir_.Sub("copied/notes.txt")) << "mine";
  refused("copied", "holds notes.txt");
  EXPECT_TRUE(fs::exists(dir_.Sub("copied/notes.txt")));
  // A backup's layout, with a directory where a backup's store holds files.
  fs::copy(dir_.Sub("real"), dir_.Sub("nested"), fs::copy_options::recursive);
  fs::create_directories(dir_.Sub("nested/store/mine"));
  refused("nested", "holds store");
  EXPECT_TRUE(fs::exists(dir_.Sub("nested/store/mine")));

  // An earlier backup is replaced, and nothing is left beside it.
  ASSERT_THAT(Backup(dir_.Sub("real"), {.force = true}), IsOk());
  EXPECT_EQ(Names(), (std::vector<std::string>{"copied", "foreign", "format-only", "nested", "real",
                                               "warehouse"}));
}

// Regression: `skade backup . --force` in a directory holding the warehouse
// deleted the warehouse and its store. A backup never goes into, over, or
// around the warehouse or the store it backs up, also when a symbolic link
// names them, and whatever manifest is there.
TEST_F(StoreBackupTest, NoBackupGoesIntoOrOverTheWarehouseOrTheStore) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("real")), IsOk());
  const std::string warehouse = dir_.Sub("warehouse");
  const std::string store = EmbeddedCatalog::DefaultStorePath(warehouse);
  // The directory holding the warehouse, with a backup's manifest in it.
  fs::copy_file(dir_.Sub("real/manifest.json"), dir_.Sub("manifest.json"));
  fs::create_symlink(dir_.path(), dir_.Sub("up"));
  fs::create_symlink(warehouse, dir_.Sub("alias"));
  for (const std::string& destination :
       {dir_.path(), warehouse, store, warehouse + "/backup", store + "/backup",
        fs::path(store).parent_path().string(), dir_.Sub("up"), dir_.Sub("alias/backup"),
        dir_.Sub("up/warehouse/../warehouse/a")}) {
    for (bool force : {false, true}) {
      auto refused = Backup(destination, {.force = force});
      EXPECT_THAT(refused, IsError(ErrorKind::kInvalidArgument)) << destination;
      if (!refused) {
        EXPECT_THAT(refused.error().message,
                    ::testing::AnyOf(::testing::HasSubstr("the warehouse"),
                                     ::testing::HasSubstr("the catalog store")));
      }
    }
  }
  EXPECT_TRUE(fs::exists(store + "/data.mdb"));
  EXPECT_TRUE(fs::exists(dir_.Sub("manifest.json")));
  EXPECT_FALSE(fs::exists(warehouse + "/backup"));
  EXPECT_FALSE(fs::exists(store + "/backup"));
  EXPECT_THAT(catalog_->LoadTable({{"a"}, "t"}), IsOk());

  // A store of its own, outside the warehouse: kept apart the same way.
  catalog_.reset();
  catalog_ = Open(dir_.Sub("outer/store"));
  ASSERT_TRUE(catalog_);
  fs::copy_file(dir_.Sub("real/manifest.json"), dir_.Sub("outer/manifest.json"));
  EXPECT_THAT(Backup(dir_.Sub("outer"), {.force = true}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Backup(dir_.Sub("outer/store/backup")), IsError(ErrorKind::kInvalidArgument));
  EXPECT_TRUE(fs::exists(dir_.Sub("outer/store/data.mdb")));
  EXPECT_THAT(Backup(dir_.Sub("beside")), IsOk());
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

  // Without the store files' sizes and hashes (an earlier skade's backup),
  // LMDB's own check of the length finds the truncation.
  manifest->store_files.clear();
  std::ofstream(dir_.Sub("backup/manifest.json"), std::ios::trunc) << manifest->ToJson();
  fs::resize_file(dir_.Sub("backup/store/data.mdb"), 8192);
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}),
              IsError(ErrorKind::kCorruption));
  // Nothing is left behind: no store, no partial directory.
  EXPECT_EQ(Names(), (std::vector<std::string>{"backup", "warehouse"}));
}

// Regression: LMDB does not checksum its pages, and restoring a backup with
// damaged store bytes crashed in the copy (SIGBUS, a double free), leaving
// the partial store behind. The manifest records each store file's size and
// hash, and a restore checks them before LMDB opens the copy.
TEST_F(StoreBackupTest, ADamagedBackupStoreIsRefusedBeforeLmdbReadsIt) {
  CreateTable({{"a"}, "t"});
  for (int i = 0; i < 20; ++i) ASSERT_THAT(testing::FastAppend(*catalog_, {{"a"}, "t"}), IsOk());
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  const std::string data = dir_.Sub("backup/store/data.mdb");
  const uint64_t size = fs::file_size(data);
  ASSERT_EQ(manifest->store_files.size(), 1u);
  EXPECT_EQ(manifest->store_files[0].name, "data.mdb");
  EXPECT_EQ(manifest->store_files[0].size, size);
  // The hash survives its JSON.
  auto reread = BackupManifest::FromJson(manifest->ToJson());
  ASSERT_THAT(reread, IsOk());
  EXPECT_EQ(reread->store_files[0].xxh3, manifest->store_files[0].xxh3);
  // Opening the backup's store to restore it does not change it: a backup
  // restores as often as needed.
  ASSERT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("first"), {}), IsOk());
  ASSERT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("second"), {}), IsOk());
  fs::remove_all(dir_.Sub("first"));
  fs::remove_all(dir_.Sub("second"));
  std::string original;
  {
    std::ifstream in(data, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_EQ(original.size(), size);
  ASSERT_GT(size, 20480u + 16);
  auto write_data = [&](const std::string& bytes) {
    std::ofstream(data, std::ios::binary | std::ios::trunc) << bytes;
  };
  auto refused = [&](const std::string& because) {
    auto restored = RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {});
    EXPECT_THAT(restored, IsError(ErrorKind::kCorruption));
    if (!restored) {
      EXPECT_THAT(restored.error().message, ::testing::HasSubstr(because));
    }
    // Nothing is left behind: no store, no partial directory.
    EXPECT_EQ(Names(), (std::vector<std::string>{"backup", "warehouse"}));
  };

  // The reviewer's damage: 16 bytes overwritten in the pages the copy reads.
  for (uint64_t offset : {uint64_t{12288}, uint64_t{20480}, size / 2}) {
    std::string damaged = original;
    for (uint64_t i = offset; i < std::min(offset + 16, size); ++i) damaged[i] ^= 0x5a;
    write_data(damaged);
    refused("backup is damaged: store checksum mismatch");
  }
  write_data(original.substr(0, 8192));
  refused("backup is damaged: store size mismatch");
  write_data(original + std::string(4096, '\0'));
  refused("backup is damaged: store size mismatch");
  fs::remove(data);
  refused("is missing");

  // The intact file restores again.
  write_data(original);
  ASSERT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}), IsOk());
  auto restored = Open(dir_.Sub("store"));
  ASSERT_NE(restored, nullptr);
  EXPECT_THAT(restored->LoadTable({{"a"}, "t"}), IsOk());
}

// A manifest is input: its store file names stay in the store directory,
// and its hashes are hashes.
TEST_F(StoreBackupTest, AManifestsStoreFilesMustNameFilesOfTheStore) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  auto manifest = ReadBackupManifest(dir_.Sub("backup"));
  ASSERT_THAT(manifest, IsOk());
  for (std::string name : {"../manifest.json", "..", ".", "", "a/data.mdb"}) {
    auto changed = *manifest;
    changed.store_files[0].name = name;
    EXPECT_THAT(BackupManifest::FromJson(changed.ToJson()), IsError(ErrorKind::kCorruption))
        << name;
  }
  std::string json = manifest->ToJson();
  size_t at = json.find("\"xxh3-64\":\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at + 11, 16, "not-a-hash-value");
  EXPECT_THAT(BackupManifest::FromJson(json), IsError(ErrorKind::kCorruption));
}

// Restoring into the backup itself would move its store aside and put
// another copy there: refused, even with force.
TEST_F(StoreBackupTest, RestoreNeverWritesIntoTheBackup) {
  CreateTable({{"a"}, "t"});
  ASSERT_THAT(Backup(dir_.Sub("backup")), IsOk());
  for (const std::string& target :
       {dir_.Sub("backup/store"), dir_.Sub("backup"), dir_.Sub("backup/other"), dir_.path()}) {
    EXPECT_THAT(RestoreStore(dir_.Sub("backup"), target, {.force = true}),
                IsError(ErrorKind::kInvalidArgument))
        << target;
  }
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(dir_.Sub("backup"))) {
    entries.push_back(entry.path().filename().string());
  }
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"manifest.json", "store"}));
  EXPECT_EQ(Names(), (std::vector<std::string>{"backup", "warehouse"}));
  EXPECT_THAT(RestoreStore(dir_.Sub("backup"), dir_.Sub("store"), {}), IsOk());
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
