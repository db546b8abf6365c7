// A warehouse with an EmbeddedCatalog and helpers to create tables and make
// DataFile records for the table/ tests. The catalog never reads data
// files, so these tests describe files without writing them; the ingest/
// tests write real ones.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/spec/table_locations.h"
#include "skade/table/table.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::table::testing {

using skade::testing::IsError;
using skade::testing::IsOk;

inline spec::SchemaPtr EventSchema() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", spec::Type::Long(), true, {}, {}, {}},
             {2, "region", spec::Type::String(), false, {}, {}, {}},
             {3, "amount", spec::Type::Double(), false, {}, {}, {}},
         });
}

/// Partitioned by identity(region), field id 1000.
inline spec::PartitionSpecPtr RegionSpec() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back({2, {}, 1000, "region", spec::Transform::Identity()});
  return spec;
}

class TableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    // Some tests put metadata outside the warehouse (write.metadata.path).
    options.allowed_locations = {dir_.path()};
    auto opened = catalog::EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
    io_ = io::NewLocalFileIO();
    ASSERT_THAT(catalog_->CreateNamespace({"db"}, {}), IsOk());
  }

  Table Create(const std::string& name, spec::PartitionSpecPtr spec = nullptr,
               catalog::Properties properties = {}) {
    catalog::CreateTableRequest request;
    request.name = name;
    request.schema = EventSchema();
    request.partition_spec = std::move(spec);
    request.properties = std::move(properties);
    auto created = catalog_->CreateTable({"db"}, request);
    EXPECT_TRUE(created) << created.error().ToString();
    return Table({{"db"}, name}, *created, catalog_, io_);
  }

  /// A data file record in `region`'s partition (unpartitioned: no tuple).
  static spec::DataFile File(const Table& table, const std::string& name, int64_t records,
                             const std::string& region = "") {
    spec::DataFile file;
    file.file_path = spec::DataFileLocation(
        table.metadata(), region.empty() ? "" : "region=" + region, name + ".parquet");
    file.record_count = records;
    file.file_size_in_bytes = records * 10 + 100;
    file.spec_id = table.metadata().default_spec_id;
    if (!table.metadata().Spec()->fields.empty()) {
      file.partition.push_back(spec::Literal::String(region));
    }
    return file;
  }

  static std::vector<std::string> Paths(const std::vector<spec::DataFile>& files) {
    std::vector<std::string> paths;
    for (const auto& file : files) paths.push_back(file.file_path);
    return paths;
  }

  bool Exists(const std::string& location) { return *io_->Exists(location); }

  /// The names in the table's metadata directory.
  std::vector<std::string> MetadataFiles(const Table& table) {
    return *io_->ListDirectory(spec::MetadataDirectory(table.metadata()));
  }

  skade::testing::TempDir dir_;
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  std::shared_ptr<io::FileIO> io_;
};

}  // namespace skade::table::testing
