#include "skade/catalog/embedded_catalog.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "skade/spec/table_locations.h"
#include "skade/spec/table_metadata_json.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

spec::SchemaPtr TestSchema() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", spec::Type::Long(), true, {}, {}, {}},
             {2, "name", spec::Type::String(), false, {}, {}, {}},
             {3, "ts", spec::Type::TimestampTz(), false, {}, {}, {}},
         });
}

class EmbeddedCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(store::Durability::kImmediate); }

  void Open(store::Durability durability) {
    catalog_.reset();
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.durability = durability;
    options.store_map_size = 1ull << 30;
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
  }

  LoadTableResult Create(const TableIdentifier& id, Properties properties = {}) {
    for (size_t depth = 1; depth <= id.ns.size(); ++depth) {
      Namespace prefix(id.ns.begin(), id.ns.begin() + depth);
      if (!*catalog_->NamespaceExists(prefix)) {
        EXPECT_THAT(catalog_->CreateNamespace(prefix, {}), IsOk());
      }
    }
    CreateTableRequest request;
    request.name = id.name;
    request.schema = TestSchema();
    request.properties = std::move(properties);
    auto created = catalog_->CreateTable(id.ns, request);
    EXPECT_TRUE(created) << created.error().ToString();
    return *created;
  }

  bool FileExists(const std::string& location) { return *catalog_->file_io().Exists(location); }

  testing::TempDir dir_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
};

TEST_F(EmbeddedCatalogTest, CreateWritesVersionZeroUnderTheDefaultLocation) {
  auto created = Create({{"sales", "eu"}, "orders"});
  const auto& m = *created.metadata;
  EXPECT_EQ(m.location, catalog_->warehouse_location() + "/sales/eu/orders");
  EXPECT_EQ(m.format_version, 2);
  EXPECT_TRUE(created.metadata_location.starts_with(m.location + "/metadata/00000-"));
  EXPECT_TRUE(created.metadata_location.ends_with(".metadata.json"));
  EXPECT_TRUE(FileExists(created.metadata_location));
  EXPECT_TRUE(m.metadata_log.empty());

  auto loaded = catalog_->LoadTable({{"sales", "eu"}, "orders"});
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->metadata_location, created.metadata_location);
  EXPECT_TRUE(loaded->metadata->Equals(m));
  // The raw bytes are the file's, so REST can embed them verbatim.
  EXPECT_EQ(*loaded->metadata_json, *catalog_->file_io().ReadFile(created.metadata_location));
}

TEST_F(EmbeddedCatalogTest, CreateHonoursFormatVersionAndExplicitLocation) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  for (int version : {1, 2, 3}) {
    CreateTableRequest request;
    request.name = "v" + std::to_string(version);
    request.schema = TestSchema();
    request.properties = {{"format-version", std::to_string(version)}, {"owner", "me"}};
    auto created = catalog_->CreateTable({"n"}, request);
    ASSERT_TRUE(created) << created.error().ToString();
    EXPECT_EQ(created->metadata->format_version, version);
    EXPECT_EQ(created->metadata->properties.count("format-version"), 0u);
    EXPECT_EQ(created->metadata->properties.at("owner"), "me");
  }
  CreateTableRequest request;
  request.name = "inside";
  request.schema = TestSchema();
  request.location = catalog_->warehouse_location() + "/custom/place/";
  auto created = catalog_->CreateTable({"n"}, request);
  ASSERT_TRUE(created);
  EXPECT_EQ(created->metadata->location, catalog_->warehouse_location() + "/custom/place");
  request.name = "bad";
  request.properties = {{"format-version", "4"}};
  EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kInvalidArgument));
}

