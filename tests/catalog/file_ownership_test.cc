// The catalog reads and deletes only files it owns, whatever client-written
// metadata names (purge, metadata cleanup, register). Regression tests for
// the hostile-client findings of the hardening issue.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "skade/catalog/embedded_catalog.h"
#include "skade/spec/table_metadata_json.h"
#include "skade/spec/table_properties.h"
#include "skade/store/catalog_store.h"
#include "skade/util/strings.h"
#include "skade/util/uuid.h"
#include "testing/birth_time.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

namespace fs = std::filesystem;
using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

class FileOwnershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
    store_file_ = *io::LocalPath(catalog_->warehouse_location()) + "/.skade/catalog/data.mdb";
    ASSERT_TRUE(fs::exists(store_file_));
    outside_ = dir_.Sub("outside/victim.parquet");
    WriteText(outside_, "not the catalog's");
  }

  void Open(std::vector<std::string> allowed_locations = {}) {
    catalog_.reset();
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.allowed_locations = std::move(allowed_locations);
    options.store_map_size = 1ull << 30;
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  Result<LoadTableResult> TryCreate(const std::string& name,
                                    std::optional<std::string> location = std::nullopt,
                                    Properties properties = {}) {
    CreateTableRequest request;
    request.name = name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    request.location = std::move(location);
    request.properties = std::move(properties);
    return catalog_->CreateTable({"n"}, request);
  }

  LoadTableResult Create(const std::string& name, Properties properties = {}) {
    auto created = TryCreate(name, std::nullopt, std::move(properties));
    EXPECT_TRUE(created) << created.error().ToString();
    return *created;
  }

  // A create transaction's commit (assert-create) of table `name` like
  // `like`, at `location` with `properties`.
  Result<LoadTableResult> CreateByCommit(const std::string& name, const spec::TableMetadata& like,
                                         const std::string& location, Properties properties) {
    CommitTableRequest create{{{"n"}, name}, {spec::AssertCreate{}}, {}};
    create.updates = {spec::AssignUuid{NewUuid()},
                      spec::UpgradeFormatVersion{like.format_version},
                      spec::AddSchema{like.Schema(), like.last_column_id},
                      spec::SetCurrentSchema{-1},
                      spec::AddPartitionSpec{like.Spec()},
                      spec::SetDefaultSpec{-1},
                      spec::AddSortOrder{like.SortOrder()},
                      spec::SetDefaultSortOrder{-1},
                      spec::SetLocation{location},
                      spec::SetProperties{std::move(properties)}};
    return catalog_->CommitTable(create);
  }

  // Writes `like` with `location` and `properties` added as a metadata file
  // inside the warehouse, as a client may, and returns its location.
  std::string CraftMetadataFile(const spec::TableMetadata& like, const std::string& location,
                                const Properties& properties, const std::string& name) {
    spec::TableMetadata crafted = like;
    crafted.location = location;
    for (const auto& [key, value] : properties) crafted.properties[key] = value;
    const std::string file = StrCat(catalog_->warehouse_location(), "/n/crafted/metadata/00000-",
                                    name, ".metadata.json");
    WriteText(*io::LocalPath(file), spec::TableMetadataToJson(crafted));
    return file;
  }

  // Commits a snapshot whose manifest list is `manifest_list`, as a client may.
  void CommitSnapshotNaming(const TableIdentifier& id, const std::string& manifest_list) {
    auto current = catalog_->LoadTable(id);
    ASSERT_TRUE(current);
    auto request = testing::FastAppendRequest(id, *current->metadata, NewSnapshotId());
    auto snapshot = std::make_shared<spec::Snapshot>(
        *std::get<spec::AddSnapshot>(request.updates[0].value()).snapshot);
    snapshot->manifest_list = manifest_list;
    request.updates[0] = spec::AddSnapshot{snapshot};
    auto committed = catalog_->CommitTable(request);
    ASSERT_TRUE(committed) << committed.error().ToString();
  }

  testing::TempDir dir_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
  std::string store_file_;
  std::string outside_;
};

