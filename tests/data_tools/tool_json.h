// JSON in and out of skade_data_tool: Iceberg schemas (the spec's JSON form,
// as PyIceberg writes it), DataFiles and literals for the interop tests.
//
// Test tooling only: the catalog's own schema JSON lives in spec/.
#pragma once

#include <string_view>

#include "skade/spec/data_file.h"
#include "skade/spec/literal.h"
#include "skade/spec/schema.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::data_tools {

/// A schema from its spec JSON ({"type": "struct", "fields": [...]}).
Result<spec::SchemaPtr> ParseSchemaJson(std::string_view text);

/// The spec JSON of `schema`.
void WriteSchemaJson(JsonWriter& writer, const spec::Schema& schema);

/// A literal as JSON: numbers and booleans as such, strings as strings,
/// binary, fixed and uuid as lower-case hex, decimals as their unscaled
/// integer, null as null.
void WriteLiteralJson(JsonWriter& writer, const spec::Literal& value);

/// A DataFile with its metric maps keyed by field id and bounds in hex.
void WriteDataFileJson(JsonWriter& writer, const spec::DataFile& file);

}  // namespace skade::data_tools
