// Another process's commits, renames, drops and creates are visible to this
// process's very next read, although reads are served from memory.
#include <gtest/gtest.h>

#include "skade/catalog/embedded_catalog.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"
#include "testing/worker_process.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

std::shared_ptr<EmbeddedCatalog> OpenWithTable(const std::string& warehouse,
                                               const TableIdentifier& id) {
  EmbeddedCatalogOptions options;
  options.warehouse = warehouse;
  options.store_map_size = 1ull << 30;
  auto catalog = EmbeddedCatalog::Open(options);
  EXPECT_TRUE(catalog) << catalog.error().ToString();
  EXPECT_THAT((*catalog)->CreateNamespace(id.ns, {}), IsOk());
  CreateTableRequest request;
  request.name = id.name;
  request.schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  EXPECT_TRUE((*catalog)->CreateTable(id.ns, request));
  return *catalog;
}

void RunWorker(const std::vector<std::string>& args) {
  auto outcome = testing::WorkerProcess::Start(args).Wait();
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
}

// The child prints each ACK after its commit returned; the parent reads the
// table right then, from its warm caches, and must see that snapshot.
TEST(CrossProcessTest, AnotherProcessesCommitIsVisibleToTheNextRead) {
  testing::TempDir dir;
  TableIdentifier id{{"n"}, "t"};
  auto catalog = OpenWithTable(dir.path(), id);
  ASSERT_TRUE(catalog->LoadTable(id));  // warm
  auto worker = testing::WorkerProcess::Start({dir.path(), "n.t", "40"});
  int seen = 0;
  while (auto ack = worker.NextAck()) {
    auto resolved = catalog->ResolveMetadata(id);
    ASSERT_TRUE(resolved) << resolved.error().ToString();
    ASSERT_NE((*resolved)->SnapshotById(*ack), nullptr) << "stale read after commit " << seen;
    auto loaded = catalog->LoadTable(id);
    ASSERT_TRUE(loaded);
    // The child may have committed more since; never less.
    ASSERT_NE(loaded->metadata->SnapshotById(*ack), nullptr);
    ++seen;
  }
  auto outcome = worker.Wait();
  EXPECT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_EQ(seen, 40);
  // This process can still commit on top of the other's history.
  EXPECT_THAT(catalog->CommitTable({id, {}, {spec::SetProperties{{{"k", "v"}}}}}), IsOk());
}

TEST(CrossProcessTest, RenameDropAndCreateByAnotherProcessAreSeen) {
  testing::TempDir dir;
  TableIdentifier t{{"n"}, "t"};
  TableIdentifier u{{"n"}, "u"};
  auto catalog = OpenWithTable(dir.path(), t);
  auto original = catalog->LoadTable(t);
  ASSERT_TRUE(original);
  ASSERT_TRUE(*catalog->TableExists(t));

  RunWorker({dir.path(), "--rename", "n.t", "n.u"});
  // A stale mirror would still answer "t exists" here.
  EXPECT_FALSE(*catalog->TableExists(t));
  EXPECT_THAT(catalog->ResolveMetadata(t), IsError(ErrorKind::kNoSuchTable));
  auto renamed = catalog->LoadTable(u);
  ASSERT_TRUE(renamed);
  EXPECT_EQ(renamed->metadata_location, original->metadata_location);

  RunWorker({dir.path(), "--drop", "n.u"});
  EXPECT_FALSE(*catalog->TableExists(u));
  EXPECT_THAT(catalog->LoadTable(u), IsError(ErrorKind::kNoSuchTable));

  RunWorker({dir.path(), "--create", "n.t"});
  auto recreated = catalog->LoadTable(t);
  ASSERT_TRUE(recreated);
  EXPECT_NE(recreated->metadata->table_uuid, original->metadata->table_uuid);
  // Committing uses the new table's pointer, not the renamed one's.
  auto committed = catalog->CommitTable({t,
                                         {spec::AssertTableUuid{recreated->metadata->table_uuid}},
                                         {spec::SetProperties{{{"k", "v"}}}}});
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(committed->metadata->table_uuid, recreated->metadata->table_uuid);
}

}  // namespace
}  // namespace skade::catalog
