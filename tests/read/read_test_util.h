// Helpers for the read/ tests: data files written with skade's Parquet
// writer or with Arrow directly, hand-built scan plans, and scans read back
// as row strings.
#pragma once

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include <memory>
#include <string>
#include <vector>

#include "data/data_test_util.h"
#include "skade/data/arrow_schema.h"
#include "skade/data/parquet_data_writer.h"
#include "skade/io/file_io.h"
#include "skade/read/scan_reader.h"
#include "skade/scan/scan_plan.h"

namespace skade::read::testing {

using data::testing::BatchFromJson;

inline spec::SchemaPtr MakeSchema(std::vector<spec::NestedField> fields) {
  return std::make_shared<const spec::Schema>(0, std::move(fields));
}

/// id long (1, required), name string (2): the tests' plain table.
inline spec::SchemaPtr IdNameSchema() {
  return MakeSchema({spec::NestedField{1, "id", spec::Type::Long(), true},
                     spec::NestedField{2, "name", spec::Type::String(), false}});
}

/// A batch of `schema` (in its Arrow form) from JSON rows.
inline std::shared_ptr<arrow::RecordBatch> Rows(const spec::Schema& schema,
                                                const std::string& json) {
  return BatchFromJson(data::ToArrowSchema(schema).value(), json);
}

/// A data file written by skade's own writer.
inline spec::DataFile WriteDataFile(io::FileIO& io, const std::string& path,
                                    const spec::SchemaPtr& schema,
                                    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                                    const data::DataWriterOptions& options = {}) {
  auto writer = data::ParquetDataWriter::Open(io, path, schema, options);
  EXPECT_TRUE(writer) << writer.error().ToString();
  for (const auto& batch : batches) {
    auto written = (*writer)->Write(batch);
    EXPECT_TRUE(written) << written.error().ToString();
  }
  auto file = (*writer)->Close();
  EXPECT_TRUE(file) << file.error().ToString();
  return *file;
}

/// A Parquet file written by Arrow directly, `rows_per_group` rows per row
/// group; field ids only where the batch's fields carry them.
inline spec::DataFile WriteArrowFile(const std::string& path,
                                     const std::shared_ptr<arrow::RecordBatch>& batch,
                                     int64_t rows_per_group) {
  auto table = arrow::Table::FromRecordBatches({batch}).ValueOrDie();
  auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  auto status =
      parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, rows_per_group);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_TRUE(out->Close().ok());
  spec::DataFile file;
  file.file_path = path;
  file.record_count = batch->num_rows();
  file.file_size_in_bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  return file;
}

/// A position delete file (data sequence number 2) deleting `rows` (data
/// file path, position).
inline scan::ScanDelete PositionDeleteFile(
    io::FileIO& io, const std::string& path,
    const std::vector<std::pair<std::string, int64_t>>& rows) {
  auto schema = MakeSchema({spec::NestedField{2147483546, "file_path", spec::Type::String(), true},
                            spec::NestedField{2147483545, "pos", spec::Type::Long(), true}});
  std::string json = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) json += ",";
    json += "{\"file_path\": \"" + rows[i].first +
            "\", \"pos\": " + std::to_string(rows[i].second) + "}";
  }
  json += "]";
  scan::ScanDelete del;
  del.file = WriteDataFile(io, path, schema, {Rows(*schema, json)});
  del.file.content = spec::DataFileContent::kPositionDeletes;
  del.data_sequence_number = 2;
  return del;
}

inline scan::FileScanTask Task(spec::DataFile file,
                               expr::BoundExpressionPtr residual = expr::BoundExpression::True()) {
  scan::FileScanTask task;
  task.data_file = std::move(file);
  task.residual = std::move(residual);
  task.data_sequence_number = 1;
  return task;
}

inline scan::ScanPlan Plan(spec::SchemaPtr schema, std::vector<int32_t> ids,
                           std::vector<scan::FileScanTask> tasks) {
  scan::ScanPlan plan;
  plan.schema = std::move(schema);
  plan.projected_field_ids = std::move(ids);
  plan.filter = expr::BoundExpression::True();
  plan.tasks = std::move(tasks);
  return plan;
}

/// Each row of `batch` as "v1|v2|…" (Arrow's scalar rendering, "null").
inline void AppendRowStrings(const arrow::RecordBatch& batch, std::vector<std::string>* out) {
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row;
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (c > 0) row += "|";
      auto scalar = batch.column(c)->GetScalar(r).ValueOrDie();
      row += scalar->is_valid ? scalar->ToString() : "null";
    }
    out->push_back(row);
  }
}

struct ScanOutput {
  arrow::Status status;
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::string> rows;
  int64_t batches = 0;
};

inline ScanOutput ReadAll(scan::ScanPlan plan, io::FileIO& io, ScanReadOptions options = {}) {
  ScanOutput output;
  auto reader = ReadScan(std::move(plan), io, options);
  if (!reader) {
    output.status = arrow::Status::Invalid(reader.error().ToString());
    return output;
  }
  output.schema = (*reader)->schema();
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    output.status = (*reader)->ReadNext(&batch);
    if (!output.status.ok() || batch == nullptr) break;
    EXPECT_TRUE(batch->schema()->Equals(*output.schema, /*check_metadata=*/true));
    auto valid = batch->ValidateFull();
    EXPECT_TRUE(valid.ok()) << valid.ToString();
    ++output.batches;
    AppendRowStrings(*batch, &output.rows);
  }
  return output;
}

inline std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace skade::read::testing
