// The catalog on a kind of store it has never heard of: a store registered
// from outside (here one that forwards to another store and records which
// methods the catalog called), named by EmbeddedCatalogOptions::store. If the
// catalog reached around store::CatalogStore — into a store's files, or to a
// type of a particular implementation — this would fail.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "skade/catalog/embedded_catalog.h"
#include "skade/store/catalog_store.h"
#include "testing/fast_append.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using store::CatalogStore;
using testing::IsOk;

// Forwards every call to `inner`, counting them by name. Thread-safe.
class RecordingStore : public CatalogStore {
 public:
  explicit RecordingStore(std::unique_ptr<CatalogStore> inner) : inner_(std::move(inner)) {}

  // What the stores of this kind were asked, across instances.
  static std::map<std::string, int> Calls() {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }

  void SetCommitListener(store::CommitListener* listener) override {
    Note("SetCommitListener");
    inner_->SetCommitListener(listener);
  }
  Status CreateNamespace(const spec::Namespace& ns, const store::Properties& properties) override {
    Note("CreateNamespace");
    return inner_->CreateNamespace(ns, properties);
  }
  Result<std::optional<store::Properties>> GetNamespace(const spec::Namespace& ns) override {
    Note("GetNamespace");
    return inner_->GetNamespace(ns);
  }
  Result<store::StorePage<spec::Namespace>> ListNamespaces(const spec::Namespace& parent,
                                                           const std::string& page_token,
                                                           size_t page_size) override {
    Note("ListNamespaces");
    return inner_->ListNamespaces(parent, page_token, page_size);
  }
  Status DropNamespace(const spec::Namespace& ns) override {
    Note("DropNamespace");
    return inner_->DropNamespace(ns);
  }
  Result<std::vector<std::string>> UpdateNamespaceProperties(
      const spec::Namespace& ns, const std::vector<std::string>& removals,
      const store::Properties& updates) override {
    Note("UpdateNamespaceProperties");
    return inner_->UpdateNamespaceProperties(ns, removals, updates);
  }
  Result<std::optional<store::TableRecord>> GetTable(
      const spec::TableIdentifier& identifier) override {
    Note("GetTable");
    return inner_->GetTable(identifier);
  }
  Result<store::StorePage<spec::TableIdentifier>> ListTables(const spec::Namespace& ns,
                                                             const std::string& page_token,
                                                             size_t page_size) override {
    Note("ListTables");
    return inner_->ListTables(ns, page_token, page_size);
  }
  Result<store::TableRecord> DropTable(const spec::TableIdentifier& identifier) override {
    Note("DropTable");
    return inner_->DropTable(identifier);
  }
  Status RenameTable(const spec::TableIdentifier& from, const spec::TableIdentifier& to) override {
    Note("RenameTable");
    return inner_->RenameTable(from, to);
  }
  Result<store::TableRecord> RegisterTable(const spec::TableIdentifier& identifier,
                                           const std::string& metadata_location,
                                           store::RegisterMode mode,
                                           const store::CommitOrigin& origin,
                                           const std::vector<std::string>& owned) override {
    Note("RegisterTable");
    return inner_->RegisterTable(identifier, metadata_location, mode, origin, owned);
  }
  Result<std::vector<std::pair<spec::TableIdentifier, store::TableRecord>>> ReadUnclaimedTables()
      override {
    Note("ReadUnclaimedTables");
    return inner_->ReadUnclaimedTables();
  }
  Result<std::vector<bool>> FindOwnedLocations(const std::vector<std::string>& locations) override {
    Note("FindOwnedLocations");
    return inner_->FindOwnedLocations(locations);
  }
  Status CheckLocationsFree(const spec::TableIdentifier& identifier,
                            const std::vector<std::string>& locations) override {
    Note("CheckLocationsFree");
    return inner_->CheckLocationsFree(identifier, locations);
  }
  Status ClaimTableLocations(const spec::TableIdentifier& identifier,
                             const std::string& metadata_location,
                             const std::vector<std::string>& locations) override {
    Note("ClaimTableLocations");
    return inner_->ClaimTableLocations(identifier, metadata_location, locations);
  }
  Result<std::vector<store::TableRecord>> SwapPointers(
      const std::vector<store::PointerSwap>& swaps) override {
    Note("SwapPointers");
    return inner_->SwapPointers(swaps);
  }
  Result<store::TablePointers> ReadTablePointers() override {
    Note("ReadTablePointers");
    return inner_->ReadTablePointers();
  }
  Result<store::TablePointers> ReadTablePointersChangedAfter(uint64_t version) override {
    Note("ReadTablePointersChangedAfter");
    return inner_->ReadTablePointersChangedAfter(version);
  }
  uint64_t LastVersion() override {
    Note("LastVersion");
    return inner_->LastVersion();
  }
  Result<std::optional<std::string>> FindSnapshot(uint64_t table_id, int64_t snapshot_id) override {
    Note("FindSnapshot");
    return inner_->FindSnapshot(table_id, snapshot_id);
  }
  Result<std::vector<std::pair<uint64_t, store::CommitLogRecord>>> ReadCommitLog(
      uint64_t after, size_t limit) override {
    Note("ReadCommitLog");
    return inner_->ReadCommitLog(after, limit);
  }
  Result<std::vector<std::optional<std::string>>> FindSnapshots(
      std::span<const std::pair<uint64_t, int64_t>> keys) override {
    Note("FindSnapshots");
    return inner_->FindSnapshots(keys);
  }
  Result<std::vector<std::pair<uint64_t, store::CommitLogRecord>>> ReadTableHistory(
      uint64_t table_id, uint64_t after, size_t limit) override {
    Note("ReadTableHistory");
    return inner_->ReadTableHistory(table_id, after, limit);
  }
  Result<std::optional<std::pair<uint64_t, store::CommitLogRecord>>> FindCommitAsOf(
      uint64_t table_id, int64_t timestamp_ms) override {
    Note("FindCommitAsOf");
    return inner_->FindCommitAsOf(table_id, timestamp_ms);
  }
  Result<uint64_t> CommitSeq() override {
    Note("CommitSeq");
    return inner_->CommitSeq();
  }
  Result<CommitLogPage> ReadCommitLogPage(uint64_t after, size_t limit) override {
    Note("ReadCommitLogPage");
    return inner_->ReadCommitLogPage(after, limit);
  }
  Result<size_t> PruneCommitLog(int64_t before_ms, size_t limit) override {
    Note("PruneCommitLog");
    return inner_->PruneCommitLog(before_ms, limit);
  }
  Result<std::vector<store::JournaledFile>> ReadJournaledFiles() override {
    Note("ReadJournaledFiles");
    return inner_->ReadJournaledFiles();
  }
  Result<std::vector<std::string>> ReadJournaledDeltasOn(
      const std::vector<std::string>& bases) override {
    Note("ReadJournaledDeltasOn");
    return inner_->ReadJournaledDeltasOn(bases);
  }
  Status ReleaseJournaledFiles(const std::vector<std::string>& locations) override {
    Note("ReleaseJournaledFiles");
    return inner_->ReleaseJournaledFiles(locations);
  }
  Status RestoreJournaledFiles(
      const std::vector<std::string>& locations,
      const std::function<Status(const store::JournaledFile&)>& restore) override {
    Note("RestoreJournaledFiles");
    return inner_->RestoreJournaledFiles(locations, restore);
  }
  Result<std::optional<store::IdempotencyRecord>> FindIdempotencyRecord(const std::string& key,
                                                                        int64_t now_ms) override {
    Note("FindIdempotencyRecord");
    return inner_->FindIdempotencyRecord(key, now_ms);
  }
  Result<store::IdempotencyRecord> RecordIdempotency(
      const store::IdempotencyRecord& record) override {
    Note("RecordIdempotency");
    return inner_->RecordIdempotency(record);
  }
  Result<size_t> PruneIdempotencyRecords(int64_t now_ms, size_t limit) override {
    Note("PruneIdempotencyRecords");
    return inner_->PruneIdempotencyRecords(now_ms, limit);
  }
  Status Sync(const std::function<Status()>& with_commits_held) override {
    Note("Sync");
    return inner_->Sync(with_commits_held);
  }