TEST_F(FileOwnershipTest, PurgeDoesNotDeleteTheStoreOrFilesOutsideTheTable) {
  auto other = Create("other");
  std::string other_file = other.metadata_location;
  Create("t");
  TableIdentifier id{{"n"}, "t"};
  CommitSnapshotNaming(id, "file://" + store_file_);
  CommitSnapshotNaming(id, "file://" + outside_);
  CommitSnapshotNaming(id, other_file);
  auto statistics = catalog_->LoadTable(id);
  spec::StatisticsFile stats;
  stats.snapshot_id = statistics->metadata->current_snapshot_id.value_or(0);
  stats.statistics_path = store_file_;
  ASSERT_TRUE(catalog_->CommitTable({id, {}, {spec::SetStatistics{stats}}}));

  ASSERT_THAT(catalog_->DropTable(id, true), IsOk());
  EXPECT_TRUE(fs::exists(store_file_));
  EXPECT_TRUE(fs::exists(outside_));
  EXPECT_TRUE(fs::exists(*io::LocalPath(other_file)));
  EXPECT_TRUE(*catalog_->TableExists({{"n"}, "other"}));
  EXPECT_THAT(catalog_->CreateNamespace({"still-works"}, {}), IsOk());
}

TEST_F(FileOwnershipTest, PurgeDeletesOnlyWhatLiesInsideARegisteredTable) {
  // A table registered from files elsewhere (allowed as a location root)
  // keeps them: purge deletes only what lies inside its own location.
  auto created = Create("t");
  TableIdentifier id{{"n"}, "t"};
  std::string inside = created.metadata->location + "/metadata/snap-1.avro";
  WriteText(*io::LocalPath(inside), "x");
  CommitSnapshotNaming(id, inside);
  CommitSnapshotNaming(id, "file://" + outside_);
  ASSERT_THAT(catalog_->DropTable(id, true), IsOk());
  EXPECT_FALSE(fs::exists(*io::LocalPath(inside)));
  EXPECT_TRUE(fs::exists(outside_));
}

TEST_F(FileOwnershipTest, PurgeDoesNotFollowASymbolicLinkOutOfTheTable) {
  auto created = Create("t");
  TableIdentifier id{{"n"}, "t"};
  std::string table_dir = *io::LocalPath(created.metadata->location);
  fs::remove(table_dir + "/data");  // the empty directory the catalog made
  fs::create_symlink(fs::path(outside_).parent_path(), table_dir + "/data");
  CommitSnapshotNaming(id, created.metadata->location + "/data/victim.parquet");
  ASSERT_THAT(catalog_->DropTable(id, true), IsOk());
  EXPECT_TRUE(fs::exists(outside_));
}

TEST_F(FileOwnershipTest, ATableRootThatBecameALinkLeadsNoPurgeOrCleanupToAnotherTable) {
  // Review finding: a root that does not exist yet (write.data.path) passes
  // every check; a local user who can write in the table then makes it a
  // link to the namespace. Where the root leads is not the table's.
  auto victim = Create("u");
  const std::string victim_file = *io::LocalPath(victim.metadata_location);
  const std::string victim_name = fs::path(victim_file).filename().string();
  auto created = Create("t", {{"write.metadata.delete-after-commit.enabled", "true"},
                              {"write.metadata.previous-versions-max", "1"}});
  TableIdentifier id{{"n"}, "t"};
  const std::string sub = created.metadata->location + "/data/sub";
  ASSERT_TRUE(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"write.data.path", sub}}}}}));
  CommitSnapshotNaming(id, sub + "/u/metadata/" + victim_name);
  fs::create_directory_symlink(fs::path(victim_file).parent_path().parent_path().parent_path(),
                               *io::LocalPath(sub));
  ASSERT_TRUE(fs::exists(*io::LocalPath(sub + "/u/metadata/" + victim_name)));

  // A commit whose cleanup drops old metadata files, then the purge.
  ASSERT_TRUE(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", "v"}}}}}));
  ASSERT_THAT(catalog_->DropTable(id, true), IsOk());
  EXPECT_TRUE(fs::exists(victim_file));
  EXPECT_TRUE(catalog_->LoadTable({{"n"}, "u"}));
}

TEST_F(FileOwnershipTest, ACommitWritesNoMetadataThroughALinkOutOfTheRoots) {
  // Review finding: whoever can write in a table can make its metadata/ a
  // link; the server's next metadata file then landed where it led.
  auto created = Create("t");
  TableIdentifier id{{"n"}, "t"};
  const std::string metadata_dir = *io::LocalPath(created.metadata->location) + "/metadata";
  const std::string elsewhere = dir_.Sub("elsewhere");
  fs::create_directories(elsewhere);
  fs::rename(metadata_dir, metadata_dir + "-before");
  fs::create_directory_symlink(elsewhere, metadata_dir);
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", "v"}}}}}),
              IsErrorWithMessage(ErrorKind::kForbidden, "leads through a symbolic link"));
  EXPECT_TRUE(fs::is_empty(elsewhere));
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, created.metadata_location);

  // A link into the store's own directory is refused the same way.
  fs::remove(metadata_dir);
  fs::create_directory_symlink(fs::path(store_file_).parent_path(), metadata_dir);
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", "v"}}}}}),
              IsError(ErrorKind::kForbidden));

  // A link that stays inside the warehouse is followed as before.
  fs::remove(metadata_dir);
  fs::create_directory_symlink(metadata_dir + "-before", metadata_dir);
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", "v"}}}}}), IsOk());
}

