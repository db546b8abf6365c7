// Whole-batch operations on Arrow record batches that the writers above data/
// need without touching Arrow themselves: size, concatenation, the last row
// of each key (upserts), column selection.
//
// Stateless; thread-safe. Errors are skade errors (kInvalidArgument for
// mismatched schemas or unknown columns).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

/// The bytes of `batch`'s buffers (what holding it in memory costs).
int64_t BatchBytes(const arrow::RecordBatch& batch);

/// One batch with the rows of `batches` in order; all must have the same
/// schema. At least one batch.
Result<std::shared_ptr<arrow::RecordBatch>> ConcatenateBatches(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches);

/// The rows of `batch` that are the last with their values in the columns
/// `key_columns` (by name, top-level), in their order in `batch`. Nulls
/// compare equal to each other.
Result<std::shared_ptr<arrow::RecordBatch>> LastRowPerKey(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<std::string>& key_columns);

/// The columns `names` of `batch` (top-level), in that order; zero-copy.
Result<std::shared_ptr<arrow::RecordBatch>> SelectColumns(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<std::string>& names);

}  // namespace skade::data
