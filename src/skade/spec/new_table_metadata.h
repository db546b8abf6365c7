// Table creation: the metadata of a new table, from a client's schema, spec
// and sort order (Iceberg Java's TableMetadata.newTableMetadata).
//
// Pure function over values; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "skade/spec/partition_spec.h"
#include "skade/spec/schema.h"
#include "skade/spec/sort_order.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::spec {

/// Metadata for a new table as Iceberg's `newTableMetadata` builds it: fresh
/// field ids for the schema (1…n, each struct's fields before their
/// children), identifier fields remapped, spec fields re-bound to them with
/// ids from 1000, the sort order re-bound (id 1, or 0 if unsorted), reserved
/// properties removed, `write.parquet.compression-codec=zstd` unless set, and
/// `format-version` taken from `format_version`, else from `properties`
/// (default 2). Errors are kInvalidArgument.
Result<TableMetadataPtr> NewTableMetadata(const Schema& schema, const PartitionSpec& spec,
                                          const SortOrder& order, const std::string& location,
                                          const std::map<std::string, std::string>& properties,
                                          std::optional<int> format_version = std::nullopt);

}  // namespace skade::spec
