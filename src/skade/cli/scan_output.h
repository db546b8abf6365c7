// Where `skade scan` writes its rows: an aligned text table, CSV, JSON
// lines or Parquet, to stdout or a file. The three text formats write a
// value alike: a uuid as 8-4-4-4-12 lower-case hex, binary and fixed as
// base64, and (table, CSV) a nested value as the JSON jsonl writes for it;
// a table cell is one line, its control characters escaped. Not
// thread-safe: one scan writes.
#pragma once

#include <arrow/record_batch.h>

#include <memory>
#include <string>

#include "skade/util/result.h"

namespace skade::cli {

class ScanOutput {
 public:
  virtual ~ScanOutput() = default;
  virtual Status Write(const arrow::RecordBatch& batch) = 0;
  /// Flushes and closes; the output is complete only after Close.
  virtual Status Close() = 0;
};

/// `format` is table, csv, jsonl or parquet; `path` empty means stdout
/// (parquet needs a path). kInvalidArgument for an unknown format.
Result<std::unique_ptr<ScanOutput>> MakeScanOutput(const std::string& format,
                                                   const std::string& path,
                                                   std::shared_ptr<arrow::Schema> schema);

}  // namespace skade::cli
