#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>

#include <exception>
#include <optional>
#include <string>

#include "skade/data/parquet_metrics.h"
#include "skade/expr/metrics_evaluator.h"
#include "skade/read/page_index_filter_internal.h"

namespace skade::read {

namespace {

// Whether the page min/max of `column` are ordered the way Iceberg bounds
// are: signed for numbers, unsigned bytes for strings and binary (decimals
// as bytes are signed, which IcebergBoundFromParquet decodes).
bool OrderedLikeIceberg(const parquet::ColumnDescriptor& column) {
  if (!column.can_use_min_max()) return false;
  switch (column.physical_type()) {
    case parquet::Type::BOOLEAN:
    case parquet::Type::INT32:
    case parquet::Type::INT64:
    case parquet::Type::FLOAT:
    case parquet::Type::DOUBLE:
      return column.sort_order() == parquet::SortOrder::SIGNED;
    case parquet::Type::BYTE_ARRAY:
    case parquet::Type::FIXED_LEN_BYTE_ARRAY:
      return true;
    default:
      return false;
  }
}

}  // namespace

PageIndexFilter::PageIndexFilter(ParquetFile& file, expr::BoundExpressionPtr residual,
                                 const spec::Schema& schema)
    : file_(&file), residual_(std::move(residual)), schema_(&schema) {
  const parquet::SchemaDescriptor& columns = *file.metadata().schema();
  for (int c = 0; c < columns.num_columns(); ++c) {
    const parquet::ColumnDescriptor& column = *columns.Column(c);
    if (column.max_repetition_level() > 0) continue;
    int32_t id = column.schema_node()->field_id();
    if (id >= 0) leaf_by_id_.emplace(id, c);
  }
}

RowRanges PageIndexFilter::RowsToRead(int row_group) {
  int64_t rows = file_->row_group_rows(row_group);
  RowRanges all = RowRanges::All(rows);
  if (residual_->IsTrue() || !file_->has_field_ids()) return all;
  // The page index only narrows what is read: a page index that cannot be
  // read means reading everything, never an error.
  try {
    if (page_index_ == nullptr)
      page_index_ = file_->reader().parquet_reader()->GetPageIndexReader();
    if (page_index_ == nullptr) return all;
    std::shared_ptr<parquet::RowGroupPageIndexReader> index = page_index_->RowGroup(row_group);
    if (index == nullptr) return all;
    return Evaluate(*residual_, rows, *index);
  } catch (const std::exception&) {
    return all;
  }
}

int64_t PageIndexFilter::DataPages(int row_group, const std::vector<int>& leaves) {
  try {
    if (page_index_ == nullptr)
      page_index_ = file_->reader().parquet_reader()->GetPageIndexReader();
    std::shared_ptr<parquet::RowGroupPageIndexReader> index =
        page_index_ != nullptr ? page_index_->RowGroup(row_group) : nullptr;
    if (index == nullptr) return 0;
    int64_t pages = 0;
    for (int leaf : leaves) {
      std::shared_ptr<parquet::OffsetIndex> offsets = index->GetOffsetIndex(leaf);
      if (offsets != nullptr) pages += static_cast<int64_t>(offsets->page_locations().size());
    }
    return pages;
  } catch (const std::exception&) {
    return 0;
  }
}

RowRanges PageIndexFilter::Evaluate(const expr::BoundExpression& expression, int64_t rows,
                                    parquet::RowGroupPageIndexReader& index) {
  switch (expression.op()) {
    case expr::Operation::kTrue:
      return RowRanges::All(rows);
    case expr::Operation::kFalse:
      return RowRanges();
    case expr::Operation::kAnd: {
      RowRanges left = Evaluate(*expression.left(), rows, index);
      if (left.empty()) return left;
      return RowRanges::Intersection(left, Evaluate(*expression.right(), rows, index));
    }
    case expr::Operation::kOr:
      return RowRanges::Union(Evaluate(*expression.left(), rows, index),
                              Evaluate(*expression.right(), rows, index));
    default:
      return Predicate(expression, rows, index);
  }
}

RowRanges PageIndexFilter::Predicate(const expr::BoundExpression& predicate, int64_t rows,
                                     parquet::RowGroupPageIndexReader& index) {
  RowRanges all = RowRanges::All(rows);
  int32_t id = predicate.term().field_id;
  auto leaf = leaf_by_id_.find(id);
  const spec::NestedField* field = schema_->FindFieldById(id);
  if (leaf == leaf_by_id_.end() || field == nullptr || !field->type->is_primitive()) return all;
  const parquet::ColumnDescriptor& column = *file_->metadata().schema()->Column(leaf->second);
  if (!OrderedLikeIceberg(column)) return all;
  std::shared_ptr<parquet::ColumnIndex> column_index = index.GetColumnIndex(leaf->second);
  std::shared_ptr<parquet::OffsetIndex> offset_index = index.GetOffsetIndex(leaf->second);
  if (column_index == nullptr || offset_index == nullptr) return all;
  const auto& pages = offset_index->page_locations();
  const auto& null_pages = column_index->null_pages();
  const auto& mins = column_index->encoded_min_values();
  const auto& maxes = column_index->encoded_max_values();
  bool has_null_counts = column_index->has_null_counts();
  size_t n = pages.size();
  if (n == 0 || null_pages.size() != n || mins.size() != n || maxes.size() != n ||
      (has_null_counts && column_index->null_counts().size() != n)) {
    return all;
  }
  RowRanges out;
  for (size_t i = 0; i < n; ++i) {
    int64_t begin = pages[i].first_row_index;
    int64_t end = i + 1 < n ? pages[i + 1].first_row_index : rows;
    if (begin < 0 || end > rows || begin > end) return all;
    // A page of a column outside lists holds one value per row.
    expr::ColumnMetrics metrics;
    metrics.value_count = end - begin;
    if (has_null_counts) {
      metrics.null_count = column_index->null_counts()[i];
    } else if (null_pages[i]) {
      metrics.null_count = end - begin;
    }
    std::optional<std::string> lower;
    std::optional<std::string> upper;
    if (!null_pages[i]) {
      lower = data::IcebergBoundFromParquet(*field->type, column, mins[i]);
      upper = data::IcebergBoundFromParquet(*field->type, column, maxes[i]);
    }
    metrics.lower_bound = lower ? &*lower : nullptr;
    metrics.upper_bound = upper ? &*upper : nullptr;
    if (expr::ColumnMayMatch(predicate, metrics, *schema_)) out.Add(begin, end);
  }
  return out;
}

}  // namespace skade::read
