// Iceberg's single-value JSON serialization of literals (spec: "Appendix C",
// the REST spec's PrimitiveTypeValue): numbers and booleans as JSON values,
// everything else as strings — dates "2007-12-03", times "22:31:08.123456",
// timestamps "2007-12-03T10:15:30.123456" (timestamptz with "+00:00",
// nanosecond types with nine fraction digits), uuids in canonical lowercase,
// decimals in plain notation ("123.4500"), binary and fixed as uppercase hex.
// Also the text pieces partition paths reuse. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "skade/spec/literal.h"
#include "skade/spec/type.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::spec {

/// java.time.LocalDate#toString of the date `days` after 1970-01-01.
std::string IsoDateString(int64_t days);
/// The canonical 8-4-4-4-12 lowercase form of 16 uuid bytes.
std::string UuidString(std::string_view bytes);
/// A decimal's unscaled big-endian bytes as plain text with `scale` digits
/// after the point ("-0.05"); a negative scale in scientific notation ("2E+20").
std::string DecimalString(std::string_view unscaled_bytes, int32_t scale);

/// The JSON string (or the number or boolean as text) of `value`, not quoted.
/// A null literal is "null".
std::string LiteralJsonText(const Literal& value);
/// Writes `value` as its single-value JSON; floats and doubles always with
/// a point or an exponent, NaN and infinities as the strings "NaN",
/// "Infinity" and "-Infinity".
void WriteLiteralJson(const Literal& value, JsonWriter& writer);

/// Reads the string form of a value of `type` (every type but boolean and
/// the numbers, whose JSON values are not strings; strings as they are).
/// Timestamps without zone reject an offset; timestamptz values take one
/// ("Z", "+01:00") and are UTC without; a bare date reads as midnight. Decimals
/// convert exactly (fewer fraction digits are padded, more are an error
/// unless zero) and must fit the precision. kInvalidArgument naming the
/// value and the type otherwise.
Result<Literal> LiteralFromJsonString(const TypePtr& type, std::string_view text);

}  // namespace skade::spec
