// Regression: a multi-table transaction checked the requirements of tables it
// only reads, but did not hold them until the pointer swap, so another writer
// could change such a table in between and the transaction still committed.
#include <gtest/gtest.h>

#include <functional>

#include "skade/catalog/embedded_catalog.h"
#include "testing/counting_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::catalog {
namespace {

using testing::IsError;
using testing::IsOk;

// Runs `hook` (once) when a metadata file is about to be written: the moment
// between a commit's requirement check and its pointer swap.
class HookedFileIO : public testing::CountingFileIO {
 public:
  using CountingFileIO::CountingFileIO;
  std::function<void()> hook;

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    if (hook && location.ends_with(".metadata.json")) std::exchange(hook, nullptr)();
    return CountingFileIO::WriteFile(location, contents, durable);
  }
};

TEST(TransactionRequirementTest, ATableOnlyCheckedIsHeldUntilTheSwap) {
  testing::TempDir dir;
  auto hooked = std::make_shared<HookedFileIO>(io::NewLocalFileIO());
  EmbeddedCatalogOptions options;
  options.warehouse = dir.Sub("warehouse");
  options.store_map_size = 1ull << 30;
  options.file_io = hooked;
  auto catalog = *EmbeddedCatalog::Open(options);
  options.file_io = nullptr;
  auto other_writer = *EmbeddedCatalog::Open(options);  // another writer on the warehouse

  ASSERT_THAT(catalog->CreateNamespace({"n"}, {}), IsOk());
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}}});
  for (const char* name : {"written", "checked"}) {
    CreateTableRequest request;
    request.name = name;
    request.schema = schema;
    ASSERT_TRUE(catalog->CreateTable({"n"}, request));
  }
  TableIdentifier written{{"n"}, "written"};
  TableIdentifier checked{{"n"}, "checked"};
  auto uuid = catalog->LoadTable(checked)->metadata->table_uuid;

  // The transaction writes one table and requires the other's last column
  // id; the other writer adds a column to it mid-commit.
  CommitTableRequest write{written, {}, {spec::SetProperties{{{"k", "v"}}}}};
  CommitTableRequest check{
      checked, {spec::AssertTableUuid{uuid}, spec::AssertLastAssignedFieldId{1}}, {}};
  hooked->hook = [&] {
    auto changed = other_writer->CommitTable(
        {checked,
         {},
         {spec::AddSchema{std::make_shared<const spec::Schema>(
                              1,
                              std::vector<spec::NestedField>{
                                  {1, "id", spec::Type::Long(), true, {}, {}, {}},
                                  {2, "extra", spec::Type::Long(), false, {}, {}, {}}}),
                          2}}});
    ASSERT_TRUE(changed) << changed.error().ToString();
  };
  EXPECT_THAT(catalog->CommitTransaction({write, check}), IsError(ErrorKind::kCommitFailed));
  EXPECT_EQ(catalog->LoadTable(written)->metadata->properties.count("k"), 0u);
}

}  // namespace
}  // namespace skade::catalog
