// Reading one manifest of a table as the table's own code needs it: with the
// partition spec it names, partition values typed by that spec over the
// table's current schema, and the spec's inheritance applied. Shared by
// ManifestFilter, ManifestMerger and the conflict validator. Stateless;
// thread-safe when the FileIO is.
#pragma once

#include <string>
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

/// Manifests a commit reads at once (merging, filtering): against an object
/// store each read waits milliseconds, one after another they add up to
/// seconds for a table of hundreds of manifests.
inline constexpr int kParallelManifestReads = 8;

/// ReadTableManifest of each of `manifests`, results in input order: up to
/// kParallelManifestReads at once on a pool of their own, whose threads
/// keep their object-store connections between calls. An exception while
/// reading one is that one's kInternal error.
std::vector<Result<TableManifest>> ReadTableManifestsEach(
    const spec::TableMetadata& metadata, io::FileIO& io,
    const std::vector<const spec::ManifestFile*>& manifests);

/// ReadTableManifestsEach, or the first error in input order as
/// `describe(manifest, error)` returns it (an unexpected Error).
template <typename Describe>
Result<std::vector<TableManifest>> ReadTableManifests(
    const spec::TableMetadata& metadata, io::FileIO& io,
    const std::vector<const spec::ManifestFile*>& manifests, Describe describe) {
  std::vector<Result<TableManifest>> each = ReadTableManifestsEach(metadata, io, manifests);
  std::vector<TableManifest> read;
  read.reserve(each.size());
  for (size_t i = 0; i < each.size(); ++i) {
    if (!each[i]) return describe(*manifests[i], each[i].error());
    read.push_back(std::move(*each[i]));
  }
  return read;
}

/// What a read manifest's entries take from its manifest-list entry besides
/// its path (sequence numbers, snapshot id and first row id, which
/// inheritance fills in): a key for what was made from them. Within one
/// transaction an earlier update's own manifest keeps its path across
/// retries while these change.
std::string ManifestReadKey(const spec::ManifestFile& manifest);

}  // namespace skade::table