// A catalog on a new warehouse commits through spare files
// (io/spare_files.h), made in the warehouse directory once the store has
// made it: each commit's metadata file was made well before the commit.
TEST_F(FileOwnershipTest, ANewWarehouseCommitsThroughSpareFiles) {
  using std::chrono::milliseconds;
  auto created = Create("t");
  TableIdentifier id{{"n"}, "t"};
  if (!testing::BirthTime(*io::LocalPath(created.metadata_location))) {
    GTEST_SKIP() << "no birth times here";
  }
  bool made_ahead = false;
  for (int i = 0; i < 20 && !made_ahead; ++i) {
    std::this_thread::sleep_for(milliseconds(100));  // the spares are made meanwhile
    const auto began = testing::CoarseNow();
    auto committed =
        catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", std::to_string(i)}}}}});
    ASSERT_THAT(committed, IsOk());
    made_ahead =
        *testing::BirthTime(*io::LocalPath(committed->metadata_location)) + milliseconds(20) <
        began;
  }
  EXPECT_TRUE(made_ahead);
}

TEST_F(FileOwnershipTest, PurgeReadsNoFifoOrDevice) {
  auto created = Create("t");
  TableIdentifier id{{"n"}, "t"};
  std::string fifo = *io::LocalPath(created.metadata->location) + "/metadata/pipe.avro";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  CommitSnapshotNaming(id, "file://" + fifo);
  CommitSnapshotNaming(id, "file:///dev/zero");
  // A FIFO opened for reading blocks until a writer comes; purge must not.
  auto dropped = std::async(std::launch::async, [&] { return catalog_->DropTable(id, true); });
  ASSERT_EQ(dropped.wait_for(std::chrono::seconds(120)), std::future_status::ready)
      << "purge hung on a FIFO named by client metadata";
  EXPECT_THAT(dropped.get(), IsOk());
  EXPECT_FALSE(*catalog_->TableExists(id));
}

TEST_F(FileOwnershipTest, MetadataCleanupDeletesOnlyTheTablesOwnFiles) {
  // A registered metadata file whose metadata-log names the store and a
  // file outside: delete-after-commit must not remove either.
  auto created = Create("t");
  auto crafted = std::make_shared<spec::TableMetadata>(*created.metadata);
  crafted->metadata_log.push_back({1, "file://" + store_file_});
  crafted->metadata_log.push_back({2, "file://" + outside_});
  crafted->properties[spec::kDeleteAfterCommitEnabled] = "true";
  crafted->properties[spec::kPreviousVersionsMax] = "1";
  std::string location = created.metadata->location + "/metadata/00007-crafted.metadata.json";
  WriteText(*io::LocalPath(location), spec::TableMetadataToJson(*crafted));
  ASSERT_THAT(catalog_->DropTable({{"n"}, "t"}, false), IsOk());  // its location is the copy's
  TableIdentifier id{{"n"}, "registered"};
  ASSERT_TRUE(catalog_->RegisterTable(id, location, false, {}));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", std::to_string(i)}}}}}));
  }
  EXPECT_TRUE(fs::exists(store_file_));
  EXPECT_TRUE(fs::exists(outside_));
  EXPECT_FALSE(fs::exists(*io::LocalPath(location)));  // the table's own old version is cleaned
}

TEST_F(FileOwnershipTest, RegisterChecksTheLocationBeforeReading) {
  auto created = Create("t");
  std::string json = *catalog_->file_io().ReadFile(created.metadata_location);
  std::string existing = dir_.Sub("outside/00001-x.metadata.json");
  WriteText(existing, json);
  auto present = catalog_->RegisterTable({{"n"}, "a"}, "file://" + existing, false, {});
  auto absent =
      catalog_->RegisterTable({{"n"}, "b"}, dir_.Sub("outside/nope.metadata.json"), false, {});
  ASSERT_THAT(present, IsError(ErrorKind::kForbidden));
  ASSERT_THAT(absent, IsError(ErrorKind::kForbidden));
  // The answer does not depend on whether the file exists.
  EXPECT_EQ(present.error().message.find("nope"), std::string::npos);
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "c"}, "file://" + store_file_, false, {}),
              IsError(ErrorKind::kForbidden));
  // Nor through a link inside the warehouse, to the file or to its directory.
  const std::string links = *io::LocalPath(catalog_->warehouse_location()) + "/links";
  fs::create_directories(links);
  fs::create_symlink(existing, links + "/00001-x.metadata.json");
  fs::create_symlink(dir_.Sub("outside"), links + "/outside");
  for (const std::string& link :
       {links + "/00001-x.metadata.json", links + "/outside/00001-x.metadata.json"}) {
    EXPECT_THAT(catalog_->RegisterTable({{"n"}, "d"}, "file://" + link, false, {}),
                IsError(ErrorKind::kForbidden))
        << link;
  }
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "d"}));
}

