// The catalog's part of the REST Idempotency-Key: a commit that carries a
// record writes it in the pointer swap's own store transaction, a commit
// whose key was answered before changes nothing, and a recorded table answer
// can be loaded back (or the table's current state, once its file is gone).
#include <gtest/gtest.h>

#include "skade/catalog/embedded_catalog.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

constexpr int64_t kNow = 1'700'000'000'000;

IdempotencyRecord Pending(const std::string& key, int status) {
  IdempotencyRecord record;
  record.key = key;
  record.fingerprint = "fp";
  record.status = status;
  record.created_at_ms = kNow;
  record.expires_at_ms = kNow + 1'800'000;
  return record;
}

class CatalogIdempotencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Open());
    ASSERT_THAT(catalog_->CreateNamespace({"n"}, {}), IsOk());
  }

  void Open() {
    catalog_.reset();
    EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    auto opened = EmbeddedCatalog::Open(options);
    ASSERT_THAT(opened, IsOk());
    catalog_ = *opened;
  }

  // Creates `id`, with `record` if given; the result.
  Result<LoadTableResult> CreateTable(const TableIdentifier& id,
                                      std::optional<IdempotencyRecord> record = std::nullopt) {
    CreateTableRequest request;
    request.name = id.name;
    request.schema = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
    request.idempotency = std::move(record);
    return catalog_->CreateTable(id.ns, request);
  }

  size_t MetadataFiles(const LoadTableResult& table) {
    return catalog_->file_io().ListDirectory(table.metadata->location + "/metadata")->size();
  }

  std::optional<IdempotencyRecord> Find(const std::string& key) {
    auto found = catalog_->FindIdempotencyRecord(key, kNow);
    EXPECT_THAT(found, IsOk());
    return found ? *found : std::nullopt;
  }

  testing::TempDir dir_;
  std::shared_ptr<EmbeddedCatalog> catalog_;
};

TEST_F(CatalogIdempotencyTest, ACommitWritesItsRecordNamingTheFileItCommitted) {
  TableIdentifier id{{"n"}, "t"};
  auto created = CreateTable(id, Pending("create", 200));
  ASSERT_THAT(created, IsOk());
  auto create_record = Find("create");
  ASSERT_TRUE(create_record);
  EXPECT_EQ(create_record->table, id);
  EXPECT_EQ(create_record->metadata_location, created->metadata_location);

  auto request = testing::FastAppendRequest(id, *created->metadata, 7);
  request.idempotency = Pending("append", 200);
  auto committed = catalog_->CommitTable(request);
  ASSERT_THAT(committed, IsOk());
  auto record = Find("append");
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, 200);
  EXPECT_EQ(record->table, id);
  EXPECT_EQ(record->metadata_location, committed->metadata_location);
  EXPECT_EQ(record->metadata_location, catalog_->LoadTable(id)->metadata_location);
  EXPECT_TRUE(record->body.empty());
}

// The retry of a commit that landed (its response lost) must not commit
// again, and leaves no file behind. (Its requirements are checked first: a
// retry whose base moved fails them, as without a key. The REST layer looks
// the key up before it commits, so a retry gets the recorded answer.)
TEST_F(CatalogIdempotencyTest, ACommitWhoseKeyWasAnsweredChangesNothing) {
  TableIdentifier id{{"n"}, "t"};
  auto created = CreateTable(id);
  ASSERT_THAT(created, IsOk());
  auto request = testing::FastAppendRequest(id, *created->metadata, 7);
  request.idempotency = Pending("k", 200);
  auto first = catalog_->CommitTable(request);
  ASSERT_THAT(first, IsOk());
  size_t files = MetadataFiles(*created);

  EXPECT_THAT(catalog_->CommitTable(request), IsError(ErrorKind::kCommitFailed));
  // The same key on a commit whose requirements hold.
  auto fresh = testing::FastAppendRequest(id, *first->metadata, 8);
  fresh.idempotency = request.idempotency;
  auto retried = catalog_->CommitTable(fresh);
  ASSERT_THAT(retried, IsError(ErrorKind::kIdempotencyKeyUsed));
  EXPECT_FALSE(retried.error().retryable);
  EXPECT_EQ(catalog_->LoadTable(id)->metadata_location, first->metadata_location);
  EXPECT_EQ(catalog_->LoadTable(id)->metadata->snapshots.size(), 1u);
  EXPECT_EQ(MetadataFiles(*created), files);
  EXPECT_THAT(CreateTable({{"n"}, "u"}, Pending("k", 200)),
              IsError(ErrorKind::kIdempotencyKeyUsed));
  EXPECT_FALSE(*catalog_->TableExists({{"n"}, "u"}));
}

