// PageIndexFilter: the rows of a row group that may satisfy a task's
// residual, from the Parquet page index (ColumnIndex min/max, null counts
// and null pages; OffsetIndex first row of each page).
//
// Each predicate keeps the pages of its column whose entry
// expr::ColumnMayMatch does not rule out — the rules that prune files and
// row groups, on one page's metrics — and `and`/`or` intersect and unite
// those rows. A predicate on a column without a page index, inside a list
// or map, with an unknown sort order, or of a field the file lacks keeps
// every row; so does a page index that cannot be read (pages are still
// decoded and checked). NaN counts are not in the page index, so they are
// unknown, as for row groups.
//
// Needs field ids in the file (statistics are matched by id). Not
// thread-safe: one task reads one file.
#pragma once

#include <parquet/page_index.h>

#include <map>
#include <memory>
#include <vector>

#include "skade/expr/bound_expression.h"
#include "skade/read/parquet_file_internal.h"
#include "skade/read/row_ranges_internal.h"
#include "skade/spec/schema.h"

namespace skade::read {

class PageIndexFilter {
 public:
  /// `file` and `schema` (what `residual` is bound to) must outlive the
  /// filter.
  PageIndexFilter(ParquetFile& file, expr::BoundExpressionPtr residual, const spec::Schema& schema);

  /// The rows of `row_group` (relative to its first row) that may match;
  /// all of them when nothing can be proved.
  RowRanges RowsToRead(int row_group);

  /// The data pages of leaf columns `leaves` in `row_group` by the
  /// OffsetIndex (0 for a column without one).
  int64_t DataPages(int row_group, const std::vector<int>& leaves);

 private:
  RowRanges Evaluate(const expr::BoundExpression& expression, int64_t rows,
                     parquet::RowGroupPageIndexReader& index);
  RowRanges Predicate(const expr::BoundExpression& predicate, int64_t rows,
                      parquet::RowGroupPageIndexReader& index);

  ParquetFile* file_;
  expr::BoundExpressionPtr residual_;
  const spec::Schema* schema_;
  std::map<int32_t, int> leaf_by_id_;  // top-level and struct leaves only
  std::shared_ptr<parquet::PageIndexReader> page_index_;
};

}  // namespace skade::read
