// The table metadata file format (spec: "Table Metadata Fields" and
// "Appendix C"), format versions 1, 2 and 3.
//
// Stateless; thread-safe (each call uses a thread-local simdjson parser).
#pragma once

#include <string>
#include <string_view>

#include "skade/spec/table_metadata.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::spec {

/// Writes the metadata as the spec's JSON. Version 1 also gets the legacy
/// `schema` and `partition-spec` fields that v1 readers require.
void WriteTableMetadata(JsonWriter& writer, const TableMetadata& metadata);
std::string TableMetadataToJson(const TableMetadata& metadata);

/// Parses a metadata file's contents; gzip-compressed contents (as in
/// `*.gz.metadata.json` / `*.metadata.json.gz`) are inflated first. Errors
/// are kInvalidArgument for malformed or invalid metadata and kCorruption
/// for a corrupt gzip stream. The result is Finalize()d.
Result<TableMetadataPtr> TableMetadataFromJson(std::string_view text);

}  // namespace skade::spec
