// Counting NaNs in float and double columns. Parquet statistics have no NaN
// count, so the writer counts them from the Arrow arrays it writes.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <map>

#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

/// Adds to `counts`, per field id, the NaNs among the float and double
/// values of `batch` (conformed to `schema`): top-level columns and fields of
/// structs, where a value under a null struct does not count. Values in
/// lists and maps are skipped: Iceberg keeps no metrics for them.
Status AddNanCounts(const arrow::RecordBatch& batch, const spec::Schema& schema,
                    std::map<int32_t, int64_t>* counts);

}  // namespace skade::data
