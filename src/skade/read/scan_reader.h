// Reads a planned scan as Arrow record batches, one task per data file, in
// parallel on all cores (spec: "Scan Planning", "Column Projection",
// "Row-level Deletes").
//
// Per task: the Parquet file is opened through the FileIO
// (io::FileIO::NewInputFile); columns are matched to the read schema by
// field id (a renamed column reads by its id; a column the file lacks reads
// as its initial default or null; a dropped column is never returned; types
// promoted since the file was written — int→long, float→double, decimal
// precision — are cast); row groups whose statistics rule out the residual
// are skipped, and so are the data pages whose page index rules it out
// (for flat columns; the rest decode whole row groups); position deletes, deletion vectors and
// equality deletes that apply are removed; the residual filter is applied. Output columns are the
// plan's projected field ids, as Arrow fields carrying "PARQUET:field_id".
//
// Threading: tasks are decoded on a pool of `threads`; batches come out in
// task order when `ordered`, else as they finish. The reader is used by one
// consumer thread. Cancelling (destroying the reader) stops the pool after
// the tasks in flight.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "skade/io/file_io.h"
#include "skade/scan/scan_plan.h"
#include "skade/util/result.h"

namespace skade::read {

struct ScanProgress {
  int64_t tasks_done = 0;
  int64_t tasks_total = 0;
  int64_t bytes_done = 0;  // data file bytes of finished tasks
  int64_t bytes_total = 0;
  int64_t rows_out = 0;
  /// Data pages the Parquet page index spared decoding (finished tasks).
  int64_t pages_skipped = 0;
  /// Rows of row groups read that the page index kept from being decoded.
  int64_t rows_skipped = 0;
};

struct ScanReadOptions {
  /// Decode threads (0: one per core).
  int threads = 0;
  /// Rows per output batch, at most.
  int64_t batch_rows = 64 * 1024;
  /// Stop after this many rows (the rest of the tasks are not read).
  std::optional<int64_t> limit;
  /// Output batches in task order (deterministic), else in completion order.
  bool ordered = false;
  /// Called on the consumer's thread after each finished task.
  std::function<void(const ScanProgress&)> on_progress;
};

/// The Arrow schema a scan of `plan` returns.
Result<std::shared_ptr<arrow::Schema>> ScanSchema(const scan::ScanPlan& plan);

/// Errors while reading (a missing file, a corrupt one, a delete file that
/// does not parse) end the stream with that error as an arrow::Status.
Result<std::shared_ptr<arrow::RecordBatchReader>> ReadScan(scan::ScanPlan plan, io::FileIO& io,
                                                           const ScanReadOptions& options = {});

}  // namespace skade::read