 private:
  static void Note(const std::string& method) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++calls_[method];
  }

  static inline std::mutex mutex_;
  static inline std::map<std::string, int> calls_;
  std::unique_ptr<CatalogStore> inner_;
};

// "recording:<directory>": a RecordingStore over the default store there.
void RegisterRecordingStore() {
  static const bool registered = [] {
    Status status = CatalogStore::RegisterScheme(
        "recording",
        [](const std::string& location,
           const store::CatalogStoreOptions& options) -> Result<std::unique_ptr<CatalogStore>> {
          SKADE_ASSIGN_OR_RAISE(auto inner,
                                CatalogStore::Open(location.substr(strlen("recording:")), options));
          return std::unique_ptr<CatalogStore>(new RecordingStore(std::move(inner)));
        });
    EXPECT_THAT(status, IsOk());
    return true;
  }();
  (void)registered;
}

TEST(RegisteredStoreTest, TheCatalogRunsOnAStoreRegisteredFromOutside) {
  RegisterRecordingStore();
  testing::TempDir dir;
  EmbeddedCatalogOptions options;
  options.warehouse = dir.Sub("warehouse");
  options.store = "recording:" + dir.Sub("elsewhere");
  options.store_map_size = 1ull << 30;
  options.durability = store::Durability::kEventual;
  options.flush_interval_ms = 60'000;  // flushed by hand below
  auto catalog = EmbeddedCatalog::Open(options);
  ASSERT_THAT(catalog, IsOk());

  TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT((*catalog)->CreateNamespace({"n"}, {{"owner", "x"}}), IsOk());
  CreateTableRequest request;
  request.name = id.name;
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  ASSERT_THAT((*catalog)->CreateTable(id.ns, request), IsOk());
  auto snapshot_id = testing::FastAppend(**catalog, id);
  ASSERT_THAT(snapshot_id, IsOk());
  auto loaded = (*catalog)->LoadTable(id);
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata->current_snapshot_id, *snapshot_id);
  ASSERT_THAT((*catalog)->LoadTableAt(id, *snapshot_id), IsOk());
  ASSERT_THAT((*catalog)->RenameTable(id, {{"n"}, "u"}), IsOk());
  auto tables = (*catalog)->ListTables({"n"});
  ASSERT_THAT(tables, IsOk());
  EXPECT_EQ(tables->items, (std::vector<TableIdentifier>{{{"n"}, "u"}}));
  ASSERT_THAT((*catalog)->Flush(), IsOk());

  // A second catalog on the same store sees it all (its mirror catches up
  // through the interface).
  auto second = EmbeddedCatalog::Open(options);
  ASSERT_THAT(second, IsOk());
  auto again = (*second)->LoadTable({{"n"}, "u"});
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->metadata_location, (*catalog)->LoadTable({{"n"}, "u"})->metadata_location);
  ASSERT_THAT((*catalog)->DropTable({{"n"}, "u"}, false), IsOk());
  EXPECT_FALSE(*(*second)->TableExists({{"n"}, "u"}));
  second->reset();
  catalog->reset();

  auto calls = RecordingStore::Calls();
  for (const char* method :
       {"CreateNamespace", "SwapPointers", "ReadTablePointers", "ReadTablePointersChangedAfter",
        "LastVersion", "FindSnapshot", "RenameTable", "ListTables", "DropTable", "Sync"}) {
    EXPECT_GT(calls[method], 0) << method;
  }
  // The store lives where it was named, not in the warehouse.
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("elsewhere")));
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("warehouse/.skade/catalog")));
}