TEST_F(FileOwnershipTest, RegisterOfANonRegularOrBadFileIsBadInput) {
  auto created = Create("t");
  std::string dir = *io::LocalPath(created.metadata->location) + "/metadata";
  std::string fifo = dir + "/00001-fifo.metadata.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto registered = std::async(std::launch::async, [&] {
    return catalog_->RegisterTable({{"n"}, "fifo"}, "file://" + fifo, false, {});
  });
  ASSERT_EQ(registered.wait_for(std::chrono::seconds(120)), std::future_status::ready)
      << "register hung on a FIFO";
  EXPECT_THAT(registered.get(), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "dir"}, "file://" + dir, false, {}),
              IsError(ErrorKind::kInvalidArgument));
  WriteText(dir + "/00002-bad.metadata.json", "{not json");
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "bad"}, dir + "/00002-bad.metadata.json", false, {}),
              IsError(ErrorKind::kInvalidArgument));
  // The same location again answers the same (no single-flight entry left).
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "bad"}, dir + "/00002-bad.metadata.json", false, {}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST_F(FileOwnershipTest, AMetadataVersionThatCannotGrowIsBadInput) {
  auto created = Create("t");
  std::string location =
      created.metadata->location + "/metadata/9223372036854775807-max.metadata.json";
  WriteText(*io::LocalPath(location), *catalog_->file_io().ReadFile(created.metadata_location));
  ASSERT_THAT(catalog_->DropTable({{"n"}, "t"}, false), IsOk());  // its location is the copy's
  TableIdentifier id{{"n"}, "max"};
  ASSERT_TRUE(catalog_->RegisterTable(id, location, false, {}));
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"k", "v"}}}}}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST_F(FileOwnershipTest, NoTableLocationInsideTheStore) {
  CreateTableRequest request;
  request.name = "in-store";
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  request.location = catalog_->warehouse_location() + "/.skade/catalog/x";
  EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kForbidden));
}

// The warehouse is every table's: no table may own it, nor anything above it,
// nor put its data or metadata in the store's directory. Refused before
// anything is written: no directories appear.
TEST_F(FileOwnershipTest, NoTableRootAtTheWarehouseOrInTheStore) {
  const std::string warehouse = catalog_->warehouse_location();
  const std::string parent = io::ParentLocation(warehouse);
  const std::string store = warehouse + "/.skade";
  for (const std::string& location : {warehouse, warehouse + "/"}) {
    EXPECT_THAT(TryCreate("root", location),
                IsErrorWithMessage(ErrorKind::kForbidden, "where other tables live"))
        << location;
  }
  EXPECT_THAT(TryCreate("root", parent), IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(fs::exists(*io::LocalPath(warehouse + "/data")));
  EXPECT_FALSE(fs::exists(*io::LocalPath(warehouse + "/metadata")));
  for (const char* property : {spec::kDataPath, spec::kMetadataPath}) {
    EXPECT_THAT(TryCreate("root", std::nullopt, {{property, warehouse}}),
                IsError(ErrorKind::kForbidden))
        << property;
    EXPECT_THAT(TryCreate("root", std::nullopt, {{property, store + "/files"}}),
                IsError(ErrorKind::kForbidden))
        << property;
  }
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "root"}));

  auto table = Create("t");
  TableIdentifier id{{"n"}, "t"};
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetLocation{warehouse}}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{spec::kDataPath, store}}}}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(
      catalog_->CommitTable({id, {}, {spec::SetProperties{{{spec::kMetadataPath, warehouse}}}}}),
      IsError(ErrorKind::kForbidden));
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, table.metadata_location);
}

