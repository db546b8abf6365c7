// The generated data every ingest benchmark target uses, defined by
// formulas so that pyiceberg_append.py builds exactly the same rows:
// row i (i counting from 0 over all files) is
//   id       int64      i
//   ts       timestamp  2026-11-01 + i ms (µs precision, no zone)
//   category string     "cat-" + (i % 16)
//   name     string     "name-" + ((i * 7919) % 100003)
//   score    double     (i % 1000) * 0.5
//   qty      int32      i % 97
//   flag     bool       i % 3 == 0
// Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "skade/ingest/record_batch_group.h"
#include "skade/spec/schema.h"

namespace skade::bench {

/// The Iceberg schema of the generated rows (field ids 1-7).
spec::SchemaPtr IngestBenchSchema();

/// `files` groups of `rows_per_file` rows, each one record batch.
std::vector<ingest::RecordBatchGroup> IngestBenchData(int files, int64_t rows_per_file);

/// Bytes of the groups' Arrow buffers (the "MB" of MB/s).
int64_t ArrowBytes(const std::vector<ingest::RecordBatchGroup>& groups);

}  // namespace skade::bench
