// Which columns of a Parquet file are written without a dictionary.
//
// Arrow's writer tries a dictionary on every column and falls back to plain
// only when the dictionary outgrows write.parquet.dict-size-bytes, so a
// unique column (an id, an event time) pays for hashing a couple of MiB of
// values per row group and gains nothing. Iceberg Java's writer
// (parquet-java) decides on the first page instead: it keeps the dictionary
// only if dictionary plus indices come out smaller than the plain values.
// PlainColumns applies that same test to the first page of rows (the first
// page-row-limit rows of the first batch) before the file is opened.
//
// Only top-level columns of primitive types are judged; nested columns,
// booleans and decimals keep Arrow's behaviour. A misjudged column costs
// size or time, never correctness: readers handle both encodings.
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

/// Names of the top-level columns of `batch` whose first `page_rows` rows
/// would not shrink under dictionary encoding (dictionary bytes plus
/// bit-packed indices >= plain bytes). Columns whose sample has no non-null
/// value are left out.
std::vector<std::string> PlainColumns(const arrow::RecordBatch& batch, int64_t page_rows);

}  // namespace skade::data
