// Reading one manifest of a table as the table's own code needs it: with the
// partition spec it names, partition values typed by that spec over the
// table's current schema, and the spec's inheritance applied. Shared by
// ManifestFilter, ManifestMerger and the conflict validator. Stateless;
// thread-safe when the FileIO is.
#pragma once

#include <vector>

#include "skade/io/file_io.h"
#include "skade/spec/manifest_entry.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/partition_spec.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/parallel_for.h"
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

/// Manifests a commit reads at once (merging, filtering): against an object
/// store each read waits milliseconds, one after another they add up to
/// seconds for a table of hundreds of manifests.
inline constexpr int kParallelManifestReads = 8;

/// ReadTableManifest of every one of `manifests`, up to
/// kParallelManifestReads at once; results in input order. The first error
/// met, as `describe(manifest, error)` returns it (an unexpected Error).
template <typename Describe>
Result<std::vector<TableManifest>> ReadTableManifests(
    const spec::TableMetadata& metadata, io::FileIO& io,
    const std::vector<const spec::ManifestFile*>& manifests, Describe describe) {
  std::vector<TableManifest> read(manifests.size());
  SKADE_RETURN_NOT_OK(
      ParallelFor(manifests.size(), kParallelManifestReads, [&](size_t i) -> Status {
        auto one = ReadTableManifest(metadata, io, *manifests[i]);
        if (!one) return describe(*manifests[i], one.error());
        read[i] = std::move(*one);
        return OkStatus();
      }));
  return read;
}

}  // namespace skade::table
