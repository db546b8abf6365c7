// Helpers for the data/ tests: Arrow values from JSON, temporary
// directories, and reading Parquet files back with Parquet C++.
#pragma once

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "skade/spec/schema.h"

namespace skade::data::testing {

inline std::shared_ptr<arrow::Array> ArrayFromJson(const std::shared_ptr<arrow::DataType>& type,
                                                   const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_TRUE(array.ok()) << array.status().ToString() << " for " << json;
  return array.ok() ? *array : nullptr;
}

/// A batch from a JSON array of row objects.
inline std::shared_ptr<arrow::RecordBatch> BatchFromJson(
    const std::shared_ptr<arrow::Schema>& schema, const std::string& rows) {
  auto array = ArrayFromJson(arrow::struct_(schema->fields()), rows);
  auto batch = arrow::RecordBatch::FromStructArray(array);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return (*batch)->ReplaceSchema(schema).ValueOrDie();
}

/// A fresh, empty directory under the test temp dir, removed at scope exit.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string("skade_data_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::shared_ptr<parquet::FileMetaData> ReadFooter(const std::string& path) {
  return parquet::ParquetFileReader::OpenFile(path)->metadata();
}

inline std::shared_ptr<arrow::Table> ReadTable(const std::string& path) {
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  auto reader = parquet::arrow::OpenFile(file, arrow::default_memory_pool()).ValueOrDie();
  auto table = reader->ReadTable();
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? *table : nullptr;
}

/// Table equality where NaN equals NaN (the data has NaNs on purpose).
inline bool SameRows(const arrow::Table& actual, const arrow::Table& expected) {
  return actual.Equals(expected, arrow::EqualOptions::Defaults().nans_equal(true));
}

inline std::shared_ptr<arrow::Table> AsTable(const std::shared_ptr<arrow::RecordBatch>& batch) {
  return arrow::Table::FromRecordBatches({batch}).ValueOrDie();
}

inline spec::SchemaPtr MakeSchema(std::vector<spec::NestedField> fields) {
  return std::make_shared<const spec::Schema>(0, std::move(fields));
}

inline spec::NestedField Optional(int32_t id, std::string name, spec::TypePtr type) {
  return spec::NestedField{id, std::move(name), std::move(type), false, {}, {}, {}};
}

inline spec::NestedField Required(int32_t id, std::string name, spec::TypePtr type) {
  return spec::NestedField{id, std::move(name), std::move(type), true, {}, {}, {}};
}

}  // namespace skade::data::testing
