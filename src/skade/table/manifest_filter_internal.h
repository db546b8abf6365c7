// ManifestFilter: removes the live files a PartitionFilter matches from a
// snapshot's manifests, for OverwriteFiles and DeleteFiles (Iceberg Java's
// ManifestFilterManager, by whole file).
//
// A manifest holding a matched file is rewritten: matched files become
// DELETED entries of the new snapshot, other live files EXISTING, and old
// DELETED entries are dropped; manifests without a match are kept as they
// are. Manifests are immutable, so the outcome per manifest is cached by
// location (and the list entry's inherited values, ManifestReadKey) and a
// rebase only reads manifests it has not seen. Manifests
// are read kParallelManifestReads at a time (table_manifest_internal.h) and
// rewritten in order. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/spec/manifest_file.h"
#include "skade/spec/table_metadata.h"
#include "skade/table/new_manifests_internal.h"
#include "skade/table/partition_filter.h"
#include "skade/table/snapshot_summary.h"
#include "skade/table/table_manifest_internal.h"

namespace skade::table {

class ManifestFilter {
 public:
  explicit ManifestFilter(PartitionFilter filter) : filter_(std::move(filter)) {}

  /// `current` with the matched files removed, in the same order; removed
  /// files are recorded in `summary`. Rewritten manifests are written by
  /// `snapshot_id` through `store`.
  Result<std::vector<spec::ManifestFile>> Filter(const spec::TableMetadata& base, io::FileIO& io,
                                                 int64_t snapshot_id,
                                                 const std::vector<spec::ManifestFile>& current,
                                                 const StoreManifest& store,
                                                 SnapshotSummaryBuilder* summary);

 private:
  struct Filtered {
    std::optional<spec::ManifestFile> rewritten;  // unset: keep the manifest
    std::vector<spec::DataFile> removed;
  };

  Result<Filtered> FilterManifest(const spec::TableMetadata& base, int64_t snapshot_id,
                                  const spec::ManifestFile& manifest, const TableManifest& read,
                                  const StoreManifest& store);

  PartitionFilter filter_;
  std::map<std::string, Filtered> cache_;  // by ManifestReadKey
};

}  // namespace skade::table