TEST_F(FileOwnershipTest, NoTableMayOwnAnotherTablesFiles) {
  // The attack: a client gives its table a location that holds another's
  // files (the namespace's directory, the victim's own), then purges it.
  auto victim = Create("victim");
  const std::string& mine = victim.metadata->location;
  const std::string ns_directory = catalog_->warehouse_location() + "/n";
  for (const std::string& location : {ns_directory, mine, mine + "/data", mine + "/metadata/"}) {
    EXPECT_THAT(TryCreate("evil", location), IsErrorWithMessage(ErrorKind::kForbidden, "overlaps"))
        << location;
    EXPECT_FALSE(*catalog_->TableExists({{"n"}, "evil"}));
    // Refused before anything is made for it.
    std::string root = *io::LocalPath(location);
    if (root.ends_with('/')) root.pop_back();
    EXPECT_FALSE(fs::exists(root + "/metadata/metadata") || fs::exists(root + "/data/metadata") ||
                 fs::exists(root + "/metadata/data") || fs::exists(root + "/data/data"))
        << location;
  }
  EXPECT_FALSE(fs::exists(*io::LocalPath(ns_directory + "/metadata")));
  EXPECT_FALSE(fs::exists(*io::LocalPath(ns_directory + "/data")));
  EXPECT_THAT(TryCreate("evil", std::nullopt, {{spec::kDataPath, mine + "/data"}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(TryCreate("evil", std::nullopt, {{spec::kMetadataPath, ns_directory}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "copy"}, victim.metadata_location, false, {}),
              IsError(ErrorKind::kForbidden));
  // Beside it is fine, as is a table's own data path inside its location.
  ASSERT_TRUE(TryCreate("victim-2", mine + "-2"));
  ASSERT_TRUE(
      TryCreate("own-paths", std::nullopt, {{spec::kDataPath, ns_directory + "/own-paths/files"}}));

  // Commits that would move a table onto another's files.
  auto evil = Create("evil");
  TableIdentifier id{{"n"}, "evil"};
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetLocation{mine}}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{spec::kDataPath, mine}}}}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_THAT(
      catalog_->CommitTable({id, {}, {spec::SetProperties{{{spec::kMetadataPath, ns_directory}}}}}),
      IsError(ErrorKind::kForbidden));
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, evil.metadata_location);
  // The victim's files are all still there.
  EXPECT_TRUE(fs::exists(*io::LocalPath(victim.metadata_location)));

  // A table that moves keeps its old location (its snapshots still name
  // files there); a drop frees them all.
  ASSERT_TRUE(TryCreate("mover"));
  TableIdentifier mover{{"n"}, "mover"};
  std::string old_location = catalog_->LoadTable(mover)->metadata->location;
  std::string moved = catalog_->warehouse_location() + "/moved/mover";
  ASSERT_TRUE(catalog_->CommitTable({mover, {}, {spec::SetLocation{moved}}}));
  EXPECT_THAT(TryCreate("squatter", old_location), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(TryCreate("squatter", moved + "/x"), IsError(ErrorKind::kForbidden));
  ASSERT_THAT(catalog_->DropTable(mover, false), IsOk());
  ASSERT_TRUE(TryCreate("squatter", old_location));
  ASSERT_THAT(catalog_->DropTable({{"n"}, "victim"}, false), IsOk());
  ASSERT_TRUE(TryCreate("successor", mine));
}

TEST_F(FileOwnershipTest, ANameFreedByARenameGetsALocationOfItsOwn) {
  // A renamed table keeps its files, so the name's default location is
  // taken: a table created under the name again goes beside it.
  auto first = Create("t");
  ASSERT_THAT(catalog_->RenameTable({{"n"}, "t"}, {{"n"}, "t_old"}), IsOk());
  // A staged create (a create transaction) too, so that its commit can claim it.
  CreateTableRequest staged;
  staged.name = "t";
  staged.schema = first.metadata->Schema();
  staged.stage_create = true;
  auto stage = catalog_->CreateTable({"n"}, staged);
  ASSERT_TRUE(stage) << stage.error().ToString();
  EXPECT_TRUE(stage->metadata->location.starts_with(first.metadata->location + "-"))
      << stage->metadata->location;
  auto second = TryCreate("t");
  ASSERT_TRUE(second) << second.error().ToString();
  EXPECT_TRUE(second->metadata->location.starts_with(first.metadata->location + "-"))
      << second->metadata->location;
  // An explicit location is taken as asked, or refused.
  EXPECT_THAT(TryCreate("t2", first.metadata->location), IsError(ErrorKind::kForbidden));
}

