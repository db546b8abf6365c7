// WarehouseDoctor on real warehouses: tables appended to through table/
// (real manifests and manifest lists), then damaged on disk the ways a
// warehouse gets damaged — a deleted metadata file, manifest list or
// manifest, a truncated metadata file, a pointer to nothing, a pointer out of
// the allowed roots — each reported for its table and file; nothing changes
// without repair; repair rewrites what the journal holds and drops a pointer
// to nothing only when asked.
#include "skade/catalog/warehouse_doctor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "skade/avro/manifest_list_reader.h"
#include "skade/catalog/embedded_catalog.h"
#include "skade/catalog/journal_recovery.h"
#include "skade/catalog/metadata_flusher.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/io/location.h"
#include "skade/spec/table_locations.h"
#include "skade/table/fast_append.h"
#include "skade/table/table.h"
#include "skade/util/strings.h"
#include "testing/counting_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"
#include "testing/unix_socket.h"

namespace skade::catalog {
namespace {

namespace fs = std::filesystem;
using testing::IsError;
using testing::IsOk;

class WarehouseDoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open({});
    ASSERT_THAT(catalog_->CreateNamespace({"ns"}, {}), IsOk());
  }

  // (Re)opens the catalog on the warehouse, allowing `allowed` besides.
  void Open(const std::vector<std::string>& allowed) {
    catalog_.reset();
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.allowed_locations = allowed;
    options.store_map_size = 1ull << 30;
    // At immediate, journaled files stay in the store until the test flushes.
    options.flush_interval_ms = 3600 * 1000;
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_THAT(opened, IsOk());
    catalog_ = *opened;
  }

  void CreateTable(const TableIdentifier& id, std::optional<std::string> location = {}) {
    CreateTableRequest request;
    request.name = id.name;
    request.location = std::move(location);
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    ASSERT_TRUE(catalog_->CreateTable(id.ns, request));
  }

  // One append of one data file through table/: a manifest and a manifest list.
  void Append(const TableIdentifier& id) {
    auto table = table::Table::Load(catalog_, catalog_->file_io_ptr(), id);
    ASSERT_THAT(table, IsOk());
    table::FastAppend append(*table);
    spec::DataFile file;
    file.file_path =
        spec::DataFileLocation(table->metadata(), "", StrCat("part-", ++files_, ".parquet"));
    ASSERT_THAT(table->io().WriteFile(file.file_path, "rows", /*durable=*/true), IsOk());
    file.record_count = 1;
    file.file_size_in_bytes = 4;
    file.spec_id = table->metadata().default_spec_id;
    append.AppendFile(std::move(file));
    ASSERT_THAT(append.Commit(), IsOk());
  }

  // Two tables with two appends each and one empty table; the journal
  // released (as the flusher does), so a deleted file is gone for good.
  void Populate() {
    for (const auto& id : {kOrders, kItems}) {
      CreateTable(id);
      Append(id);
      Append(id);
    }
    CreateTable(kEmpty);
    ASSERT_THAT(catalog_->Flush(), IsOk());
  }

  DoctorReport Run(const DoctorOptions& options = {}) {
    WarehouseDoctor doctor(catalog_->store(), catalog_->file_io(), catalog_->location_policy());
    auto report = doctor.Run(options);
    EXPECT_THAT(report, IsOk());
    return report.value_or(DoctorReport{});
  }

  std::string MetadataLocation(const TableIdentifier& id) {
    auto record = catalog_->store().GetTable(id);
    EXPECT_TRUE(record && *record);
    return record && *record ? (*record)->metadata_location : "";
  }

  std::shared_ptr<const spec::TableMetadata> Metadata(const TableIdentifier& id) {
    auto loaded = catalog_->LoadTable(id);
    EXPECT_THAT(loaded, IsOk());
    return loaded ? loaded->metadata : nullptr;
  }

  std::string ManifestOf(const TableIdentifier& id) {
    auto metadata = Metadata(id);
    auto bytes = catalog_->file_io().ReadFile(metadata->CurrentSnapshot()->manifest_list);
    EXPECT_THAT(bytes, IsOk());
    auto list = avro::ReadManifestList(*bytes);
    EXPECT_THAT(list, IsOk());
    return list->manifests.at(0).manifest_path;
  }

  static std::string PathOf(const std::string& location) { return *io::LocalPath(location); }

