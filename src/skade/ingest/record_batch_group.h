// The unit of ingest input: the record batches that become one data file
// (one per partition they touch), held in memory or read on demand.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::ingest {

/// Batches whose rows go, in order, into one data file per partition.
/// Batches must conform to the table schema (data/conform_batch.h).
using RecordBatchGroup = std::vector<std::shared_ptr<arrow::RecordBatch>>;

/// Groups read on demand (e.g. rows of an input file, input_files.h):
/// `read(i)` returns group i, 0 <= i < count. The pipelines call it once
/// per group on the encode worker that takes the group, concurrently for
/// different groups, so reading runs on every core beside the encode and
/// only the groups being encoded are in memory. `read` must be thread-safe.
struct GroupSource {
  size_t count = 0;
  std::function<Result<RecordBatchGroup>(size_t)> read;

  /// The groups of `groups`, which must outlive the source.
  static GroupSource Of(const std::vector<RecordBatchGroup>& groups) {
    return {groups.size(), [&groups](size_t i) -> Result<RecordBatchGroup> { return groups[i]; }};
  }
};

}  // namespace skade::ingest
