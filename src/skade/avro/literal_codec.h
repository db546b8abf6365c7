// Iceberg values (spec::Literal) as Avro values, for partition tuples.
//
// Writing follows the Avro forms of type_conversion.h: int and date as int;
// long, time and timestamps as long; string as string; binary as bytes;
// uuid and fixed as fixed; decimal as fixed of the schema's size, sign-
// extended from the literal's minimal two's complement. Reading accepts those
// and the other forms writers use (long for int-promoted columns, bytes-based
// decimals, string uuids) and returns decimals in minimal two's complement.
// Stateless; thread-safe.
#pragma once

#include "skade/avro/decoder.h"
#include "skade/avro/encoder.h"
#include "skade/avro/schema.h"
#include "skade/spec/literal.h"
#include "skade/util/result.h"

namespace skade::avro {

/// Writes `value` of Iceberg type `type` with Avro schema `node` (a union
/// with null when the value may be null). A value whose representation does
/// not match `type`, a null for a required schema, or a decimal too wide for
/// its fixed size is kInvalidArgument.
Status EncodeLiteral(Encoder& encoder, const Node& node, const spec::Type& type,
                     const spec::Literal& value);

/// Reads a value written with `node` as Iceberg type `type`; a null value is
/// Literal::Null(type). A writer type that cannot hold `type` is kCorruption.
Result<spec::Literal> DecodeLiteral(Decoder& decoder, const Node& node, const spec::TypePtr& type);

}  // namespace skade::avro
