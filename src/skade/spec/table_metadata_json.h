// The table metadata file format (spec: "Table Metadata Fields" and
// "Appendix C"), format versions 1, 2 and 3.
//
// Thread-safe (each call uses a thread-local simdjson parser).
//
// Writing reuses what did not change: WriteTableMetadata keeps the JSON of
// every snapshot and log entry it wrote in the metadata's SerializedFormMemo
// (table_metadata.h), and a new version built from it (TableMetadataBuilder
// copies the memo with the base) copies those elements' text instead of
// writing them again — a commit to a table with a long history no longer
// re-serializes the history. The output is byte for byte the same either
// way. This relies on what every TableMetadataPtr promises: neither the
// metadata nor the snapshots it shares change once it is published.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/table_metadata.h"
#include "skade/util/copy_delta.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace simdjson::dom {
class element;
}

namespace skade::spec {

/// Writes the metadata as the spec's JSON, field for field as Java's
/// TableMetadataParser does: version 1 also gets the legacy `schema` and
/// `partition-spec` fields and no `last-sequence-number`; no current
/// snapshot is written as -1 before v3 and null from v3 on; `refs` is always
/// written; `next-row-id` only for v3. Never fails.
void WriteTableMetadata(JsonWriter& writer, const TableMetadata& metadata);
std::string TableMetadataToJson(const TableMetadata& metadata);
/// Where a written text copies the text of the version it was built from.
struct CopiedText {
  std::shared_ptr<const std::string> from;  // null: nothing was copied
  std::vector<CopySpan> runs;               // in order, ranges of `from`
};

/// The same text, shared: the metadata's memo refers to this string instead
/// of keeping a copy of it — what a metadata file's writer wants, since the
/// metadata cache keeps that text anyway. With `copied`, also where the
/// text copies the previous version's (for the store's journal, which keeps
/// a metadata file as its difference from that one: util/copy_delta.h).
std::shared_ptr<const std::string> TableMetadataToSharedJson(const TableMetadata& metadata,
                                                             CopiedText* copied = nullptr);

/// `metadata` with only the snapshots that a branch or tag references (REST
/// `loadTable?snapshots=refs`); every other field, snapshot-log included, as
/// it is.
TableMetadata WithReferencedSnapshotsOnly(const TableMetadata& metadata);

/// TableMetadataToJson(WithReferencedSnapshotsOnly(metadata)), computed on
/// the first call and kept with `metadata`, so it is built once per
/// metadata file however often it is asked for. `metadata` must be
/// published (it never changes afterwards). Thread-safe: concurrent first
/// calls may each compute it, and all return the one that was kept.
std::shared_ptr<const std::string> ReferencedSnapshotsJson(const TableMetadata& metadata);

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

/// The same checks on metadata already parsed as part of a larger document
/// (the `metadata` of a REST LoadTableResult, a json::Element), without
/// printing it again.
Result<TableMetadataPtr> TableMetadataFromElement(simdjson::dom::element element);

}  // namespace skade::spec
