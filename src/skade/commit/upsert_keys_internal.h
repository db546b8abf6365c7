// The key of an upsert: which columns, checked against the table, and the
// schema of its equality delete files. (The Arrow side, the last row per
// key, is data/record_batches.h.)
//
// Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/util/result.h"

namespace skade::commit {

/// The field ids of `names` (top-level columns of `schema`, in the order
/// given). kInvalidArgument unless they follow Iceberg's identifier-field
/// rules (required primitive, not float or double), are not repeated, and
/// include every source column of `spec` (an equality delete applies within
/// its partition only). `format_version` must be 2 or more.
Result<std::vector<int32_t>> ResolveKeyFields(const spec::Schema& schema,
                                              const spec::PartitionSpec& spec,
                                              const std::vector<std::string>& names,
                                              int format_version);

/// `schema` reduced to the key fields (same ids and types), the schema of
/// an equality delete file.
std::shared_ptr<const spec::Schema> KeySchema(const spec::Schema& schema,
                                              const std::vector<int32_t>& key_field_ids);

}  // namespace skade::commit