  // Populates, appends to `id` once more (its new metadata file journaled as
  // a difference from the one before) and deletes that base: the new file's
  // entry can no longer rebuild it. Returns the new file's location.
  std::string AppendAndDeleteItsBase(const TableIdentifier& id) {
    Populate();
    std::string base = MetadataLocation(id);  // durable: Populate flushed
    Append(id);
    fs::remove(PathOf(base));
    return MetadataLocation(id);
  }

  // Reopens the catalog with ext_ allowed besides the warehouse (its
  // directory made), and creates a table ext.NAME in it per name.
  void AllowExtWithTables(const std::vector<std::string>& names) {
    fs::create_directories(ext_);
    Open({ext_});
    ASSERT_THAT(catalog_->CreateNamespace({"ext"}, {}), IsOk());
    for (const std::string& name : names)
      CreateTable({{"ext"}, name}, "file://" + ext_ + "/" + name);
  }

  // Creates a table whose pointer names `location` directly in the store.
  void PointAt(const TableIdentifier& id, const std::string& location) {
    store::PointerSwap swap;
    swap.identifier = id;
    swap.new_location = location;
    ASSERT_THAT(catalog_->store().SwapPointers({swap}), IsOk());
  }

  const TableIdentifier kOrders{{"ns"}, "orders"};
  const TableIdentifier kItems{{"ns"}, "items"};
  const TableIdentifier kEmpty{{"ns"}, "empty"};
  testing::TempDir dir_;
  const std::string ext_ = dir_.Sub("ext");  // an allowed root outside the warehouse
  std::shared_ptr<EmbeddedCatalog> catalog_;
  int files_ = 0;
};

// The one problem of the report, which must be of `kind` for `table` and
// `location`.
void ExpectOnly(const DoctorReport& report, DoctorProblemKind kind, const TableIdentifier& table,
                const std::string& location) {
  ASSERT_EQ(report.problems.size(), 1u) << report.ToJson();
  const auto& problem = report.problems[0];
  EXPECT_EQ(problem.kind, kind) << report.ToJson();
  ASSERT_TRUE(problem.table);
  EXPECT_EQ(*problem.table, table);
  EXPECT_EQ(problem.location, location);
}

TEST_F(WarehouseDoctorTest, ACleanWarehouseHasNoProblems) {
  Populate();
  auto report = Run({.all_snapshots = true});
  EXPECT_TRUE(report.problems.empty()) << report.ToJson();
  EXPECT_EQ(report.tables, 3u);
  // Three metadata files, four manifest lists, four manifests (the second
  // append's list names its own manifest and the first one's).
  EXPECT_EQ(report.files_checked, 11u);
  EXPECT_EQ(report.unrepaired(), 0u);
}

TEST_F(WarehouseDoctorTest, ReportsADeletedMetadataFileAndDropsItsPointerOnlyWhenAsked) {
  Populate();
  std::string location = MetadataLocation(kOrders);
  fs::remove(PathOf(location));

  auto report = Run();
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kOrders, location);
  EXPECT_FALSE(report.problems[0].journaled);
  // Repair alone does not drop a pointer.
  report = Run({.repair = true});
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kOrders, location);
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_EQ(MetadataLocation(kOrders), location);

  report = Run({.repair = true, .drop_dangling = true});
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kOrders, location);
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kDropped);
  EXPECT_EQ(report.unrepaired(), 0u);
  auto record = catalog_->store().GetTable(kOrders);
  ASSERT_THAT(record, IsOk());
  EXPECT_FALSE(*record);
  EXPECT_TRUE(Run().problems.empty());
}

