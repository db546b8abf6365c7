// Helpers for the ingest/ tests: a warehouse with an EmbeddedCatalog,
// generated record batches, a FileIO wrapper that injects faults or delays
// into real local writes, and reading committed rows back with Parquet C++.
#pragma once

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skade/catalog/embedded_catalog.h"
#include "skade/ingest/record_batch_group.h"
#include "skade/io/forwarding_file_io.h"
#include "skade/table/snapshot_scan.h"
#include "skade/table/table.h"
#include "skade/util/strings.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::ingest::testing {

using skade::testing::IsError;
using skade::testing::IsOk;

/// Local files, with a hook run before every write (WriteFile, or
/// NewOutputFile for a streamed one): an error from it fails the write
/// before anything is stored. The hook may sleep to reorder completions.
class HookedFileIO : public io::ForwardingFileIO {
 public:
  using Hook = std::function<Status(std::string_view location)>;

  explicit HookedFileIO(Hook hook = nullptr)
      : ForwardingFileIO(io::NewLocalFileIO()), hook_(std::move(hook)) {}
  void set_hook(Hook hook) { hook_ = std::move(hook); }

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    if (hook_) SKADE_RETURN_NOT_OK(hook_(location));
    return inner().WriteFile(location, contents, durable);
  }
  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location,
                                                        bool durable) override {
    if (hook_) SKADE_RETURN_NOT_OK(hook_(location));
    return inner().NewOutputFile(location, durable);
  }

 private:
  Hook hook_;
};

/// A hook failing the `n`-th (from 1) write whose location contains
/// `pattern`, and only that one.
inline HookedFileIO::Hook FailNthWrite(std::string pattern, int n) {
  auto count = std::make_shared<std::atomic<int>>(0);
  return [pattern = std::move(pattern), n, count](std::string_view location) -> Status {
    if (location.find(pattern) == std::string_view::npos) return OkStatus();
    if (++*count == n) return IoError("Injected write failure: ", location);
    return OkStatus();
  };
}

inline spec::SchemaPtr EventSchema() {
  return std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             {1, "id", spec::Type::Long(), true, {}, {}, {}},
             {2, "score", spec::Type::Double(), false, {}, {}, {}},
             {3, "name", spec::Type::String(), false, {}, {}, {}},
             {4, "region", spec::Type::String(), false, {}, {}, {}},
         });
}

inline spec::PartitionSpecPtr RegionSpec() {
  auto spec = std::make_shared<spec::PartitionSpec>();
  spec->fields.push_back({4, {}, 1000, "region", spec::Transform::Identity()});
  return spec;
}

/// Rows [first, first + count) of the event data, in `batches` batches:
/// id = row number, score = id / 4 (null every 7th), name "name-<id>",
/// region one of eu/us/ap.
inline RecordBatchGroup EventGroup(int64_t first, int64_t count, int batches = 2) {
  RecordBatchGroup group;
  int64_t per_batch = (count + batches - 1) / batches;
  for (int64_t start = first; start < first + count; start += per_batch) {
    int64_t end = std::min(first + count, start + per_batch);
    arrow::Int64Builder ids;
    arrow::DoubleBuilder scores;
    arrow::StringBuilder names;
    arrow::StringBuilder regions;
    static const char* kRegions[] = {"eu", "us", "ap"};
    for (int64_t id = start; id < end; ++id) {
      EXPECT_TRUE(ids.Append(id).ok());
      EXPECT_TRUE((id % 7 == 0 ? scores.AppendNull() : scores.Append(id / 4.0)).ok());
      EXPECT_TRUE(names.Append(StrCat("name-", id)).ok());
      EXPECT_TRUE(regions.Append(kRegions[(id / 3) % 3]).ok());
    }
    auto schema = arrow::schema(
        {arrow::field("id", arrow::int64(), false), arrow::field("score", arrow::float64()),
         arrow::field("name", arrow::utf8()), arrow::field("region", arrow::utf8())});
    group.push_back(
        arrow::RecordBatch::Make(schema, end - start,
                                 {ids.Finish().ValueOrDie(), scores.Finish().ValueOrDie(),
                                  names.Finish().ValueOrDie(), regions.Finish().ValueOrDie()}));
  }
  return group;
}

/// `groups` groups of `rows` rows each, ids consecutive.
inline std::vector<RecordBatchGroup> EventGroups(int groups, int64_t rows) {
  std::vector<RecordBatchGroup> out;
  for (int g = 0; g < groups; ++g) out.push_back(EventGroup(g * rows, rows));
  return out;
}

/// One row as the seed's tests compare them: id → score bits + name.
struct Row {
  int64_t id;
  std::optional<double> score;
  std::optional<std::string> name;
  bool operator==(const Row&) const = default;
};