TEST_F(EmbeddedCatalogTest, CreateErrorsAreTheCatalogKinds) {
  CreateTableRequest request;
  request.name = "t";
  request.schema = TestSchema();
  EXPECT_THAT(catalog_->CreateTable({"missing"}, request),
              IsErrorWithMessage(ErrorKind::kNoSuchNamespace, "Namespace does not exist: missing"));
  Create({{"n"}, "t"});
  EXPECT_THAT(catalog_->CreateTable({"n"}, request),
              IsErrorWithMessage(ErrorKind::kAlreadyExists, "Table already exists: n.t"));
  EXPECT_THAT(catalog_->LoadTable({{"n"}, "nope"}),
              IsErrorWithMessage(ErrorKind::kNoSuchTable, "Table does not exist: n.nope"));
  EXPECT_THAT(catalog_->LoadTable({{"nons"}, "nope"}), IsError(ErrorKind::kNoSuchTable));
}

// Found by rest_request_fuzz: a name whose directory would exceed the file
// system's name limit ('/' percent-encodes to three bytes) threw out of the
// server. It is bad input: kInvalidArgument, and no table.
TEST_F(EmbeddedCatalogTest, NameTooLongForADirectoryIsInvalidArgument) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  CreateTableRequest request;
  request.schema = TestSchema();
  request.name = "[" + std::string(130, '/');
  EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kInvalidArgument));
  auto exists = catalog_->TableExists({{"n"}, request.name});
  ASSERT_TRUE(exists);
  EXPECT_FALSE(*exists);
}

TEST_F(EmbeddedCatalogTest, InvalidNamesNeverReachTheFileSystem) {
  CreateTableRequest request;
  request.schema = TestSchema();
  for (const std::string& bad : std::vector<std::string>{"..", ".", std::string("a\0b", 3),
                                                         "a\x1f"
                                                         "b",
                                                         "", "x\n", "\xff"}) {
    EXPECT_THAT(catalog_->CreateNamespace({bad}, {}), IsError(ErrorKind::kInvalidArgument)) << bad;
    request.name = bad;
    EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kInvalidArgument)) << bad;
  }
  EXPECT_THAT(catalog_->CreateNamespace({".skade"}, {}), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(catalog_->CreateNamespace({}, {}), IsError(ErrorKind::kInvalidArgument));
  // Nothing escaped the warehouse.
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("n")));
}

TEST_F(EmbeddedCatalogTest, LocationsOutsideTheAllowedRootsAreForbidden) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  CreateTableRequest request;
  request.name = "t";
  request.schema = TestSchema();
  request.location = "file://" + dir_.Sub("outside");
  EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kForbidden));
  request.stage_create = true;
  EXPECT_THAT(catalog_->CreateTable({"n"}, request), IsError(ErrorKind::kForbidden));
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("outside")));

  TableIdentifier id{{"n"}, "inside"};
  auto created = Create(id);
  for (auto update : std::vector<spec::TableUpdate>{
           spec::SetLocation{"file://" + dir_.Sub("outside")},
           spec::SetProperties{{{"write.metadata.path", "file://" + dir_.Sub("outside")}}}}) {
    EXPECT_THAT(catalog_->CommitTable({id, {}, {update}}), IsError(ErrorKind::kForbidden));
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("outside")));
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, created.metadata_location);

  // An explicitly allowed root works.
  catalog_.reset();
  EmbeddedCatalogOptions options;
  options.warehouse = dir_.Sub("warehouse");
  options.store_map_size = 1ull << 30;
  options.allowed_locations = {dir_.Sub("warehouse"), "file://" + dir_.Sub("outside")};
  catalog_ = *EmbeddedCatalog::Open(options);
  request.stage_create = false;
  ASSERT_TRUE(catalog_->CreateTable({"n"}, request));
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("outside/metadata")));
}

TEST_F(EmbeddedCatalogTest, SlashesInNamesStayInsideTheirDirectory) {
  // Iceberg allows '/' in names; it must never become a path separator.
  auto created = Create({{"../up"}, "../../out"});
  EXPECT_EQ(created.metadata->location, catalog_->warehouse_location() + "/..%2Fup/..%2F..%2Fout");
  EXPECT_TRUE(FileExists(created.metadata_location));
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("out")));
  EXPECT_TRUE(*catalog_->TableExists({{"../up"}, "../../out"}));
}

