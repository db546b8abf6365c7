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
#include <vector>

#include "skade/util/result.h"

namespace skade::cli {

class ScanOutput {
 public:
  virtual ~ScanOutput() = default;
  virtual Status Write(const arrow::RecordBatch& batch) = 0;
  /// Flushes and closes; the output is complete only after Close.
  virtual Status Close() = 0;
};

/// Where a scan's rows go.
///
/// A file is never written in place. The rows go to a new hidden file
/// beside it (`.NAME.skade-XXXXXXXXXXXXXXXX.tmp`), which Close() syncs and
/// renames onto `path` only once every row is in; an output destroyed
/// before a successful Close() — a failed scan — deletes that file, so an
/// earlier file at `path` is untouched and nothing is left behind (a
/// process killed outright can leave the hidden file). An existing file that
/// is not a regular file (a FIFO, /dev/null) has nothing to lose and is
/// written directly.
struct ScanDestination {
  /// A local file; empty means stdout.
  std::string path;
  /// Replace a regular file already at `path` (--force; it keeps the old
  /// file's permission bits). Without it such a file is kAlreadyExists.
  bool replace = false;
  /// Local directories (absolute paths or file: URIs) no output may be
  /// written in, even with `replace`: where the catalog keeps its store and
  /// table files. Compared with `path` after both are made absolute, their
  /// ".." removed and their symbolic links resolved; kForbidden when `path`
  /// is in one.
  std::vector<std::string> protected_directories;
};

/// `format` is table, csv, jsonl or parquet (parquet needs a file).
/// kInvalidArgument for an unknown format or a directory as the file, the
/// errors of ScanDestination, kIo when the hidden file cannot be created.
Result<std::unique_ptr<ScanOutput>> MakeScanOutput(const std::string& format,
                                                   const ScanDestination& destination,
                                                   std::shared_ptr<arrow::Schema> schema);

}  // namespace skade::cli