// A warehouse that is not there (unmounted, moved, a wrong --warehouse)
// shows every table's metadata as missing: nothing is dropped.
TEST_F(WarehouseDoctorTest, DropsNothingWhenNoTablesMetadataIsThere) {
  Populate();
  std::vector<std::string> locations;
  for (const auto& id : {kOrders, kItems, kEmpty}) locations.push_back(MetadataLocation(id));
  for (const auto& location : locations) fs::remove(PathOf(location));

  WarehouseDoctor doctor(catalog_->store(), catalog_->file_io(), catalog_->location_policy());
  EXPECT_THAT(doctor.Run({.repair = true, .drop_dangling = true}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(MetadataLocation(kOrders), locations[0]);
  EXPECT_EQ(MetadataLocation(kItems), locations[1]);
  EXPECT_EQ(MetadataLocation(kEmpty), locations[2]);
}

TEST_F(WarehouseDoctorTest, ReportsAPointerToNothing) {
  Populate();
  const TableIdentifier ghost{{"ns"}, "ghost"};
  std::string location =
      catalog_->warehouse_location() + "/ns/ghost/metadata/00000-x.metadata.json";
  PointAt(ghost, location);
  ExpectOnly(Run(), DoctorProblemKind::kMetadataMissing, ghost, location);
  auto report = Run({.repair = true, .drop_dangling = true});
  EXPECT_EQ(report.problems.at(0).repair, DoctorRepair::kDropped);
  EXPECT_TRUE(Run().problems.empty());
}

TEST_F(WarehouseDoctorTest, ReportsATruncatedMetadataFile) {
  Populate();
  std::string location = MetadataLocation(kItems);
  fs::resize_file(PathOf(location), 40);
  auto report = Run({.repair = true, .drop_dangling = true});
  ExpectOnly(report, DoctorProblemKind::kMetadataUnreadable, kItems, location);
  // A file that is there is never a pointer to nothing.
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_EQ(MetadataLocation(kItems), location);
}

TEST_F(WarehouseDoctorTest, ReportsADeletedManifestList) {
  Populate();
  std::string list = Metadata(kOrders)->CurrentSnapshot()->manifest_list;
  fs::remove(PathOf(list));
  ExpectOnly(Run(), DoctorProblemKind::kManifestListMissing, kOrders, list);
  EXPECT_TRUE(fs::exists(PathOf(MetadataLocation(kOrders))));
}

TEST_F(WarehouseDoctorTest, ReportsADeletedOrTruncatedManifest) {
  Populate();
  std::string manifest = ManifestOf(kOrders);
  fs::remove(PathOf(manifest));
  ExpectOnly(Run(), DoctorProblemKind::kManifestMissing, kOrders, manifest);

  std::string other = ManifestOf(kItems);
  fs::resize_file(PathOf(other), 10);
  auto report = Run();
  ASSERT_EQ(report.problems.size(), 2u) << report.ToJson();
  EXPECT_EQ(report.problems[0].kind, DoctorProblemKind::kManifestDamaged) << report.ToJson();
  EXPECT_EQ(report.problems[0].location, other);
}

TEST_F(WarehouseDoctorTest, AnOlderSnapshotIsCheckedOnlyWhenAsked) {
  Populate();
  auto metadata = Metadata(kOrders);
  std::string first_list = metadata->snapshots.front()->manifest_list;
  fs::remove(PathOf(first_list));
  EXPECT_TRUE(Run().problems.empty());
  ExpectOnly(Run({.all_snapshots = true}), DoctorProblemKind::kManifestListMissing, kOrders,
             first_list);
}

TEST_F(WarehouseDoctorTest, NeverReadsOrDropsAPointerOutsideTheAllowedRoots) {
  Populate();
  // A file that parses nowhere: read, it would be "unreadable".
  fs::create_directories(dir_.Sub("elsewhere"));
  std::ofstream(dir_.Sub("elsewhere/x.metadata.json")) << "not json";
  const TableIdentifier outside{{"ns"}, "outside"};
  std::string location = "file://" + dir_.Sub("elsewhere/x.metadata.json");
  PointAt(outside, location);
  auto report = Run({.repair = true, .drop_dangling = true});
  ExpectOnly(report, DoctorProblemKind::kLocationNotAllowed, outside, location);
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_EQ(MetadataLocation(outside), location);
}

TEST_F(WarehouseDoctorTest, RepairRewritesAJournaledMetadataFile) {
  Populate();
  Append(kOrders);  // its files are journaled: the test does not flush
  std::string location = MetadataLocation(kOrders);
  auto bytes = catalog_->file_io().ReadFile(location);
  ASSERT_THAT(bytes, IsOk());
  fs::remove(PathOf(location));

  auto report = Run();
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kOrders, location);
  EXPECT_TRUE(report.problems[0].journaled);
  EXPECT_FALSE(fs::exists(PathOf(location)));  // nothing changes without repair
  // Even asked to drop dangling pointers, a journaled file is rewritten.
  report = Run({.repair = true, .drop_dangling = true});
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kOrders, location);
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kRewritten);
  auto restored = catalog_->file_io().ReadFile(location);
  ASSERT_THAT(restored, IsOk());
  EXPECT_EQ(*restored, *bytes);
  EXPECT_EQ(MetadataLocation(kOrders), location);
  EXPECT_TRUE(Run().problems.empty());
}