// Review finding: a namespace named like a table (`n.t`) has its directory
// inside that table's, so every table created in it was refused 403 for a
// location the catalog chose itself. It goes beside the namespace path.
TEST_F(FileOwnershipTest, ANamespaceNamedLikeATableGetsTablesOfItsOwnLocation) {
  auto table = Create("t");
  ASSERT_THAT(catalog_->CreateNamespace({"n", "t"}, {}), IsOk());
  for (const char* name : {"x", "data", "metadata"}) {
    CreateTableRequest request;
    request.name = name;
    request.schema = table.metadata->Schema();
    auto nested = catalog_->CreateTable({"n", "t"}, request);
    ASSERT_TRUE(nested) << name << ": " << nested.error().ToString();
    const std::string& location = nested->metadata->location;
    EXPECT_TRUE(location.starts_with(catalog_->warehouse_location() + "/n-")) << location;
    EXPECT_TRUE(location.ends_with(StrCat("/t/", name))) << location;
  }
  // The table whose directory the namespace's lies in is untouched.
  EXPECT_EQ(catalog_->LoadTable({{"n"}, "t"})->metadata_location, table.metadata_location);
}

TEST_F(FileOwnershipTest, APurgeLeavesFilesAnotherTableOwnsNow) {
  // Two tables of an older store that share a location (or one made at a
  // dropped table's location while its purge runs): purging one keeps
  // what the other owns.
  auto a = Create("a");
  std::string data = a.metadata->location + "/data/f.parquet";
  WriteText(*io::LocalPath(data), "a's rows");
  CommitSnapshotNaming({{"n"}, "a"}, data);
  std::string a_metadata = catalog_->LoadTable({{"n"}, "a"})->metadata_location;
  {
    auto store = store::CatalogStore::Open(
        *io::LocalPath(catalog_->warehouse_location()) + "/.skade/catalog", {});
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->SwapPointers({{{{"n"}, "b"}, std::nullopt, a_metadata, {}}}));
  }
  ASSERT_THAT(catalog_->DropTable({{"n"}, "b"}, true), IsOk());
  EXPECT_TRUE(fs::exists(*io::LocalPath(data)));
  EXPECT_TRUE(fs::exists(*io::LocalPath(a_metadata)));
  EXPECT_TRUE(fs::exists(*io::LocalPath(a.metadata_location)));
  EXPECT_TRUE(catalog_->LoadTable({{"n"}, "a"}));
}

TEST_F(FileOwnershipTest, TablesFromBeforeTheClaimsAreClaimedAtOpen) {
  auto old = Create("old");
  ASSERT_THAT(catalog_->DropTable({{"n"}, "old"}, false), IsOk());
  {
    // The table as a store from before claims has it: no locations recorded.
    auto store = store::CatalogStore::Open(
        *io::LocalPath(catalog_->warehouse_location()) + "/.skade/catalog", {});
    ASSERT_TRUE(store);
    ASSERT_TRUE(
        (*store)->SwapPointers({{{{"n"}, "old"}, std::nullopt, old.metadata_location, {}}}));
    ASSERT_EQ((*store)->ReadUnclaimedTables()->size(), 1u);
  }
  Open();
  EXPECT_THAT(TryCreate("evil", old.metadata->location + "/data"), IsError(ErrorKind::kForbidden));
}

TEST_F(FileOwnershipTest, ALoadReadsNoMetadataFileThroughALinkNorOutsideTheRoots) {
  // Review finding: a table's metadata file, once out of the metadata
  // cache, was read wherever a link planted in its place led.
  auto created = Create("t");
  TableIdentifier id{{"n"}, "t"};
  const std::string file = *io::LocalPath(created.metadata_location);
  auto crafted = std::make_shared<spec::TableMetadata>(*created.metadata);
  crafted->properties["planted"] = "yes";
  const std::string planted = dir_.Sub("outside/planted.metadata.json");
  WriteText(planted, spec::TableMetadataToJson(*crafted));
  fs::rename(file, file + ".real");
  fs::create_symlink(planted, file);
  Open();  // an empty metadata cache
  EXPECT_THAT(catalog_->LoadTable(id),
              IsErrorWithMessage(ErrorKind::kForbidden, "is a symbolic link"));
  // Nor through a link in place of its directory.
  const std::string metadata_dir = fs::path(file).parent_path().string();
  fs::remove(file);
  fs::rename(metadata_dir, metadata_dir + "-real");
  fs::create_directory_symlink(fs::path(planted).parent_path(), metadata_dir);
  fs::rename(planted, dir_.Sub("outside") + "/" + fs::path(file).filename().string());
  EXPECT_THAT(catalog_->LoadTable(id),
              IsErrorWithMessage(ErrorKind::kForbidden, "leads through a symbolic link"));
  fs::remove(metadata_dir);
  fs::rename(metadata_dir + "-real", metadata_dir);
  fs::rename(file + ".real", file);
  auto loaded = catalog_->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_FALSE(loaded->metadata->properties.contains("planted"));

  // A table under a root allowed when it was made, and no longer.
  const std::string extra = dir_.Sub("extra");
  Open({extra});
  ASSERT_TRUE(TryCreate("u", extra + "/u"));
  Open();
  EXPECT_THAT(catalog_->LoadTable({{"n"}, "u"}),
              IsErrorWithMessage(ErrorKind::kForbidden, "outside the allowed locations"));
  Open({extra});
  EXPECT_TRUE(catalog_->LoadTable({{"n"}, "u"}));
}

