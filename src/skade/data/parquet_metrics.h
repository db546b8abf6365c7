// Iceberg DataFile metrics from a Parquet footer (spec: "Manifests", data
// file fields 108-111, 125, 128, 132), computed the way Iceberg Java's
// ParquetMetrics does.
//
// Per column, by the field ids in the Parquet schema, under the column's
// MetricsMode (metrics_config.h):
// - none: nothing, not even the column size;
// - counts: column size (sum of compressed chunk sizes), value count (sum of
//   chunk value counts) and null count (from the chunk statistics), and the
//   NaN count for float and double columns;
// - truncate(N) / full: also lower and upper bounds in Iceberg's
//   single-value binary form, from the chunk min/max; string and binary
//   bounds are cut to N code points / bytes under truncate(N), the upper
//   bound incremented (or dropped when it cannot be).
// Leaves inside lists and maps get only their column size. A column whose
// chunks lack statistics gets no counts or bounds; a chunk that has values
// but no min/max (e.g. all NaN, or values past Parquet's statistics size
// limit) drops the column's bounds. Split offsets are the row groups'
// starting offsets, ascending.
//
// Stateless; thread-safe.
#pragma once

#include <parquet/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "skade/data/metrics_config.h"
#include "skade/spec/data_file.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace parquet {
class FileMetaData;
}  // namespace parquet

namespace parquet {
class ColumnDescriptor;
}  // namespace parquet

namespace skade::data {

/// A DataFile (format PARQUET) with record_count, column_sizes,
/// value/null/NaN counts, bounds and split_offsets filled from `footer`;
/// the caller sets the path, file size, partition and spec id.
/// `nan_value_counts` holds the NaNs counted per field id while writing
/// (absent ids count 0); pass nullptr when unknown, and no NaN counts are
/// reported. kCorruption if the footer cannot be read.
Result<spec::DataFile> DataFileFromParquetFooter(
    const parquet::FileMetaData& footer, const spec::Schema& schema, const MetricsConfig& config,
    const std::map<int32_t, int64_t>* nan_value_counts);

/// A Parquet statistics value (of a column chunk or a page index entry) of
/// `column` — plain-encoded, raw bytes for byte arrays — in Iceberg's
/// single-value binary form of `type`; nullopt when it cannot serve as a
/// bound (NaN, INT96, a size that does not match, a time in a finer unit
/// than the type's that the type's unit cannot hold exactly). Times and
/// timestamps stored in another unit than the type's (milliseconds, say)
/// are converted by the column's logical type.
std::optional<std::string> IcebergBoundFromParquet(const spec::Type& type,
                                                   const parquet::ColumnDescriptor& column,
                                                   const std::string& encoded);

}  // namespace skade::data