TEST_F(CatalogIdempotencyTest, ATransactionWritesItsOneRecordWithItsCommit) {
  TableIdentifier a{{"n"}, "a"};
  TableIdentifier b{{"n"}, "b"};
  ASSERT_THAT(CreateTable(a), IsOk());
  ASSERT_THAT(CreateTable(b), IsOk());
  CommitTableRequest change_a{a, {}, {spec::SetProperties{{{"k", "a"}}}}};
  CommitTableRequest check_b{b, {spec::AssertCurrentSchemaId{0}}, {}};
  change_a.idempotency = check_b.idempotency = Pending("tx", 204);
  CommitTableRequest fail_b{b, {spec::AssertCurrentSchemaId{9}}, {}};
  fail_b.idempotency = change_a.idempotency;
  EXPECT_THAT(catalog_->CommitTransaction({change_a, fail_b}), IsError(ErrorKind::kCommitFailed));
  EXPECT_FALSE(Find("tx"));

  ASSERT_THAT(catalog_->CommitTransaction({change_a, check_b}), IsOk());
  auto record = Find("tx");
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, 204);
  EXPECT_TRUE(record->metadata_location.empty());
  change_a.updates = {spec::SetProperties{{{"k", "again"}}}};
  EXPECT_THAT(catalog_->CommitTransaction({change_a, check_b}),
              IsError(ErrorKind::kIdempotencyKeyUsed));
  EXPECT_EQ(catalog_->LoadTable(a)->metadata->properties.at("k"), "a");
}

TEST_F(CatalogIdempotencyTest, RecordsOfOtherRequestsAreKeptOnce) {
  IdempotencyRecord first = Pending("ns", 200);
  first.body = R"({"namespace":["x"],"properties":{}})";
  EXPECT_EQ(*catalog_->RecordIdempotency(first), first);
  IdempotencyRecord second = Pending("ns", 409);
  EXPECT_EQ(*catalog_->RecordIdempotency(second), first);
  EXPECT_FALSE(*catalog_->FindIdempotencyRecord("ns", first.expires_at_ms));
}

TEST_F(CatalogIdempotencyTest, ARecordedTableAnswerLoadsItsFileOrTheCurrentTable) {
  TableIdentifier id{{"n"}, "t"};
  auto created = CreateTable(id);
  ASSERT_THAT(created, IsOk());
  auto committed = catalog_->CommitTable({id, {}, {spec::SetProperties{{{"a", "1"}}}}});
  ASSERT_THAT(committed, IsOk());

  auto at_create = catalog_->LoadTableFromMetadata(id, created->metadata_location);
  ASSERT_THAT(at_create, IsOk());
  EXPECT_EQ(at_create->metadata_location, created->metadata_location);
  EXPECT_EQ(at_create->metadata->properties.count("a"), 0u);

  // Gone from the files, though still in this process's metadata cache
  // (review finding: the replay named the deleted file), and in a new one.
  ASSERT_THAT(catalog_->file_io().DeleteFile(created->metadata_location), IsOk());
  auto cached = catalog_->LoadTableFromMetadata(id, created->metadata_location);
  ASSERT_THAT(cached, IsOk());
  EXPECT_EQ(cached->metadata_location, committed->metadata_location);
  ASSERT_NO_FATAL_FAILURE(Open());
  auto gone = catalog_->LoadTableFromMetadata(id, created->metadata_location);
  ASSERT_THAT(gone, IsOk());
  EXPECT_EQ(gone->metadata_location, committed->metadata_location);

  EXPECT_THAT(catalog_->LoadTableFromMetadata(id, "file:///elsewhere/00001-x.metadata.json"),
              IsError(ErrorKind::kForbidden));
}

}  // namespace
}  // namespace skade::catalog
