// A warehouse with an EmbeddedCatalog and tables whose data files are
// described from generated rows (the planner reads manifests, never data
// files, so no Parquet is written): each file's partition tuple, counts and
// bounds are computed from its rows as a writer would, and the rows are
// kept so a test can check plans against brute force.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/expr/bound_expression.h"
#include "skade/scan/scan_plan.h"
#include "skade/spec/table_locations.h"
#include "skade/table/fast_append.h"
#include "skade/table/table.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::scan::testing {

using skade::testing::IsOk;

/// One row: a value per field id (null literals for nulls).
using Row = std::map<int32_t, spec::Literal>;

/// id long (1, required), region string (2), amount double (3), day date (4).
inline spec::SchemaPtr SalesSchema() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", spec::Type::Long(), true, {}, {}, {}},
             {2, "region", spec::Type::String(), false, {}, {}, {}},
             {3, "amount", spec::Type::Double(), false, {}, {}, {}},
             {4, "day", spec::Type::Date(), false, {}, {}, {}},
         });
}

/// identity(region) 1000, month(day) 1001, bucket[4](id) 1002.
inline spec::PartitionSpecPtr SalesSpec() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back({2, {}, 1000, "region", spec::Transform::Identity()});
  spec->fields.push_back({4, {}, 1001, "day_month", spec::Transform::Month()});
  spec->fields.push_back({1, {}, 1002, "id_bucket", spec::Transform::Bucket(4)});
  return spec;
}

/// A row of SalesSchema with amount 0.5 and day 20000.
inline Row SimpleRow(int64_t id, const std::string& region) {
  return Row{{1, spec::Literal::Long(id)},
             {2, spec::Literal::String(region)},
             {3, spec::Literal::Double(0.5)},
             {4, spec::Literal::Date(20000)}};
}

/// The file names (no directory) of a plan's data files, sorted.
inline std::vector<std::string> TaskNames(const ScanPlan& plan) {
  std::vector<std::string> names;
  for (const FileScanTask& task : plan.tasks) {
    const std::string& path = task.data_file.file_path;
    names.push_back(path.substr(path.rfind('/') + 1));
  }
  std::sort(names.begin(), names.end());
  return names;
}

class ScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    auto opened = catalog::EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
    io_ = io::NewLocalFileIO();
    ASSERT_THAT(catalog_->CreateNamespace({"db"}, {}), IsOk());
  }

  table::Table Create(const std::string& name, spec::PartitionSpecPtr spec,
                      catalog::Properties properties = {{"format-version", "2"}}) {
    catalog::CreateTableRequest request;
    request.name = name;
    request.schema = SalesSchema();
    request.partition_spec = std::move(spec);
    request.properties = std::move(properties);
    auto created = catalog_->CreateTable({"db"}, request);
    EXPECT_TRUE(created) << created.error().ToString();
    return table::Table({{"db"}, name}, *created, catalog_, io_);
  }

  /// A data file holding `rows` (all of one partition under `table`'s spec),
  /// with the metrics a writer records.
  static spec::DataFile Describe(const table::Table& table, const std::string& name,
                                 const std::vector<Row>& rows) {
    const spec::TableMetadata& metadata = table.metadata();
    spec::DataFile file;
    file.file_path = spec::DataFileLocation(metadata, "", name + ".parquet");
    file.record_count = static_cast<int64_t>(rows.size());
    file.file_size_in_bytes = 100 + 20 * file.record_count;
    file.spec_id = metadata.default_spec_id;
    for (const spec::PartitionField& field : metadata.Spec()->fields) {
      auto value = field.transform.Apply(rows.front().at(field.source_id));
      EXPECT_TRUE(value) << value.error().ToString();
      file.partition.push_back(*value);
    }
    for (const spec::NestedField& column : metadata.Schema()->fields()) {
      int64_t nulls = 0, nans = 0;
      std::optional<spec::Literal> lower, upper;
      for (const Row& row : rows) {
        const spec::Literal& v = row.at(column.id);
        if (v.is_null()) {
          ++nulls;
          continue;
        }
        if (const double* d = std::get_if<double>(&v.value()); d && std::isnan(*d)) {
          ++nans;
          continue;
        }
        if (!lower || expr::CompareLiterals(v, *lower) < 0) lower = v;
        if (!upper || expr::CompareLiterals(v, *upper) > 0) upper = v;
      }
      file.value_counts[column.id] = file.record_count;
      file.null_value_counts[column.id] = nulls;
      if (column.type->id() == spec::TypeId::kDouble) file.nan_value_counts[column.id] = nans;
      if (lower) file.lower_bounds[column.id] = lower->ToBytes();
      if (upper) file.upper_bounds[column.id] = upper->ToBytes();
    }
    return file;
  }

  skade::testing::TempDir dir_;
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  std::shared_ptr<io::FileIO> io_;
};

}  // namespace skade::scan::testing
