// The REST spec's JSON for server-side scan planning results: a ScanTasks
// object's `delete-files` and `file-scan-tasks` (FileScanTask, DataFile,
// PositionDeleteFile, EqualityDeleteFile in rest-catalog-open-api.yaml).
//
// Values follow the spec's single-value JSON (spec/literal_json.h):
// partition tuples as arrays of values in the spec's field order, bounds as
// ValueMaps ({"keys": [field ids], "values": [values]}) decoded from their
// binary form with the column's type in the plan's schema, counts as
// CountMaps. Column metrics are sent only for the columns a request's
// `stats-fields` named, as Iceberg Java's server does (a client that needs
// none is not sent the bulk). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <span>

#include "skade/scan/scan_plan.h"
#include "skade/spec/data_file.h"
#include "skade/spec/schema.h"
#include "skade/util/json_writer.h"

namespace skade::rest {

/// The columns whose metrics a response carries (by field id); empty: none.
using StatsFields = std::set<int32_t>;

/// Writes `file` as a ContentFile object (DataFile or a delete file, by its
/// content). Bounds of a column `schema` does not have, or that do not
/// decode, are left out: a client only loses a pruning hint.
void WriteContentFile(const spec::DataFile& file, const spec::Schema& schema,
                      const StatsFields& stats_fields, JsonWriter& writer);

/// Writes the `delete-files` and `file-scan-tasks` fields (into an open
/// object) for `tasks` of `plan`: each delete file once, referenced by its
/// index from every task it applies to; each task's residual filter in the
/// expression JSON, columns named through the plan's schema. Delete files
/// carry no column metrics.
void WriteScanTasks(const scan::ScanPlan& plan, std::span<const scan::FileScanTask> tasks,
                    const StatsFields& stats_fields, JsonWriter& writer);

/// kInvalidArgument (narrow the scan or the filter) if the residual filters
/// WriteScanTasks would write for `plan`'s tasks come to more than
/// `max_bytes`: each task carries its own copy, so without this a client's
/// large filter over many files makes an answer thousands of times its
/// request. Each distinct residual is serialized once to be measured; the
/// count stops at the first byte past the bound.
Status CheckResidualBytes(const scan::ScanPlan& plan, size_t max_bytes);

}  // namespace skade::rest
