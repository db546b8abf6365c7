// SelectedRowsReader: the rows of one row group in a RowRanges, for columns
// that are flat primitives, without decoding the data pages that hold only
// other rows.
//
// parquet::arrow::FileReader (Arrow 26) cannot read a row selection, so each
// leaf is read with the low-level API: its PageReader's data page filter
// drops the pages (matched to the OffsetIndex in order) that hold no
// selected row, and TypedColumnReader::Skip passes over the unselected rows
// of the pages kept. Arrays come out in exactly the Arrow types the
// FileReader gives the same columns; Make declines (nullptr) every column it
// cannot promise that for — nested fields, dictionary reads, decimals and
// fixed-size binary, INT96, unsigned and narrow integers, timestamp units
// the Arrow schema changes — and the caller reads the row group whole.
//
// A data page whose value count disagrees with the OffsetIndex is
// kCorruption. Not thread-safe; the ParquetFile must outlive the reader.
#pragma once

#include <arrow/record_batch.h>
#include <parquet/column_reader.h>
#include <parquet/file_reader.h>

#include <memory>
#include <vector>

#include "skade/read/parquet_file_internal.h"
#include "skade/read/row_ranges_internal.h"
#include "skade/util/result.h"

namespace skade::read {

class SelectedRowsReader {
 public:
  /// A reader of `rows` of `row_group`, top-level file fields `fields` (as
  /// for ParquetFile::ReadRowGroup); nullptr when some field cannot be read
  /// this way.
  static Result<std::unique_ptr<SelectedRowsReader>> Make(ParquetFile& file, int row_group,
                                                          const std::vector<int>& fields,
                                                          RowRanges rows, int64_t batch_rows);

  /// The next batch: consecutive selected rows, at most batch_rows, the
  /// first at *first_row (relative to the row group); nullptr after the
  /// last.
  Result<std::shared_ptr<arrow::RecordBatch>> ReadNext(int64_t* first_row);

  /// Data pages not decoded, over all columns, so far.
  int64_t pages_skipped() const;

  ~SelectedRowsReader();

 private:
  struct Column;

  SelectedRowsReader() = default;

  ParquetFile* file_ = nullptr;
  std::shared_ptr<parquet::RowGroupReader> row_group_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<std::unique_ptr<Column>> columns_;
  RowRanges rows_;
  int64_t batch_rows_ = 0;
  size_t range_ = 0;      // the range read next
  int64_t next_row_ = 0;  // within it
};

}  // namespace skade::read
