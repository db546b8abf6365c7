// The unit of ingest input: the record batches that become one data file
// (one per partition they touch).
#pragma once

#include <memory>
#include <vector>

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::ingest {

/// Batches whose rows go, in order, into one data file per partition.
/// Batches must conform to the table schema (data/conform_batch.h).
using RecordBatchGroup = std::vector<std::shared_ptr<arrow::RecordBatch>>;

}  // namespace skade::ingest