// Review finding: recovery rewrote a lost journaled file through a link
// made in the table's metadata/ since, creating it wherever that led.
TEST_F(WarehouseDoctorTest, RecoveryWritesNoFileThroughALinkOutOfTheRoots) {
  Populate();
  Append(kOrders);  // journaled
  std::string location = MetadataLocation(kOrders);
  const fs::path metadata_dir = fs::path(PathOf(location)).parent_path();
  fs::remove(PathOf(location));
  const std::string elsewhere = dir_.Sub("elsewhere");
  fs::create_directories(elsewhere);
  fs::rename(metadata_dir, metadata_dir.string() + "-before");
  fs::create_directory_symlink(elsewhere, metadata_dir);

  // Kept journaled, and the rest of the catalog opens (review finding: a
  // local user could keep every table down).
  auto recovered =
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy());
  ASSERT_THAT(recovered, IsOk());
  EXPECT_GE(recovered->kept, 1u);
  EXPECT_TRUE(fs::is_empty(elsewhere));
  // The doctor reports what is in the way, and repairs nothing through it.
  auto report = Run({.repair = true});
  EXPECT_THAT(report.ToJson(),
              ::testing::HasSubstr("not rewritten: Location file://" + metadata_dir.string()));
  EXPECT_THAT(report.ToJson(), ::testing::HasSubstr("leads through a symbolic link"));
  for (const auto& problem : report.problems) EXPECT_EQ(problem.repair, DoctorRepair::kNone);
  EXPECT_TRUE(fs::is_empty(elsewhere));

  // Once the link is gone, the file comes back.
  fs::remove(metadata_dir);
  fs::rename(metadata_dir.string() + "-before", metadata_dir);
  recovered =
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy());
  ASSERT_THAT(recovered, IsOk());
  EXPECT_EQ(recovered->kept, 0u);
  EXPECT_TRUE(fs::exists(PathOf(location)));
  EXPECT_TRUE(Run().problems.empty());
}

// Review finding: a socket planted where a journaled file goes (ENXIO on
// open) made recovery fail, and the catalog would not open.
TEST_F(WarehouseDoctorTest, RecoveryReplacesASocketWhereAJournaledFileGoes) {
  Populate();
  Append(kOrders);  // journaled
  const std::string location = MetadataLocation(kOrders);
  const std::string path = PathOf(location);
  std::string contents;
  ASSERT_TRUE(std::getline(std::ifstream(path), contents, '\0'));
  fs::remove(path);
  testing::PlaceUnixSocket(path, dir_.Sub("s"));

  auto recovered =
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy());
  ASSERT_THAT(recovered, IsOk());
  EXPECT_EQ(recovered->kept, 0u);
  EXPECT_TRUE(fs::is_regular_file(path));
  EXPECT_EQ(*catalog_->file_io().ReadFile(location), contents);
}

// Review finding: one directory the server could not open for a sync (a
// client's doing) failed every table's sync, so nothing was released, and
// recovery failed, so the catalog would not open.
TEST(SyncWhatCanBeTest, LeavesOutOnlyTheFilesSomethingIsInTheWayOf) {
  testing::TempDir dir;
  auto io = io::NewLocalFileIO();
  std::vector<std::string> files;
  for (const char* name : {"a/f", "b/f", "c/f", "d/f", "e/f"}) {
    files.push_back(dir.Sub(name));
    ASSERT_THAT(io->WriteFile(files.back(), "x", false), IsOk());
  }
  // A file where c's directory was: its sync is in the way.
  fs::remove_all(dir.Sub("c"));
  { std::ofstream(dir.Sub("c")) << "not a directory"; }
  // By syncfs (four files or more), and one by one.
  for (std::vector<std::string> some : {files, std::vector<std::string>{files[1], files[2]}}) {
    auto synced = SyncWhatCanBe(*io, some);
    ASSERT_THAT(synced, IsOk());
    std::erase(some, dir.Sub("c/f"));
    EXPECT_EQ(*synced, some);
  }
}

