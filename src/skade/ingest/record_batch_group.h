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

/// A group's batches one at a time, in order: the next batch, or null at
/// the end. Called from one thread.
using BatchStream = std::function<Result<std::shared_ptr<arrow::RecordBatch>>()>;

/// The batches of `group`, which must outlive the stream.
inline BatchStream StreamOf(const RecordBatchGroup& group) {
  return [&group, next = size_t{0}]() mutable -> Result<std::shared_ptr<arrow::RecordBatch>> {
    return next < group.size() ? group[next++] : nullptr;
  };
}

/// Groups read on demand (e.g. rows of an input file, input_files.h):
/// `read(i)` opens group i, 0 <= i < count, as a stream. The pipelines
/// call it once per group on the encode worker that takes the group,
/// concurrently for different groups, and encode each batch as it comes,
/// so reading runs on every core beside the encode and memory holds a few
/// batches per worker, not whole groups. `read` must be thread-safe.
struct GroupSource {
  size_t count = 0;
  std::function<Result<BatchStream>(size_t)> read;

  /// The groups of `groups`, which must outlive the source.
  static GroupSource Of(const std::vector<RecordBatchGroup>& groups) {
    return {groups.size(),
            [&groups](size_t i) -> Result<BatchStream> { return StreamOf(groups[i]); }};
  }
};

}  // namespace skade::ingest