// '?' and '#' start a URI's query and fragment: readers that take a location
// as a URI (pyarrow) would cut the path there, and two tables would share it.
TEST_F(EmbeddedCatalogTest, QueryAndFragmentCharactersAreEncodedInDefaultLocations) {
  auto first = Create({{"z?1"}, "t#a"});
  auto second = Create({{"z?2"}, "t#b"});
  EXPECT_EQ(first.metadata->location, catalog_->warehouse_location() + "/z%3F1/t%23a");
  EXPECT_EQ(second.metadata->location, catalog_->warehouse_location() + "/z%3F2/t%23b");
  EXPECT_TRUE(FileExists(first.metadata_location));
}

// An S3 access policy scoped to a table's location reads '*' and '?' as
// wildcards and "${…}" as a variable: vended keys for a table named "*"
// would reach every table beside it.
TEST_F(EmbeddedCatalogTest, PolicyWildcardsAndVariablesAreEncodedInDefaultLocations) {
  auto star = Create({{"n"}, "*"});
  auto variable = Create({{"${aws:username}"}, "t"});
  EXPECT_EQ(star.metadata->location, catalog_->warehouse_location() + "/n/%2A");
  EXPECT_EQ(variable.metadata->location, catalog_->warehouse_location() + "/%24{aws:username}/t");
}

