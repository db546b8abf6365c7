// Conforming Arrow record batches to an Iceberg schema before writing.
//
// The Parquet writer takes the Arrow schema as the file schema, so every
// batch is first rewritten — zero-copy wherever the layout already matches —
// into exactly what the table expects: columns in schema order under their
// Iceberg names, each field (and list element, map key and value) tagged
// with its "PARQUET:field_id", nullability equal to the Iceberg
// optional/required flag.
//
// The result always has exactly the types of ToArrowSchema(schema), so every
// batch written to one file has the same Arrow schema. Matching is by name at
// every level. A missing optional column becomes all nulls; a missing
// required column, a column the schema does not have, or a null in a
// required field is kInvalidArgument naming the column. Accepted beyond the
// canonical types: zero-copy retagging of fixed_size_binary(16) as uuid, of
// decimal128 with the same scale and no larger precision, and of other
// spellings of UTC; conversions that copy the column — large_string,
// large_binary and large_list to 32-bit offsets, int8/int16/uint8/uint16 to
// int, any of those or int32/uint32 to long, float to double, and
// timestamp[s|ms] to microseconds.
//
// Stateless; thread-safe.
#pragma once

#include <memory>

#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace arrow {
class RecordBatch;
}  // namespace arrow

namespace skade::data {

/// `batch` rewritten for `schema` as described above. Returns `batch`
/// itself when it already conforms.
Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(
    const std::shared_ptr<arrow::RecordBatch>& batch, const spec::Schema& schema);

}  // namespace skade::data