TEST_F(FileOwnershipTest, ACreateMakesNoDirectoryThroughALinkOutOfTheRoots) {
  // Review finding: the table's directories were made where a link in the
  // namespace's directory led, before the 403 (and a staged create answered
  // 200 having made them).
  const std::string elsewhere = dir_.Sub("elsewhere");
  fs::create_directories(elsewhere);
  const std::string namespace_dir = *io::LocalPath(catalog_->warehouse_location()) + "/n";
  fs::create_directories(namespace_dir);
  fs::create_directory_symlink(elsewhere, namespace_dir + "/link");
  EXPECT_THAT(TryCreate("q", namespace_dir + "/link/q"), IsError(ErrorKind::kForbidden));
  EXPECT_THAT(TryCreate("q2", std::nullopt, {{spec::kMetadataPath, namespace_dir + "/link/m"}}),
              IsError(ErrorKind::kForbidden));
  CreateTableRequest staged;
  staged.name = "staged";
  staged.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  staged.location = namespace_dir + "/link/staged";
  staged.stage_create = true;
  EXPECT_THAT(catalog_->CreateTable({"n"}, staged), IsError(ErrorKind::kForbidden));
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

TEST_F(FileOwnershipTest, RegisterOfALinkIsRefusedAsEveryLaterLoadWouldBe) {
  // Review finding: a link registered (leading inside) was read while
  // cached, and refused by every load after a restart.
  auto created = Create("t");
  ASSERT_THAT(catalog_->DropTable({{"n"}, "t"}, false), IsOk());
  const std::string file = *io::LocalPath(created.metadata_location);
  const std::string link = fs::path(file).parent_path().string() + "/current.metadata.json";
  fs::create_symlink(file, link);
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "r"}, "file://" + link, false, {}),
              IsErrorWithMessage(ErrorKind::kForbidden, "is a symbolic link"));
  EXPECT_TRUE(catalog_->RegisterTable({{"n"}, "r"}, created.metadata_location, false, {}));
}

// Regression (review): a location with '#' or '?' overlapped no table and
// was accepted, while PyIceberg (urlparse) cut it there: a table at `…/t1#x`
// got its data file, manifest and manifest list all written to `…/t1`, the
// root of the table beside it, each over the last. Refused as bad input
// wherever a client names a root, before anything is made for it.
TEST_F(FileOwnershipTest, ATableRootWithAFragmentOrQueryIsBadInput) {
  auto sibling = Create("t1");
  const std::string& base = sibling.metadata->location;
  for (const std::string& root : {base + "#x", base + "?x", base + "-2/a#b"}) {
    SCOPED_TRACE(root);
    EXPECT_THAT(TryCreate("hash", root),
                IsErrorWithMessage(ErrorKind::kInvalidArgument, "as a URI"));
    for (const char* property : {spec::kDataPath, spec::kMetadataPath}) {
      EXPECT_THAT(TryCreate("hash", std::nullopt, {{property, root}}),
                  IsError(ErrorKind::kInvalidArgument))
          << property;
    }
    EXPECT_THAT(CreateByCommit("hash", *sibling.metadata, root, {}),
                IsError(ErrorKind::kInvalidArgument));
    EXPECT_THAT(CreateByCommit("hash", *sibling.metadata, base + "-3", {{spec::kDataPath, root}}),
                IsError(ErrorKind::kInvalidArgument));
  }
  CreateTableRequest staged;
  staged.name = "staged";
  staged.schema = sibling.metadata->Schema();
  staged.location = base + "#staged";
  staged.stage_create = true;
  EXPECT_THAT(catalog_->CreateTable({"n"}, staged), IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "hash"}));
  EXPECT_FALSE(fs::exists(*io::LocalPath(base + "#x")));
  EXPECT_FALSE(fs::exists(*io::LocalPath(base + "#staged")));

  auto table = Create("t");
  TableIdentifier id{{"n"}, "t"};
  for (const auto& update : std::vector<spec::TableUpdate>{
           spec::SetLocation{base + "#x"},
           spec::SetProperties{{{spec::kDataPath, table.metadata->location + "/data?x"}}},
           spec::SetProperties{{{spec::kMetadataPath, table.metadata->location + "/m#x"}}}}) {
    EXPECT_THAT(catalog_->CommitTable({id, {}, {update}}), IsError(ErrorKind::kInvalidArgument));
  }
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, table.metadata_location);

  // Nor a metadata file that names one.
  const std::string registered = catalog_->warehouse_location() + "/n/registered";
  int crafted = 0;
  for (const auto& [location, properties] : std::vector<std::pair<std::string, Properties>>{
           {registered + "#x", {}}, {registered, {{spec::kDataPath, base + "?d"}}}}) {
    std::string file =
        CraftMetadataFile(*table.metadata, location, properties, StrCat("bad", crafted++));
    EXPECT_THAT(catalog_->RegisterTable({{"n"}, "registered"}, file, false, {}),
                IsError(ErrorKind::kInvalidArgument))
        << location;
  }
  EXPECT_TRUE(catalog_->RegisterTable({{"n"}, "registered"},
                                      CraftMetadataFile(*table.metadata, registered, {}, "good"),
                                      false, {}));

  // A name with them gets a default location that encodes them.
  auto encoded = Create("t#a?b");
  EXPECT_EQ(encoded.metadata->location, catalog_->warehouse_location() + "/n/t%23a%3Fb");
}

