// MergeAppend: a FastAppend that also merges the parent's manifests as the
// table's commit.manifest.* properties say (manifest_merge_internal.h), as
// Iceberg Java's MergeAppend (`Table.newAppend()`). For writers that append
// often — the coalescing committer, `skade ingest` — so that the manifest
// list stays short; FastAppend never merges, as Java's.
//
// Not thread-safe. See snapshot_update.h for commit, retries and clean-up.
#pragma once

#include "skade/table/fast_append.h"

namespace skade::table {

class MergeAppend : public FastAppend {
 public:
  explicit MergeAppend(Table table) : FastAppend(std::move(table)) {}

 protected:
  bool MergesManifests() const override { return true; }
};

}  // namespace skade::table