// Last note's "left alone": while one journaled file stayed in the way,
// every flush round synced its whole batch one file at a time (and logged
// the file again, once a second).
TEST(MetadataFlusherTest, AFileInTheWayIsRetriedOnItsOwnAndTheRestKeepOneSync) {
  testing::TempDir dir;
  auto io = std::make_shared<testing::CountingFileIO>(io::NewLocalFileIO());
  store::CatalogStoreOptions options;
  options.durability = store::Durability::kImmediate;
  auto store = store::CatalogStore::Open(dir.Sub("store"), options);
  ASSERT_THAT(store, IsOk());
  MetadataFlusher flusher(io.get(), nullptr, store->get(), 0);  // rounds on Flush only
  auto add = [&](std::vector<std::string> names) {
    std::vector<std::string> files;
    for (const std::string& name : names) {
      files.push_back(dir.Sub(name));
      EXPECT_THAT(io->WriteFile(files.back(), "x", false), IsOk());
      flusher.AddJournaled(files.back());
    }
    return files;
  };
  const std::string blocked = dir.Sub("c/f");
  add({"a/f", "b/f", "c/f", "d/f"});
  fs::remove_all(dir.Sub("c"));
  { std::ofstream(dir.Sub("c")) << "not a directory"; }
  EXPECT_THAT(flusher.Flush(), IsOk());
  EXPECT_GT(io->TakeSyncBatches().size(), 1u);  // found one at a time

  // The next round: the new files in one call, the blocked one on its own.
  auto added = add({"e/f", "g/f", "h/f", "i/f"});
  EXPECT_THAT(flusher.Flush(), IsOk());
  auto batches = io->TakeSyncBatches();
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches.front(), added);
  for (size_t i = 1; i < batches.size(); ++i) {
    EXPECT_EQ(batches[i], std::vector<std::string>{blocked});
  }

  // Out of the way: synced and released, and not tried again.
  fs::remove(dir.Sub("c"));
  ASSERT_THAT(io->WriteFile(blocked, "x", false), IsOk());
  EXPECT_THAT(flusher.Flush(), IsOk());
  EXPECT_EQ(io->TakeSyncBatches(), std::vector<std::vector<std::string>>{{blocked}});
  EXPECT_THAT(flusher.Flush(), IsOk());
  EXPECT_TRUE(io->TakeSyncBatches().empty());
}

// Review finding: a directory planted where a lost journaled file goes
// made recovery fail, so the catalog (every table) would not open.
TEST_F(WarehouseDoctorTest, RecoveryKeepsAFileWithADirectoryInItsWayAndRestoresTheRest) {
  Populate();
  Append(kOrders);
  Append(kItems);
  const std::string blocked = MetadataLocation(kOrders);
  const std::string other = MetadataLocation(kItems);
  fs::remove(PathOf(blocked));
  fs::remove(PathOf(other));
  fs::create_directories(PathOf(blocked) + "/planted");

  auto recovered =
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy());
  ASSERT_THAT(recovered, IsOk());
  EXPECT_EQ(recovered->kept, 1u);
  EXPECT_TRUE(fs::exists(PathOf(other)));
  EXPECT_TRUE(fs::is_directory(PathOf(blocked)));

  fs::remove_all(PathOf(blocked));
  recovered =
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy());
  ASSERT_THAT(recovered, IsOk());
  EXPECT_EQ(recovered->kept, 0u);
  EXPECT_TRUE(fs::is_regular_file(PathOf(blocked)));
}

TEST_F(WarehouseDoctorTest, RepairRewritesAJournaledManifestList) {
  Populate();
  Append(kItems);
  std::string list = Metadata(kItems)->CurrentSnapshot()->manifest_list;
  fs::resize_file(PathOf(list), 3);
  auto report = Run();
  ExpectOnly(report, DoctorProblemKind::kManifestListUnreadable, kItems, list);
  EXPECT_TRUE(report.problems[0].journaled);
  report = Run({.repair = true});
  EXPECT_EQ(report.problems.at(0).repair, DoctorRepair::kRewritten);
  EXPECT_TRUE(Run().problems.empty());
}