// The store keys a table by its whole identifier: one longer than the store
// takes is refused as a bad name before anything is written.
TEST_F(EmbeddedCatalogTest, IdentifiersLongerThanTheStoreKeysAreBadNames) {
  const std::string a(250, 'a'), b(250, 'b'), c(250, 'c');
  EXPECT_THAT(catalog_->CreateNamespace({a, b, c}, {}), IsError(ErrorKind::kInvalidArgument));
  ASSERT_THAT(catalog_->CreateNamespace({a}, {}), IsOk());
  ASSERT_THAT(catalog_->CreateNamespace({a, b}, {}), IsOk());  // 501 bytes joined
  CreateTableRequest request;
  request.name = std::string(20, 't');
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  EXPECT_THAT(catalog_->CreateTable({a, b}, request), IsError(ErrorKind::kInvalidArgument));
  request.name = std::string(9, 't');  // 511 bytes joined: the most a key takes
  ASSERT_THAT(catalog_->CreateTable({a, b}, request), IsOk());
  EXPECT_THAT(catalog_->RenameTable({{a, b}, request.name}, {{a, b}, std::string(10, 'u')}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_TRUE(*catalog_->TableExists({{a, b}, request.name}));
}

TEST_F(EmbeddedCatalogTest, NamespaceLifecycle) {
  ASSERT_THAT(catalog_->CreateNamespace({"a"}, {{"k", "v"}}), IsOk());
  ASSERT_THAT(catalog_->CreateNamespace({"a", "b"}, {}), IsOk());
  EXPECT_THAT(catalog_->CreateNamespace({"x", "y"}, {}), IsError(ErrorKind::kNoSuchNamespace));
  auto top = catalog_->ListNamespaces({});
  ASSERT_TRUE(top);
  EXPECT_EQ(top->items, (std::vector<Namespace>{{"a"}}));  // the store dir is not a namespace
  EXPECT_EQ(catalog_->ListNamespaces({"a"})->items, (std::vector<Namespace>{{"a", "b"}}));
  EXPECT_EQ(catalog_->LoadNamespaceProperties({"a"})->at("k"), "v");
  auto updated = catalog_->UpdateNamespaceProperties({"a"}, {"k", "gone"}, {{"n", "1"}});
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->updated, std::vector<std::string>{"n"});
  EXPECT_EQ(updated->removed, std::vector<std::string>{"k"});
  EXPECT_EQ(updated->missing, std::vector<std::string>{"gone"});
  EXPECT_THAT(catalog_->UpdateNamespaceProperties({"a"}, {"n"}, {{"n", "2"}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(catalog_->DropNamespace({"a"}), IsError(ErrorKind::kNamespaceNotEmpty));
  ASSERT_THAT(catalog_->DropNamespace({"a", "b"}), IsOk());
  ASSERT_THAT(catalog_->DropNamespace({"a"}), IsOk());
  EXPECT_FALSE(*catalog_->NamespaceExists({"a"}));
}

TEST_F(EmbeddedCatalogTest, CommitWritesANewFileAndKeepsTheLogs) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id);
  auto first = testing::FastAppend(*catalog_, id);
  ASSERT_TRUE(first) << first.error().ToString();
  auto second = testing::FastAppend(*catalog_, id);
  ASSERT_TRUE(second);

  auto loaded = catalog_->LoadTable(id);
  ASSERT_TRUE(loaded);
  const auto& m = *loaded->metadata;
  EXPECT_TRUE(loaded->metadata_location.find("/metadata/00002-") != std::string::npos);
  EXPECT_EQ(m.current_snapshot_id, *second);
  EXPECT_EQ(m.SnapshotById(*second)->parent_snapshot_id, *first);
  EXPECT_EQ(m.last_sequence_number, 2);
  ASSERT_EQ(m.snapshot_log.size(), 2u);
  EXPECT_EQ(m.snapshot_log.back().snapshot_id, *second);
  ASSERT_EQ(m.metadata_log.size(), 2u);
  EXPECT_EQ(m.metadata_log.front().metadata_file, created.metadata_location);

  // Time travel by snapshot id finds the version that introduced it.
  auto at_first = catalog_->LoadTableAt(id, *first);
  ASSERT_TRUE(at_first);
  EXPECT_EQ(at_first->metadata->current_snapshot_id, *first);
  EXPECT_THAT(catalog_->LoadTableAt(id, 12345), IsError(ErrorKind::kNotFound));
}

TEST_F(EmbeddedCatalogTest, FailedRequirementIsCommitFailedAndChangesNothing) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id);
  auto stale = testing::FastAppendRequest(id, *created.metadata, 111);
  ASSERT_TRUE(testing::FastAppend(*catalog_, id));
  auto before = catalog_->LoadTable(id);
  auto failed = catalog_->CommitTable(stale);
  ASSERT_THAT(failed,
              IsErrorWithMessage(ErrorKind::kCommitFailed,
                                 "Requirement failed: branch main was created concurrently"));
  auto after = catalog_->LoadTable(id);
  EXPECT_EQ(after->metadata_location, before->metadata_location);

  CommitTableRequest wrong_uuid{id,
                                {spec::AssertTableUuid{"00000000-0000-0000-0000-000000000000"}},
                                {spec::SetProperties{{{"a", "b"}}}}};
  EXPECT_THAT(catalog_->CommitTable(wrong_uuid),
              IsErrorWithMessage(ErrorKind::kCommitFailed, "UUID does not match"));
  EXPECT_THAT(catalog_->CommitTable({{{"n"}, "missing"}, {}, {spec::SetProperties{{{"a", "b"}}}}}),
              IsError(ErrorKind::kNoSuchTable));
}

TEST_F(EmbeddedCatalogTest, NoOpCommitWritesNoFile) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id, {{"a", "1"}});
  auto same = catalog_->CommitTable({id, {}, {spec::SetProperties{{{"a", "1"}}}}});
  ASSERT_TRUE(same) << same.error().ToString();
  EXPECT_EQ(same->metadata_location, created.metadata_location);
  auto files = catalog_->file_io().ListDirectory(created.metadata->location + "/metadata");
  EXPECT_EQ(files->size(), 1u);
}

