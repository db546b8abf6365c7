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

/// Writes the metadata as the spec's JSON, field for field as Java's
/// TableMetadataParser does: version 1 also gets the legacy `schema` and
/// `partition-spec` fields and no `last-sequence-number`; no current
/// snapshot is written as -1 before v3 and null from v3 on; `refs` is always
/// written; `next-row-id` only for v3. Never fails.
void WriteTableMetadata(JsonWriter& writer, const TableMetadata& metadata);
std::string TableMetadataToJson(const TableMetadata& metadata);

/// Parses a metadata file's contents; gzip-compressed contents (as in
/// `*.gz.metadata.json` / `*.metadata.json.gz`) are inflated first. Errors
/// are kInvalidArgument for malformed or invalid metadata and kCorruption
/// for a corrupt gzip stream. The result is Finalize()d.
///
/// Reads v1 files without `schemas`, `partition-specs`, `sort-orders`,
/// `table-uuid` or `last-partition-id`. `current-snapshot-id` -1, null or
/// absent means none; a current snapshot without a `main` ref gets one (as
/// Java, PyIceberg and Rust do for files written before refs). Rejects
/// versions outside 1..3, fields missing for the version, duplicate ids,
/// ids that reference nothing (current schema, default spec and sort order,
/// current snapshot, refs), a `main` that is not the current snapshot,
/// snapshot sequence numbers above `last-sequence-number`, and schemas that
/// fail Schema::Validate for the version.
Result<TableMetadataPtr> TableMetadataFromJson(std::string_view text);

}  // namespace skade::spec
