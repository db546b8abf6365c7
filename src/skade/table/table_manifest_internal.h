// Reading one manifest of a table as the table's own code needs it: with the
// partition spec it names, partition values typed by that spec over the
// table's current schema, and the spec's inheritance applied. Shared by
// ManifestFilter, ManifestMerger and the conflict validator. Stateless.
#pragma once

#include <vector>

#include "skade/io/file_io.h"
#include "skade/spec/manifest_entry.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::table {

struct TableManifest {
  spec::PartitionSpecPtr spec;
  std::vector<spec::ManifestEntry> entries;
};

/// kCorruption for a manifest naming a spec `metadata` lacks; FileIO and
/// reader errors as they come.
Result<TableManifest> ReadTableManifest(const spec::TableMetadata& metadata, io::FileIO& io,
                                        const spec::ManifestFile& manifest);

}  // namespace skade::table
