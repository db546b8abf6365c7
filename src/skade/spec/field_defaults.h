// The initial-default and write-default of a schema's fields (v3), checked
// as Iceberg Java reads them: Java cannot load a table whose schema holds a
// default it cannot read, so such a schema is refused before it is committed.
#pragma once

#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::spec {

/// kInvalidArgument naming the field if a default of any field of `schema`,
/// at any depth, is not a value of the field's type in Iceberg's single-value
/// JSON (spec, Appendix C) as Java's parser takes it: a boolean; an int or
/// long as a JSON integer in range; a float or double as a JSON number with a
/// point or an exponent; a decimal as a string with exactly the type's scale;
/// a uuid in its 36-character form; dates, times and timestamps in ISO form,
/// a timestamp with a time of day, a timestamptz with a zero offset; fixed
/// and binary as hex of the right length. Nested, unknown, variant, geometry
/// and geography fields may have no default.
Status CheckFieldDefaults(const Schema& schema);

}  // namespace skade::spec