// At immediate the catalog journals its metadata files in the registered
// store too, and releases them through the interface.
TEST(RegisteredStoreTest, TheJournalWorksThroughTheInterface) {
  RegisterRecordingStore();
  auto before = RecordingStore::Calls();
  testing::TempDir dir;
  EmbeddedCatalogOptions options;
  options.warehouse = dir.Sub("warehouse");
  options.store = "recording:" + dir.Sub("elsewhere");
  options.store_map_size = 1ull << 30;
  options.durability = store::Durability::kImmediate;
  options.flush_interval_ms = 60'000;  // flushed by hand below
  auto catalog = EmbeddedCatalog::Open(options);
  ASSERT_THAT(catalog, IsOk());
  TableIdentifier id{{"n"}, "t"};
  ASSERT_THAT((*catalog)->CreateNamespace({"n"}, {}), IsOk());
  CreateTableRequest request;
  request.name = id.name;
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  ASSERT_THAT((*catalog)->CreateTable(id.ns, request), IsOk());
  ASSERT_THAT(testing::FastAppend(**catalog, id), IsOk());
  EXPECT_EQ((*catalog)->store().ReadJournaledFiles()->size(), 2u);
  ASSERT_THAT((*catalog)->Flush(), IsOk());
  EXPECT_TRUE((*catalog)->store().ReadJournaledFiles()->empty());
  auto calls = RecordingStore::Calls();
  EXPECT_GT(calls["ReleaseJournaledFiles"], before["ReleaseJournaledFiles"]);
}

}  // namespace
}  // namespace skade::catalog