// A journaled file kept as a difference from its base cannot be rebuilt
// once the base is deleted too: it is not offered as a rewrite, and with
// drop_dangling its entry is released so the catalog can open again.
TEST_F(WarehouseDoctorTest, ReleasesAJournalEntryThatCannotRebuildItsFileOnlyWhenAsked) {
  Populate();
  std::string base = MetadataLocation(kOrders);  // durable: Populate flushed
  Append(kOrders);
  std::string older = MetadataLocation(kOrders);  // journaled, a difference from `base`
  Append(kOrders);
  fs::remove(PathOf(base));
  fs::remove(PathOf(older));
  EXPECT_THAT(
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy()),
      testing::IsError(ErrorKind::kCorruption));

  auto report = Run({.repair = true});
  ASSERT_EQ(report.problems.size(), 1u) << report.ToJson();
  const DoctorProblem& problem = report.problems[0];
  EXPECT_EQ(problem.kind, DoctorProblemKind::kJournaledFileDamaged);
  EXPECT_EQ(problem.location, older);
  EXPECT_FALSE(problem.journaled);
  EXPECT_THAT(problem.detail, ::testing::HasSubstr("cannot rebuild it"));
  EXPECT_EQ(problem.repair, DoctorRepair::kNone);  // repair alone changes nothing

  report = Run({.repair = true, .drop_dangling = true});
  ASSERT_EQ(report.problems.size(), 1u) << report.ToJson();
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kReleased);
  EXPECT_THAT(report.ToJson(), ::testing::HasSubstr(R"("repair":"released")"));
  EXPECT_THAT(
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy()),
      IsOk());
  EXPECT_TRUE(Run().problems.empty());
}

// Whether an entry is lost is judged only from files the caller may read: an
// entry whose base it may not read is undetermined, never listed (so never
// released), as is one that is intact.
TEST_F(WarehouseDoctorTest, AnEntryIsLostOnlyWhenItsBaseIsReadableAndGone) {
  Populate();
  std::string base = MetadataLocation(kOrders);
  Append(kOrders);
  std::string location = MetadataLocation(kOrders);
  auto journal = catalog_->store().ReadJournaledFiles();
  ASSERT_THAT(journal, IsOk());
  auto anything = [](const std::string&) { return true; };
  EXPECT_TRUE(FindUnrebuildableFiles(catalog_->file_io(), *journal, anything).empty());
  fs::remove(PathOf(base));
  fs::remove(PathOf(location));
  auto lost = FindUnrebuildableFiles(catalog_->file_io(), *journal, anything);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].location, location);
  for (const std::string& unreadable : {base, location}) {
    EXPECT_TRUE(FindUnrebuildableFiles(catalog_->file_io(), *journal, [&](const std::string& file) {
                  return file != unreadable;
                }).empty());
  }
}

// A current file that is there but damaged, whose entry cannot rebuild it:
// the entry is released (so the catalog opens) but the table stays a
// problem, and its pointer is kept.
TEST_F(WarehouseDoctorTest, ReleasingTheEntryOfADamagedCurrentFileLeavesTheProblem) {
  std::string location = AppendAndDeleteItsBase(kItems);
  fs::resize_file(PathOf(location), 40);
  auto report = Run({.repair = true, .drop_dangling = true});
  ExpectOnly(report, DoctorProblemKind::kMetadataUnreadable, kItems, location);
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_EQ(report.unrepaired(), 1u);
  EXPECT_EQ(MetadataLocation(kItems), location);
  EXPECT_THAT(
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy()),
      IsOk());
}

TEST_F(WarehouseDoctorTest, DropsAPointerWhoseJournaledFileCannotBeRebuilt) {
  std::string location = AppendAndDeleteItsBase(kItems);
  fs::remove(PathOf(location));

  auto report = Run();
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kItems, location);
  EXPECT_FALSE(report.problems[0].journaled);
  report = Run({.repair = true, .drop_dangling = true});
  ExpectOnly(report, DoctorProblemKind::kMetadataMissing, kItems, location);
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kDropped);
  auto record = catalog_->store().GetTable(kItems);
  ASSERT_THAT(record, IsOk());
  EXPECT_FALSE(*record);
  EXPECT_THAT(
      RecoverJournaledFiles(catalog_->file_io(), catalog_->store(), catalog_->location_policy()),
      IsOk());
}