// Regression (review): a `write.data.path` outside every allowed root was
// accepted while the same `write.metadata.path` was 403. Writers with keys
// of their own put data files there, and a purge, which deletes only inside
// the allowed roots, left them behind. Every root is held to the same roots,
// the deprecated data paths Iceberg Java still writes to included (review:
// `write.object-storage.path=file:///etc` was accepted).
TEST_F(FileOwnershipTest, ADataPathOutsideTheAllowedRootsIsForbidden) {
  const std::string elsewhere = "file://" + dir_.Sub("elsewhere");
  for (const char* property : spec::kTableRootProperties) {
    EXPECT_THAT(TryCreate("dp", std::nullopt, {{property, elsewhere + "/dp"}}),
                IsErrorWithMessage(ErrorKind::kForbidden, "outside the allowed locations"))
        << property;
  }
  auto table = Create("t");
  TableIdentifier id{{"n"}, "t"};
  EXPECT_THAT(CreateByCommit("dp", *table.metadata, table.metadata->location + "-dp",
                             {{spec::kDataPath, elsewhere + "/dp"}}),
              IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "dp"}));
  for (const char* property : spec::kTableRootProperties) {
    EXPECT_THAT(
        catalog_->CommitTable({id, {}, {spec::SetProperties{{{property, elsewhere + "/t"}}}}}),
        IsError(ErrorKind::kForbidden))
        << property;
  }
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, table.metadata_location);
  const std::string registered = catalog_->warehouse_location() + "/n/registered";
  std::string file = CraftMetadataFile(*table.metadata, registered,
                                       {{spec::kDataPath, elsewhere + "/registered"}}, "x");
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "registered"}, file, false, {}),
              IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(fs::exists(dir_.Sub("elsewhere")));

  // Allowed as a root, it may hold a table's data.
  Open({elsewhere});
  EXPECT_TRUE(TryCreate("dp", std::nullopt, {{spec::kDataPath, elsewhere + "/dp"}}));
  EXPECT_TRUE(catalog_->RegisterTable({{"n"}, "registered"}, file, false, {}));
  // A table from before the rule keeps its claims when allowed no more.
  auto old = *catalog_->LoadTable({{"n"}, "dp"});
  ASSERT_THAT(catalog_->DropTable({{"n"}, "dp"}, false), IsOk());
  {
    auto store = store::CatalogStore::Open(
        *io::LocalPath(catalog_->warehouse_location()) + "/.skade/catalog", {});
    ASSERT_TRUE(store);
    ASSERT_TRUE(
        (*store)->SwapPointers({{{{"n"}, "old"}, std::nullopt, old.metadata_location, {}}}));
  }
  Open();
  EXPECT_THAT(TryCreate("evil", old.metadata->location + "/x"),
              IsErrorWithMessage(ErrorKind::kForbidden, "overlaps"));
}

}  // namespace
}  // namespace skade::catalog
