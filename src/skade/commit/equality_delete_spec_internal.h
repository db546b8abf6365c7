// Which partition spec an upsert's equality delete files are written under.
//
// An equality delete applies to the data files of its own spec and
// partition only, unless its spec is unpartitioned: then to every data file
// (spec: "Scan Planning"). Deletes partitioned by the default spec reach
// every older row only while all live data lies under that spec; after a
// partition spec evolution, rows written under an earlier spec need a
// global delete, under an unpartitioned spec of the table (Flink's upsert
// writer scopes its deletes to the current spec and leaves those rows
// behind). Where partitioned deletes do reach everything they are kept: a
// reader matches them to fewer data files.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <set>

#include "skade/io/file_io.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/table_metadata.h"
#include "skade/table/table.h"
#include "skade/table/written_manifest_list.h"
#include "skade/util/result.h"

namespace skade::commit {

/// The spec for the equality deletes of an upsert into the current snapshot
/// of `metadata`, committed after data files under `more_data_spec_ids`
/// that the snapshot does not hold: the default spec when it is
/// unpartitioned or every live data file is under it, else a spec of the
/// table without fields; null when that needs one and the table has none
/// (AddUnpartitionedSpec). Reads main's manifest list — `list` when it is
/// that list, else through `io` — only when the table has specs besides a
/// partitioned default. Errors: FileIO errors, kCorruption.
Result<spec::PartitionSpecPtr> EqualityDeleteSpec(const spec::TableMetadata& metadata,
                                                  io::FileIO& io,
                                                  const table::WrittenManifestList* list,
                                                  const std::set<int32_t>& more_data_spec_ids);

/// Adds a spec without fields to `table`'s specs, the default spec left as
/// it is, in a metadata commit of its own (a snapshot commit carries no
/// spec); an existing one would be reused. Returns the table as committed.
/// Errors as Catalog::CommitTable.
Result<table::Table> AddUnpartitionedSpec(const table::Table& table);

}  // namespace skade::commit