inline std::vector<Row> RowsOf(const arrow::Table& table) {
  std::vector<Row> rows;
  auto combined = table.CombineChunksToBatch().ValueOrDie();
  auto ids = std::static_pointer_cast<arrow::Int64Array>(combined->GetColumnByName("id"));
  auto scores = std::static_pointer_cast<arrow::DoubleArray>(combined->GetColumnByName("score"));
  auto names = std::static_pointer_cast<arrow::StringArray>(combined->GetColumnByName("name"));
  for (int64_t i = 0; i < combined->num_rows(); ++i) {
    Row row{ids->Value(i), std::nullopt, std::nullopt};
    if (scores->IsValid(i)) row.score = scores->Value(i);
    if (names->IsValid(i)) row.name = names->GetString(i);
    rows.push_back(std::move(row));
  }
  return rows;
}

inline std::vector<Row> RowsOf(const std::vector<RecordBatchGroup>& groups) {
  std::vector<Row> rows;
  for (const auto& group : groups) {
    for (const auto& batch : group) {
      auto table = arrow::Table::FromRecordBatches({batch}).ValueOrDie();
      for (Row& row : RowsOf(*table)) rows.push_back(std::move(row));
    }
  }
  return rows;
}

inline std::shared_ptr<arrow::Table> ReadParquet(const std::string& location) {
  auto path = io::LocalPath(location);
  EXPECT_TRUE(path) << location;
  auto file = arrow::io::ReadableFile::Open(*path).ValueOrDie();
  auto reader = parquet::arrow::OpenFile(file, arrow::default_memory_pool()).ValueOrDie();
  auto table = reader->ReadTable();
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return *table;
}

/// The live data files of the current snapshot in commit order (oldest
/// snapshot first, file order within a snapshot).
inline std::vector<spec::ManifestEntry> CommittedInOrder(const table::Table& table) {
  std::vector<spec::ManifestEntry> entries;
  auto snapshot = table.metadata().CurrentSnapshot();
  if (!snapshot) return entries;
  auto live = table::LiveEntries(table, *snapshot);
  EXPECT_TRUE(live) << live.error().ToString();
  entries = *live;
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return *a.sequence_number < *b.sequence_number;
  });
  return entries;
}

/// Every committed row, in commit order.
inline std::vector<Row> CommittedRows(const table::Table& table) {
  std::vector<Row> rows;
  for (const auto& entry : CommittedInOrder(table)) {
    for (Row& row : RowsOf(*ReadParquet(entry.data_file.file_path))) rows.push_back(row);
  }
  return rows;
}

/// Committed rows per value of the first partition field (a string, as in
/// RegionSpec).
inline std::map<std::string, int64_t> RowsPerRegion(const table::Table& table) {
  std::map<std::string, int64_t> counts;
  for (const auto& entry : CommittedInOrder(table)) {
    counts[std::get<std::string>(entry.data_file.partition.at(0).value())] +=
        entry.data_file.record_count;
  }
  return counts;
}

inline std::string FileName(const std::string& location) {
  return location.substr(location.rfind('/') + 1);
}

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenCatalog(io::NewLocalFileIO()); }

  void OpenCatalog(std::shared_ptr<io::FileIO> catalog_io) {
    catalog::EmbeddedCatalogOptions options;
    options.warehouse = dir_.Sub("warehouse");
    options.store_map_size = 1ull << 30;
    options.file_io = std::move(catalog_io);
    auto opened = catalog::EmbeddedCatalog::Open(options);
    ASSERT_TRUE(opened) << opened.error().ToString();
    catalog_ = *opened;
    if (!*catalog_->NamespaceExists({"db"})) {
      ASSERT_THAT(catalog_->CreateNamespace({"db"}, {}), IsOk());
    }
  }

  table::Table Create(const std::string& name, spec::PartitionSpecPtr spec = nullptr,
                      catalog::Properties properties = {}, spec::SchemaPtr schema = nullptr,
                      std::shared_ptr<io::FileIO> table_io = nullptr) {
    catalog::CreateTableRequest request;
    request.name = name;
    request.schema = schema ? std::move(schema) : EventSchema();
    request.partition_spec = std::move(spec);
    request.properties = std::move(properties);
    auto created = catalog_->CreateTable({"db"}, request);
    EXPECT_TRUE(created) << created.error().ToString();
    return table::Table({{"db"}, name}, *created, catalog_,
                        table_io ? std::move(table_io) : io::NewLocalFileIO());
  }

  /// Every file under the table's data directory (names, sorted).
  std::vector<std::string> DataFilesOnDisk(const table::Table& table) {
    std::vector<std::string> names;
    std::string root = *io::LocalPath(table.metadata().location + "/data");
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (it->is_regular_file()) names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  skade::testing::TempDir dir_;
  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
};

}  // namespace skade::ingest::testing
