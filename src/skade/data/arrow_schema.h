// Schema conversion between Iceberg and Arrow.
//
// Iceberg → Arrow gives every field, list element and map key/value the
// "PARQUET:field_id" metadata that the Parquet writer turns into Parquet field
// ids. Type mapping: boolean↔bool, int↔int32, long↔int64, float↔float32,
// double↔float64, decimal(P,S)↔decimal128(P,S), date↔date32, time↔time64[us],
// timestamp↔timestamp[us], timestamptz↔timestamp[us, tz=UTC],
// timestamp(tz)_ns↔timestamp[ns(, UTC)], string↔utf8, binary↔binary,
// fixed[L]↔fixed_size_binary(L), uuid↔arrow.uuid, struct/list/map↔the same.
//
// Arrow → Iceberg also accepts large_string, large_binary, large_list,
// int8/int16/uint8/uint16 (as int), uint32 (as long), timestamp[s|ms] (as
// timestamp) and fixed_size_binary(16) only as fixed[16] (uuid needs the
// arrow.uuid type or an Iceberg schema that says uuid). Everything else —
// uint64, float16, time32, time64[ns], date64, durations, intervals,
// dictionaries, views, unions, non-UTC time zones, other extension types —
// is kInvalidArgument naming the column.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "skade/spec/schema.h"
#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace arrow {
class DataType;
class Field;
class Schema;
}  // namespace arrow

namespace skade::data {

/// The Arrow field metadata key that carries an Iceberg field id.
inline constexpr char kParquetFieldIdKey[] = "PARQUET:field_id";

/// The Arrow type for an Iceberg type (nested fields carry field ids).
/// kUnsupported for unknown, variant, geometry and geography.
Result<std::shared_ptr<arrow::DataType>> ToArrowType(const spec::Type& type);

/// The Arrow field for an Iceberg field: its name, type, nullability
/// (optional ↔ nullable) and field id.
Result<std::shared_ptr<arrow::Field>> ToArrowField(const spec::NestedField& field);

/// The Arrow schema for an Iceberg schema.
Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const spec::Schema& schema);

/// The Iceberg field id in an Arrow field's metadata, or -1 when it has none.
/// kInvalidArgument when the value is not a non-negative 32-bit integer.
Result<int32_t> FieldIdOf(const arrow::Field& field);

/// True for the time zone names that mean UTC ("UTC", "Etc/UTC", "+00:00",
/// "Z"), the only zone a timestamptz column may carry.
bool IsUtcTimeZone(std::string_view timezone);

/// The Iceberg schema for an Arrow schema. Field ids come from the fields'
/// "PARQUET:field_id" metadata; fields without one get fresh ids above the
/// largest id present, in Iceberg's order (a struct's fields first, then
/// each field's nested fields). Duplicate ids are kInvalidArgument.
Result<spec::SchemaPtr> FromArrowSchema(const arrow::Schema& schema,
                                        int32_t schema_id = spec::Schema::kInitialSchemaId);

}  // namespace skade::data
