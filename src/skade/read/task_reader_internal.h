// Reads one FileScanTask: the row groups of its data file whose statistics
// leave the residual possible — within them, where the columns are flat, only
// the pages the page index leaves possible (page_index_filter_internal.h,
// selected_rows_reader_internal.h) — columns by field id, minus the rows its
// deletes remove and those the residual rejects, as batches of the scan's
// output schema. With no deletes and a true residual the file's decoded
// columns pass through without a copy or a per-row step.
//
// Stateless: tasks run concurrently on one ScanContext.
#pragma once

#include <arrow/record_batch.h>

#include <functional>
#include <memory>

#include "skade/io/file_io.h"
#include "skade/read/delete_cache_internal.h"
#include "skade/read/name_mapping.h"
#include "skade/read/parquet_file_internal.h"
#include "skade/scan/scan_plan.h"
#include "skade/util/result.h"

namespace skade::read {

/// What every task of one scan shares. Not owned.
struct ScanContext {
  const scan::ScanPlan* plan = nullptr;
  io::FileIO* io = nullptr;
  std::shared_ptr<arrow::Schema> output_schema;
  const NameMapping* mapping = nullptr;
  DeleteCache* deletes = nullptr;
  ParquetReadOptions parquet;
};

/// What the Parquet page index saved while reading tasks.
struct PageIndexStats {
  /// Data pages of the columns read that were not decoded.
  int64_t pages_skipped = 0;
  /// Rows of row groups that survived row-group pruning but were neither
  /// decoded nor returned.
  int64_t rows_skipped = 0;
};

/// Receives a task's batches in file order; returns false to stop reading.
using BatchSink = std::function<bool(std::shared_ptr<arrow::RecordBatch>)>;

/// Reads `task` into `sink`. Errors: the data file's or a delete file's
/// (kNotFound, kCorruption, …), or kInvalidArgument for a file whose
/// columns cannot be read as the read schema says. Adds what the page index
/// saved to `stats` (optional).
Status ReadTask(const ScanContext& context, const scan::FileScanTask& task, const BatchSink& sink,
                PageIndexStats* stats = nullptr);

}  // namespace skade::read