TEST_F(EmbeddedCatalogTest, SkadeCommitPropertiesAreCheckedWhenSet) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id, {{"skade.commit.rebase-appends", "FALSE"}});
  auto set = [&](const std::string& key, const std::string& value) {
    return catalog_->CommitTable({id, {}, {spec::SetProperties{{{key, value}}}}});
  };
  EXPECT_THAT(set("skade.commit.rebase-appends", "flase"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Invalid skade.commit.rebase-appends 'flase'"));
  EXPECT_THAT(set("skade.commit.history-mode", "merge"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument, "expected 'merged' or"));
  EXPECT_THAT(set("skade.commit.deferred-max-bytes", "-1"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(set("skade.commit.rebase", "true"),
              IsErrorWithMessage(ErrorKind::kInvalidArgument,
                                 "Unknown table property skade.commit.rebase"));
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, created.metadata_location);
  EXPECT_THAT(set("skade.commit.history-mode", "per-transaction"), IsOk());
  EXPECT_THAT(set("skade.commit.deferred-max-bytes", "0"), IsOk());
  EXPECT_THAT(set("skade.other", "anything"), IsOk());

  CreateTableRequest bad;
  bad.name = "bad";
  bad.schema = TestSchema();
  bad.properties = {{"skade.commit.history-mode", "sometimes"}};
  EXPECT_THAT(catalog_->CreateTable({"n"}, bad), IsError(ErrorKind::kInvalidArgument));
  CommitTableRequest create{{{"n"}, "bad"}, {spec::AssertCreate{}}, {}};
  create.updates = {spec::SetProperties{{{"skade.commit.deferred-max-bytes", "4 MiB"}}}};
  EXPECT_THAT(catalog_->CommitTable(create), IsError(ErrorKind::kInvalidArgument));
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "bad"}));
}

TEST_F(EmbeddedCatalogTest, PreviousVersionsMaxTrimsAndDeletesOldFiles) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id, {{"write.metadata.previous-versions-max", "2"},
                             {"write.metadata.delete-after-commit.enabled", "true"}});
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"i", std::to_string(i)}}}}}));
  }
  auto loaded = catalog_->LoadTable(id);
  EXPECT_EQ(loaded->metadata->metadata_log.size(), 2u);
  auto files = catalog_->file_io().ListDirectory(created.metadata->location + "/metadata");
  EXPECT_EQ(files->size(), 3u);  // current + max previous
  EXPECT_FALSE(FileExists(created.metadata_location));
}

TEST_F(EmbeddedCatalogTest, GzipMetadataIsWrittenAndReadBack) {
  TableIdentifier id{{"n"}, "t"};
  Create(id, {{"write.metadata.compression-codec", "gzip"}});
  auto committed = catalog_->CommitTable({id, {}, {spec::SetProperties{{{"x", "y"}}}}});
  ASSERT_TRUE(committed);
  EXPECT_TRUE(committed->metadata_location.ends_with(".gz.metadata.json"));
  auto raw = catalog_->file_io().ReadFile(committed->metadata_location);
  EXPECT_EQ(static_cast<uint8_t>((*raw)[0]), 0x1f);
  auto loaded = catalog_->LoadTable(id);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->metadata->properties.at("x"), "y");
  EXPECT_EQ(loaded->metadata_json->front(), '{');
}

