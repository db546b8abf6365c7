// Input files for ingest: Parquet, CSV and JSON-lines files as groups of
// record batches (a GroupSource), so the C++ API ingests files the way
// `skade ingest` does:
//
//   auto groups = InputGroups(paths, "", 1 << 20, *table_arrow_schema);
//   IngestPipelined(table, *groups, options);
//
// A Parquet file is read lazily: InputGroups() reads its footer only, and
// each group is decoded from the row groups it spans (pre-buffered reads),
// batch by batch, by the encode worker that takes it, so decoding runs on
// every core beside the encode and memory holds a few batches per worker,
// whatever the file's size. CSV and JSON files are read lazily too:
// InputGroups() only counts their rows (a pass that keeps none), and a
// file is opened when one of its groups is first read; Arrow's streaming
// readers decode it in file order, a group at a time, so memory holds the
// groups in flight, not the input. Their column types are inferred (from
// the file's first block), except that the table's primitive columns are
// read as the table's types, so every file of an ingest lands on them
// (e.g. timestamp[us], not timestamp[ns]). Batches are conformed to the
// table schema when encoded (data/conform_batch.h).
//
// CSV fields may hold quoted newlines (RFC 4180). A JSON value nested deeper
// than kMaxJsonDepth, or a record longer than kMaxRecordBytes, is an error
// naming the file and line, found by a byte scan before any row is decoded.
//
// Functions are thread-safe; a GroupSource's read may be called
// concurrently. Errors: kNotFound for a missing file, kInvalidArgument for
// an unknown format or a file its reader rejects (the message names it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/ingest/record_batch_group.h"
#include "skade/util/result.h"

namespace arrow {
class Buffer;
class Schema;
class Table;
}  // namespace arrow

namespace skade::ingest {

enum class InputFormat { kParquet, kCsv, kJson };

/// `format` ("parquet", "csv" or "json", any case) or, when empty, the
/// format `path`'s suffix names (.parquet/.pq, .csv, .json/.jsonl/.ndjson).
Result<InputFormat> InputFormatOf(std::string_view path, std::string_view format);

/// How much of a CSV or JSON file ReadInputSchema infers its types from.
inline constexpr int64_t kSchemaSampleBytes = 64 << 20;

/// The longest JSON line or CSV record read, in a file as in a stream: the
/// readers decode a block at a time, and a block must hold a whole record.
/// A file's blocks grow to hold its longest record (up to this), so files
/// without long records keep Arrow's small default block.
inline constexpr int64_t kMaxRecordBytes = 16 << 20;

/// The deepest nesting of JSON arrays and objects read, a line's own object
/// included. Arrow's JSON builder recurses once per level and overflows the
/// stack some thousands deep, so deeper input is refused before Arrow sees
/// it; 64 is far below that and above what a table's schema needs.
inline constexpr int kMaxJsonDepth = 64;

/// The Arrow schema of the file at `path` as its reader gives it (Parquet:
/// from the footer; CSV and JSON: inferred from its first `sample_bytes`,
/// whole records, as DuckDB samples: a later value that does not fit is an
/// error when the rows are read).
Result<std::shared_ptr<arrow::Schema>> ReadInputSchema(const std::string& path, InputFormat format,
                                                       int64_t sample_bytes = kSchemaSampleBytes);

/// The schema to create a table with for an input of schema `input`:
/// nanosecond timestamps, which readers infer from text and Iceberg v1/v2
/// cannot store, become microseconds, the Iceberg timestamp.
std::shared_ptr<arrow::Schema> TableSchemaFor(const arrow::Schema& input);

/// Groups of at most `rows_per_file` (>= 1) rows of each file in turn, in
/// file order (a group never spans two files). `format` as for
/// InputFormatOf, for every path; `table_schema` is the table's Arrow
/// schema (data/arrow_schema.h), for the CSV and JSON column types.
Result<GroupSource> InputGroups(const std::vector<std::string>& paths, std::string_view format,
                                int64_t rows_per_file, const arrow::Schema& table_schema);

/// The rows of CSV or JSON-lines `text` held in memory (e.g. lines read from
/// a stream), decoded as InputGroups decodes such files: the table's
/// primitive columns as `table_schema`'s types (when not null), the others
/// inferred. CSV `text` has no header line: `csv_column_names` names its
/// columns. kInvalidArgument with the reader's message when it rejects the
/// text, or when it nests JSON deeper than kMaxJsonDepth or holds a record
/// longer than kMaxRecordBytes; the result is not yet conformed to the table.
Result<std::shared_ptr<arrow::Table>> ParseTextRows(
    std::shared_ptr<arrow::Buffer> text, InputFormat format,
    const std::vector<std::string>& csv_column_names, const arrow::Schema* table_schema);

/// The column names of a CSV header line, as Arrow's CSV reader splits it.
Result<std::vector<std::string>> ParseCsvHeader(std::string_view line);

}  // namespace skade::ingest
