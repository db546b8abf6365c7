// ManifestMerger: keeps a table's manifest list short when every commit adds
// a manifest — a stream of small appends through the coalescing committer
// otherwise lists one manifest per flush, and every reader and every later
// commit pays for all of them (Iceberg Java's ManifestMergeManager, the
// behaviour of its MergeAppend and RowDelta; skade's own code).
//
// The parent's manifests are grouped by content (data, deletes) and
// partition spec. Within a group, in list order (newest first), they are
// packed from the oldest into bins of at most `commit.manifest.target-size-
// bytes` (manifest_length; a manifest larger than that is a bin alone), so
// the bin that is not full is the newest. A bin of one manifest is kept; the
// newest bin is merged once it holds `commit.manifest.min-count-to-merge`
// manifests; every other bin of two or more is merged. Merging writes one
// manifest for the new snapshot that lists the bin's live files as EXISTING
// with their snapshot ids, data and file sequence numbers and (v3) row ids
// as committed, and drops DELETED entries; it takes the position of the bin's
// newest manifest in the list. Only committed manifests are merged — the
// snapshot's own new manifests join a merge in a later commit — so nothing
// it adds is read back before it is written.
//
// A merge is remembered by its bin (each member's ManifestReadKey), so a
// rebase that meets the same bin reuses the manifest it wrote — but not one
// whose members' sequence numbers changed (an earlier update of the same
// transaction, retried). Not thread-safe.
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
#include "skade/util/result.h"

namespace skade::table {

/// The table properties that steer merging (Iceberg's names and defaults).
struct ManifestMergePolicy {
  bool enabled = true;
  int64_t min_count_to_merge = 100;
  int64_t target_size_bytes = 8ll << 20;

  static ManifestMergePolicy Of(const spec::TableMetadata& metadata);
};

class ManifestMerger {
 public:
  /// `current` (the parent's manifests, as its list holds them) with its
  /// full bins merged by `snapshot_id` as `policy` says, or nullopt when
  /// nothing is to merge; merged manifests are stored through `store` (a bin
  /// without live files merges into none). Errors: the FileIO's (reading a manifest),
  /// kCorruption for a manifest that cannot be read or names an unknown
  /// partition spec.
  Result<std::optional<std::vector<spec::ManifestFile>>> Merge(
      const spec::TableMetadata& base, io::FileIO& io, int64_t snapshot_id,
      const std::vector<spec::ManifestFile>& current, const ManifestMergePolicy& policy,
      const StoreManifest& store);

 private:
  Result<std::optional<spec::ManifestFile>> MergeBin(
      const spec::TableMetadata& base, io::FileIO& io, int64_t snapshot_id,
      const std::vector<const spec::ManifestFile*>& bin, const StoreManifest& store);

  std::map<std::string, std::optional<spec::ManifestFile>> merged_;  // by the bin's read keys
};

}  // namespace skade::table
