// Iceberg types as Avro schemas and back (Iceberg spec: "Appendix A: Format-
// specific Requirements", Avro).
//
// Iceberg → Avro follows what Iceberg's own writers emit, so files compare
// equal field by field with theirs:
//   - a struct is a record; the top one is named by the caller, nested ones
//     "r<field id>" (for list elements the element id, for map values the
//     value id); each field carries `field-id`; names that are not valid Avro
//     names are sanitized (`_x2D` for '-', `_5` for a leading '5') and the
//     original kept in `iceberg-field-name`;
//   - an optional field is the union ["null", T] with default null;
//   - a list is an array with `element-id`;
//   - a map with string keys is an Avro map with `key-id`/`value-id`; any
//     other map is an array of records "k<key id>_v<value id>" with fields
//     `key` and `value` and `logicalType: map`;
//   - date is int+date; time long+time-micros; timestamp(tz) long+
//     timestamp-micros with `adjust-to-utc` false (true); the _ns variants use
//     timestamp-nanos; uuid is fixed[16] "uuid_fixed"+uuid; fixed[n] is
//     "fixed_<n>"; decimal(P,S) is fixed "decimal_P_S" of the minimal size
//     for P with logicalType decimal; binary is bytes; unknown is null;
//     variant is a record of `metadata` and `value` bytes.
// Avro → Iceberg reverses this and also accepts what other writers emit
// (local-timestamp-*, decimal on bytes, uuid on string, enums as strings).
//
// Stateless functions; thread-safe.
#pragma once

#include <string_view>

#include "skade/avro/schema.h"
#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace skade::avro {

/// The Avro record for an Iceberg struct type. Geometry and geography are
/// kUnsupported.
Result<NodePtr> ToAvroSchema(const spec::Type& struct_type, std::string_view record_name);

/// The Avro schema of one Iceberg primitive type. Fields of that type wrap
/// it in a union with null when optional.
Result<NodePtr> PrimitiveToAvro(const spec::Type& type);

/// The Iceberg type an Avro schema describes, using its Iceberg ids. A
/// record field without a `field-id`, or a list/map without element or
/// key/value ids, is kInvalidArgument.
Result<spec::TypePtr> ToIcebergType(const Node& node);

/// The smallest number of bytes whose two's complement holds every unscaled
/// value of a decimal with `precision` digits (1-38).
int DecimalRequiredBytes(int precision);

/// Whether `name` is a valid Avro name ([A-Za-z_][A-Za-z0-9_]*), and the
/// name Iceberg's writers use in its place when it is not.
bool IsValidAvroName(std::string_view name);
std::string SanitizeAvroName(std::string_view name);

}  // namespace skade::avro
