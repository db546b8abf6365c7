// Reading single values out of Arrow arrays as Iceberg literals (partition
// tuple entries).
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>

#include "skade/spec/literal.h"
#include "skade/spec/type.h"
#include "skade/util/result.h"

namespace arrow {
class Array;
}  // namespace arrow

namespace skade::data {

/// The value at `index` of `array` as a literal of the primitive Iceberg
/// `type` (a null slot gives Literal::Null(type)). `array` must hold that
/// type in one of the representations ConformBatch accepts after
/// conforming (e.g. int32 for int and date, int64 for long, time and
/// timestamps, decimal128, string or large_string, fixed_size_binary or
/// arrow.uuid); anything else is kInvalidArgument.
Result<spec::Literal> LiteralFromArrow(const arrow::Array& array, int64_t index,
                                       const spec::TypePtr& type);

}  // namespace skade::data