TEST_F(EmbeddedCatalogTest, TransactionIsAllOrNothing) {
  TableIdentifier a{{"n"}, "a"};
  TableIdentifier b{{"n"}, "b"};
  auto created_a = Create(a);
  auto created_b = Create(b);
  CommitTableRequest good{a, {}, {spec::SetProperties{{{"k", "a"}}}}};
  CommitTableRequest bad{b, {spec::AssertCurrentSchemaId{99}}, {spec::SetProperties{{{"k", "b"}}}}};
  EXPECT_THAT(catalog_->CommitTransaction({good, bad}), IsError(ErrorKind::kCommitFailed));
  EXPECT_EQ(catalog_->LoadTable(a)->metadata_location, created_a.metadata_location);
  EXPECT_EQ(catalog_->LoadTable(b)->metadata_location, created_b.metadata_location);
  EXPECT_EQ(catalog_->file_io().ListDirectory(created_a.metadata->location + "/metadata")->size(),
            1u);

  bad.requirements = {spec::AssertCurrentSchemaId{0}};
  ASSERT_THAT(catalog_->CommitTransaction({good, bad}), IsOk());
  EXPECT_EQ(catalog_->LoadTable(a)->metadata->properties.at("k"), "a");
  EXPECT_EQ(catalog_->LoadTable(b)->metadata->properties.at("k"), "b");
  EXPECT_THAT(catalog_->CommitTransaction({good, good}), IsError(ErrorKind::kInvalidArgument));
}

TEST_F(EmbeddedCatalogTest, StageCreateThenAssertCreateCommit) {
  ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  CreateTableRequest request;
  request.name = "staged";
  request.schema = TestSchema();
  request.stage_create = true;
  auto staged = catalog_->CreateTable({"n"}, request);
  ASSERT_TRUE(staged);
  EXPECT_TRUE(staged->metadata_location.empty());
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "staged"}));
  EXPECT_FALSE(staged->metadata->table_uuid.empty());
  // Regression (DuckDB's CREATE TABLE AS): a staged table's client writes its
  // manifests into the metadata directory before the create commits.
  EXPECT_TRUE(
      std::filesystem::is_directory(*io::LocalPath(spec::MetadataDirectory(*staged->metadata))));
  EXPECT_TRUE(
      std::filesystem::is_directory(*io::LocalPath(spec::DataDirectory(*staged->metadata))));

  const auto& m = *staged->metadata;
  CommitTableRequest create{{{"n"}, "staged"}, {spec::AssertCreate{}}, {}};
  create.updates = {spec::AssignUuid{m.table_uuid},
                    spec::UpgradeFormatVersion{m.format_version},
                    spec::AddSchema{m.Schema(), m.last_column_id},
                    spec::SetCurrentSchema{-1},
                    spec::AddPartitionSpec{m.Spec()},
                    spec::SetDefaultSpec{-1},
                    spec::AddSortOrder{m.SortOrder()},
                    spec::SetDefaultSortOrder{-1},
                    spec::SetLocation{m.location},
                    spec::SetProperties{{{"created", "by-commit"}}}};
  auto committed = catalog_->CommitTable(create);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_TRUE(committed->metadata_location.find("/metadata/00000-") != std::string::npos);
  EXPECT_EQ(committed->metadata->table_uuid, m.table_uuid);
  EXPECT_TRUE(*catalog_->TableExists({{"n"}, "staged"}));
  EXPECT_THAT(
      catalog_->CommitTable(create),
      IsErrorWithMessage(ErrorKind::kCommitFailed, "Requirement failed: table already exists"));
}