// Review finding F4: with the warehouse's tables there, --drop-dangling
// dropped every table of an --allow-location root that was not mounted.
// Each root is judged on its own: the unmounted one keeps its pointers, a
// table really gone from a healthy root is still dropped.
TEST_F(WarehouseDoctorTest, KeepsThePointersOfAnAllowedRootThatIsNotMounted) {
  ASSERT_NO_FATAL_FAILURE(AllowExtWithTables({"big", "small"}));
  const std::string& ext = ext_;
  const TableIdentifier big{{"ext"}, "big"};
  const TableIdentifier small{{"ext"}, "small"};
  Populate();
  const std::string gone = MetadataLocation(kOrders);
  fs::remove(PathOf(gone));
  const std::string big_location = MetadataLocation(big);
  const std::string small_location = MetadataLocation(small);
  fs::rename(ext, ext + "-unmounted");

  auto report = Run({.repair = true, .drop_dangling = true});
  ASSERT_EQ(report.problems.size(), 3u) << report.ToJson();
  for (const auto& problem : report.problems) {
    EXPECT_EQ(problem.kind, DoctorProblemKind::kMetadataMissing) << report.ToJson();
    if (problem.location == gone) {
      EXPECT_EQ(problem.repair, DoctorRepair::kDropped) << report.ToJson();
    } else {
      EXPECT_EQ(problem.repair, DoctorRepair::kNone) << report.ToJson();
      EXPECT_THAT(problem.detail,
                  ::testing::HasSubstr("not dropped: root " + ext + " looks unmounted"));
    }
  }
  EXPECT_EQ(MetadataLocation(big), big_location);
  EXPECT_EQ(MetadataLocation(small), small_location);
  auto record = catalog_->store().GetTable(kOrders);
  ASSERT_THAT(record, IsOk());
  EXPECT_FALSE(*record);

  // A mount point left empty is the same; so is a root whose every table
  // is missing while it holds other things.
  fs::create_directories(ext);
  report = Run({.repair = true, .drop_dangling = true});
  ASSERT_EQ(report.problems.size(), 2u) << report.ToJson();
  for (const auto& problem : report.problems) {
    EXPECT_EQ(problem.repair, DoctorRepair::kNone);
    EXPECT_THAT(problem.detail, ::testing::HasSubstr("its directory is missing, empty"));
  }
  std::ofstream(ext + "/README") << "not a table";
  report = Run({.repair = true, .drop_dangling = true});
  ASSERT_EQ(report.problems.size(), 2u) << report.ToJson();
  for (const auto& problem : report.problems) {
    EXPECT_EQ(problem.repair, DoctorRepair::kNone);
    EXPECT_THAT(problem.detail, ::testing::HasSubstr("all 2 tables under it are missing"));
  }

  // Mounted again: nothing was lost.
  fs::remove_all(ext);
  fs::rename(ext + "-unmounted", ext);
  EXPECT_TRUE(Run().problems.empty());
}

// The reviewer's case: one table under an allowed root, whose directory is
// an empty mount point. One table cannot say whether its root is there, so
// its pointer is dropped only when the directory its file was in holds
// other files.
TEST_F(WarehouseDoctorTest, TheOnlyTableOfARootIsDroppedOnlyWhenItsDirectoryIsThere) {
  ASSERT_NO_FATAL_FAILURE(AllowExtWithTables({"big"}));
  const std::string& ext = ext_;
  const TableIdentifier big{{"ext"}, "big"};
  Populate();
  const std::string location = MetadataLocation(big);
  fs::rename(ext, ext + "-unmounted");
  fs::create_directories(ext);

  auto report = Run({.repair = true, .drop_dangling = true});
  ASSERT_NO_FATAL_FAILURE(ExpectOnly(report, DoctorProblemKind::kMetadataMissing, big, location));
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_THAT(report.problems[0].detail, ::testing::HasSubstr("looks unmounted"));
  EXPECT_THAT(report.problems[0].detail, ::testing::HasSubstr("skade table drop ext.big"));
  EXPECT_EQ(MetadataLocation(big), location);

  // Its directory without its metadata directory: still not told apart.
  fs::remove(ext);
  fs::rename(ext + "-unmounted", ext);
  const fs::path metadata_dir = fs::path(PathOf(location)).parent_path();
  fs::rename(metadata_dir, metadata_dir.string() + "-moved");
  report = Run({.repair = true, .drop_dangling = true});
  ASSERT_NO_FATAL_FAILURE(ExpectOnly(report, DoctorProblemKind::kMetadataMissing, big, location));
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_THAT(report.problems[0].detail, ::testing::HasSubstr("the only table under root"));

  // Its metadata directory there with other files, only its file gone: a
  // table really dangling.
  fs::rename(metadata_dir.string() + "-moved", metadata_dir);
  std::ofstream(metadata_dir.string() + "/00000-old.metadata.json") << "{}";
  fs::remove(PathOf(location));
  report = Run({.repair = true, .drop_dangling = true});
  ASSERT_NO_FATAL_FAILURE(ExpectOnly(report, DoctorProblemKind::kMetadataMissing, big, location));
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kDropped);
}

