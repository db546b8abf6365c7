// Human-readable partition values and Hive-style partition paths, as
// Iceberg Java writes them ("ts_day=2017-11-16/id_bucket=3"), for naming
// data files under a table's data directory.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "skade/spec/literal.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/transform.h"
#include "skade/util/result.h"

namespace skade::data {

/// The human string of a partition value produced by `transform` from a
/// column of type `source` ("null" for null): dates "2017-11-16", year
/// "2017", month "2017-11", hour "2017-11-16-22", timestamps in ISO-8601
/// (with "Z" when zoned), binary and fixed in base64, uuids in their
/// canonical form, decimals in plain notation, other values in decimal.
std::string PartitionValueToHumanString(const spec::Transform& transform, const spec::Type& source,
                                        const spec::Literal& value);

/// "name=value/…" for `partition` (one value per field of `spec`), names and
/// human values URL-encoded as Java's URLEncoder does. kInvalidArgument
/// when the tuple does not match the spec or a source column is missing.
Result<std::string> PartitionPath(const spec::PartitionSpec& spec, const spec::Schema& schema,
                                  const std::vector<spec::Literal>& partition);

}  // namespace skade::data