TEST_F(EmbeddedCatalogTest, RenameDropAndRegister) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id);
  ASSERT_THAT(catalog_->CreateNamespace({"m"}, {}), IsOk());
  ASSERT_THAT(catalog_->RenameTable(id, {{"m"}, "u"}), IsOk());
  EXPECT_FALSE(*catalog_->TableExists(id));
  auto renamed = catalog_->LoadTable({{"m"}, "u"});
  ASSERT_TRUE(renamed);
  EXPECT_EQ(renamed->metadata_location, created.metadata_location);
  EXPECT_EQ(catalog_->ListTables({"m"})->items, (std::vector<TableIdentifier>{{{"m"}, "u"}}));

  ASSERT_THAT(catalog_->DropTable({{"m"}, "u"}, false), IsOk());
  EXPECT_TRUE(FileExists(created.metadata_location));  // no purge: files stay
  EXPECT_THAT(catalog_->DropTable({{"m"}, "u"}, false), IsError(ErrorKind::kNoSuchTable));

  auto registered = catalog_->RegisterTable({{"n"}, "back"}, created.metadata_location, false, {});
  ASSERT_TRUE(registered);
  EXPECT_EQ(registered->metadata->table_uuid, created.metadata->table_uuid);
  EXPECT_THAT(catalog_->RegisterTable({{"n"}, "back"}, created.metadata_location, false, {}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(
      catalog_->RegisterTable({{"n"}, "x"}, created.metadata->location + "/nope.json", false, {}),
      IsErrorWithMessage(ErrorKind::kNotFound, "Failed to open input stream for file"));
}

TEST_F(EmbeddedCatalogTest, PurgeDeletesTheTablesFiles) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id);
  ASSERT_TRUE(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"a", "b"}}}}}));
  std::string location = created.metadata->location;
  ASSERT_THAT(catalog_->DropTable(id, true), IsOk());
  EXPECT_FALSE(FileExists(created.metadata_location));
  EXPECT_FALSE(std::filesystem::exists(*io::LocalPath(location)));
}

TEST_F(EmbeddedCatalogTest, MissingOrCorruptMetadataFileIsAClearError) {
  TableIdentifier id{{"n"}, "t"};
  auto created = Create(id);
  std::string path = *io::LocalPath(created.metadata_location);
  // Metadata files are immutable, so the catalog serves the one it wrote from
  // memory; a file damaged behind its back shows on the next cold read.
  std::filesystem::resize_file(path, 40);
  Open(store::Durability::kImmediate);
  EXPECT_THAT(catalog_->LoadTable(id), IsErrorWithMessage(ErrorKind::kCorruption, path));
  EXPECT_THAT(catalog_->CommitTable({id, {}, {spec::SetProperties{{{"a", "b"}}}}}),
              IsError(ErrorKind::kCorruption));
  std::filesystem::remove(path);
  Open(store::Durability::kImmediate);
  EXPECT_THAT(catalog_->LoadTable(id),
              IsErrorWithMessage(ErrorKind::kNotFound, "Failed to open input stream for file"));
}

TEST_F(EmbeddedCatalogTest, StateSurvivesReopenInEveryDurability) {
  for (auto durability :
       {store::Durability::kImmediate, store::Durability::kEventual, store::Durability::kNone}) {
    Open(durability);
    TableIdentifier id{{"d"}, std::string(store::DurabilityName(durability))};
    Create(id);
    auto appended = testing::FastAppend(*catalog_, id);
    ASSERT_TRUE(appended);
    Open(store::Durability::kImmediate);
    auto loaded = catalog_->LoadTable(id);
    ASSERT_TRUE(loaded) << loaded.error().ToString();
    EXPECT_EQ(loaded->metadata->current_snapshot_id, *appended);
  }
}

// The warehouse's FileIO comes from the registry, by the warehouse's scheme.
TEST(EmbeddedCatalogOpenTest, TheWarehouseSchemeChoosesTheFileIO) {
  testing::TempDir dir;
  std::string real = std::filesystem::canonical(dir.path()).string();
  std::filesystem::create_directory_symlink(real, real + "/link");
  EmbeddedCatalogOptions options;
  options.store_map_size = 1ull << 30;
  options.warehouse = "file://" + real + "/link//wh/";
  auto opened = EmbeddedCatalog::Open(options);
  ASSERT_THAT(opened, IsOk());
  // Named as the local FileIO resolves it.
  EXPECT_EQ((*opened)->warehouse_location(), "file://" + real + "/wh");
  options.warehouse = "s3://bucket/wh";
  EXPECT_THAT(EmbeddedCatalog::Open(options), IsErrorWithMessage(ErrorKind::kUnsupported, "'s3'"));
}

}  // namespace
}  // namespace skade::catalog