// Review finding F5a: a manifest overwritten with zeros at its own length
// passed (only its length was compared) while a scan failed on it.
TEST_F(WarehouseDoctorTest, ReportsAManifestOrListZeroedAtItsOwnLength) {
  Populate();
  auto zero = [](const std::string& location) {
    const std::string path = PathOf(location);
    const auto size = fs::file_size(path);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(size, '\0');
    ASSERT_EQ(fs::file_size(path), size);
  };
  std::string manifest = ManifestOf(kOrders);
  zero(manifest);
  auto report = Run({.all_snapshots = true});
  ASSERT_NO_FATAL_FAILURE(
      ExpectOnly(report, DoctorProblemKind::kManifestDamaged, kOrders, manifest));
  EXPECT_THAT(report.problems[0].detail, ::testing::HasSubstr("not an Avro file"));

  std::string list = Metadata(kItems)->CurrentSnapshot()->manifest_list;
  zero(list);
  report = Run();
  ASSERT_EQ(report.problems.size(), 2u) << report.ToJson();
  // Tables in name order: items, then orders.
  EXPECT_EQ(report.problems[0].kind, DoctorProblemKind::kManifestListUnreadable);
  EXPECT_EQ(report.problems[0].location, list);
  EXPECT_EQ(report.problems[1].location, manifest);
}

// Review finding F5b: a table's current metadata file replaced by another
// table's (its uuid and location) passed, and the table then showed the
// other's location. Reported, never repaired.
TEST_F(WarehouseDoctorTest, ReportsAMetadataFileOfAnotherTable) {
  Populate();
  const std::string location = MetadataLocation(kItems);
  const std::string others = *catalog_->file_io().ReadFile(MetadataLocation(kOrders));
  std::ofstream(PathOf(location), std::ios::binary | std::ios::trunc) << others;

  auto report = Run({.repair = true, .drop_dangling = true});
  ASSERT_NO_FATAL_FAILURE(
      ExpectOnly(report, DoctorProblemKind::kMetadataLocationMismatch, kItems, location));
  EXPECT_EQ(report.problems[0].repair, DoctorRepair::kNone);
  EXPECT_THAT(report.problems[0].detail, ::testing::HasSubstr(Metadata(kOrders)->table_uuid));
  EXPECT_THAT(report.problems[0].detail, ::testing::HasSubstr("skade table register --overwrite"));
  EXPECT_EQ(MetadataLocation(kItems), location);
  EXPECT_EQ(*catalog_->file_io().ReadFile(location), others);
  EXPECT_THAT(report.ToJson(), ::testing::HasSubstr(R"("kind":"metadata-location-mismatch")"));
}

// A FileIO that runs `hook` once, when Exists(`location`) is asked: a
// concurrent writer at the worst moment, without timing.
class HookedExists : public io::ForwardingFileIO {
 public:
  HookedExists(std::shared_ptr<io::FileIO> inner, std::string location, std::function<void()> hook)
      : ForwardingFileIO(std::move(inner)),
        location_(std::move(location)),
        hook_(std::move(hook)) {}
  Result<bool> Exists(std::string_view location) override {
    if (location == location_ && hook_) std::exchange(hook_, nullptr)();
    return ForwardingFileIO::Exists(location);
  }

 private:
  std::string location_;
  std::function<void()> hook_;
};

// Suspected TOCTOU in the drop: a register --overwrite landing between the
// doctor's checks and its (unconditional) drop. The store has no
// conditional drop; the doctor sees what it dropped and fails naming the
// file to register again, instead of reporting a pointer to nothing dropped.
TEST_F(WarehouseDoctorTest, ARegisterLandingBeforeTheDropIsNotDroppedSilently) {
  Populate();
  const TableIdentifier ghost{{"ns"}, "ghost"};
  const std::string nothing =
      catalog_->warehouse_location() + "/ns/ghost/metadata/00000-x.metadata.json";
  PointAt(ghost, nothing);
  const std::string valid = MetadataLocation(kEmpty);
  HookedExists io(catalog_->file_io_ptr(), nothing, [&] {
    EXPECT_THAT(
        catalog_->store().RegisterTable(ghost, valid, store::RegisterMode::kReplace, {}, {}),
        IsOk());
  });
  WarehouseDoctor doctor(catalog_->store(), io, catalog_->location_policy());
  auto report = doctor.Run({.repair = true, .drop_dangling = true});
  ASSERT_THAT(report, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(report.error().message,
              ::testing::HasSubstr("skade table register ns.ghost " + valid));
}

}  // namespace
}  // namespace skade::catalog
