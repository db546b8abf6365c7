#include "skade/data/record_batches.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/byte_size.h>

#include <string_view>
#include <unordered_map>

#include "skade/data/arrow_error_internal.h"

namespace skade::data {

namespace {

Result<std::vector<int>> ColumnIndices(const arrow::Schema& schema,
                                       const std::vector<std::string>& names) {
  std::vector<int> indices;
  for (const std::string& name : names) {
    int index = schema.GetFieldIndex(name);
    if (index < 0) return InvalidArgument("Cannot find column '", name, "' in the batch");
    indices.push_back(index);
  }
  return indices;
}

// Field by field: arrow::Schema::Equals compares fingerprints, computed once
// per Schema object, and a flush's small batches each bring their own
// object, so fingerprinting them cost more than concatenating their rows.
bool SameSchema(const arrow::Schema& a, const arrow::Schema& b) {
  if (&a == &b) return true;
  if (a.num_fields() != b.num_fields() || a.HasMetadata() != b.HasMetadata()) return false;
  if (a.HasMetadata() && !a.metadata()->Equals(*b.metadata())) return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (!a.field(i)->Equals(*b.field(i), /*check_metadata=*/true)) return false;
  }
  return true;
}

// The row's key as bytes: each value's length-prefixed text, "\0" for null,
// so distinct keys never collide.
Result<std::string> KeyOf(const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t row) {
  std::string key;
  for (const auto& column : columns) {
    if (column->IsNull(row)) {
      key.push_back('\0');
      continue;
    }
    SKADE_ASSIGN_OR_RAISE_ARROW(auto scalar, column->GetScalar(row));
    std::string text = scalar->ToString();
    key.push_back('\1');
    key.append(std::to_string(text.size()));
    key.push_back(':');
    key.append(text);
  }
  return key;
}

}  // namespace

int64_t BatchBytes(const arrow::RecordBatch& batch) {
  return static_cast<int64_t>(arrow::util::TotalBufferSize(batch));
}

Result<std::shared_ptr<arrow::RecordBatch>> ConcatenateBatches(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches) {
  if (batches.empty()) return InvalidArgument("Cannot concatenate no batches");
  if (batches.size() == 1) return batches.front();
  const std::shared_ptr<arrow::Schema>& schema = batches.front()->schema();
  int64_t rows = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    if (!SameSchema(*schema, *batches[i]->schema())) {
      return InvalidArgument("Cannot concatenate record batches: batch ", i,
                             "'s schema differs from the first's");
    }
    rows += batches[i]->num_rows();
  }
  return CatchArrowExceptions(
      "Cannot concatenate record batches", [&]() -> Result<std::shared_ptr<arrow::RecordBatch>> {
        arrow::ArrayVector columns;
        arrow::ArrayVector pieces(batches.size());
        for (int column = 0; column < schema->num_fields(); ++column) {
          for (size_t i = 0; i < batches.size(); ++i) pieces[i] = batches[i]->column(column);
          SKADE_ASSIGN_OR_RAISE_ARROW(auto joined, arrow::Concatenate(pieces));
          columns.push_back(std::move(joined));
        }
        return arrow::RecordBatch::Make(schema, rows, std::move(columns));
      });
}

Result<std::shared_ptr<arrow::RecordBatch>> LastRowPerKey(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<std::string>& key_columns) {
  SKADE_ASSIGN_OR_RAISE(auto indices, ColumnIndices(*batch->schema(), key_columns));
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int index : indices) columns.push_back(batch->column(index));
  std::unordered_map<std::string, int64_t> last;
  last.reserve(static_cast<size_t>(batch->num_rows()));
  for (int64_t row = 0; row < batch->num_rows(); ++row) {
    SKADE_ASSIGN_OR_RAISE(std::string key, KeyOf(columns, row));
    last[std::move(key)] = row;
  }
  if (static_cast<int64_t>(last.size()) == batch->num_rows()) return batch;
  std::vector<bool> keep(static_cast<size_t>(batch->num_rows()), false);
  for (const auto& [key, row] : last) keep[static_cast<size_t>(row)] = true;
  arrow::Int64Builder rows;
  for (int64_t row = 0; row < batch->num_rows(); ++row) {
    if (keep[static_cast<size_t>(row)]) SKADE_RETURN_NOT_OK_ARROW(rows.Append(row));
  }
  SKADE_ASSIGN_OR_RAISE_ARROW(auto take_indices, rows.Finish());
  SKADE_ASSIGN_OR_RAISE_ARROW(arrow::Datum taken, arrow::compute::Take(batch, take_indices));
  return taken.record_batch();
}

Result<std::shared_ptr<arrow::RecordBatch>> SelectColumns(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<std::string>& names) {
  SKADE_ASSIGN_OR_RAISE(auto indices, ColumnIndices(*batch->schema(), names));
  return FromArrowResult(batch->SelectColumns(indices));
}

}  // namespace skade::data
