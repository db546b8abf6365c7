// Server-side rebase of append commits: the answer to retry storms when many
// clients append to one table.
//
// A client builds its snapshot on the version it loaded and asserts that the
// branch still points where it saw it (`assert-ref-snapshot-id`). When other
// commits moved the branch since, the catalog would answer 409 and the
// client would reload, rewrite its manifest list and retry. For a pure
// append nothing the client wrote depends on those commits except the
// manifest list and the snapshot's lineage, so the catalog writes them
// itself: a new manifest list with the client's new manifests first, then
// the current snapshot's, and the client's snapshot (same id) with the
// current snapshot as parent, the next sequence number, v3 row ids from the
// table's next-row-id, the running totals recomputed, and the parent it
// was written for in the summary (kRebasedFromSummaryKey).
//
// A request is rebased only when all of this holds (otherwise the original
// requirement failure stands, with the reason added to its message):
//   - the table is format v2 or v3, and `skade.commit.rebase-appends` is not
//     false;
//   - its requirements are one assert-ref-snapshot-id (on a branch) and any
//     of assert-table-uuid, assert-current-schema-id, assert-default-spec-id,
//     assert-default-sort-order-id, assert-last-assigned-field-id,
//     assert-last-assigned-partition-id, and all of those still hold;
//   - its updates are one add-snapshot with operation `append` whose parent
//     is the asserted snapshot, one set-snapshot-ref moving that branch to
//     it, and optionally set-properties / remove-properties (applied after);
//   - the asserted snapshot is an ancestor of the branch's current snapshot
//     (the branch moved forward; it was not reset or rolled back);
//   - the snapshot was written for the table as it is: its schema-id is the
//     current schema, and each new manifest has the default partition spec;
//     on v3 it carries first-row-id/added-rows, on v2 not;
//   - its manifest list (inside the table's files, TableFileScope) holds
//     every manifest of the asserted snapshot unchanged, and the rest are
//     data manifests this snapshot added with only ADDED entries whose
//     sequence numbers (and v3 row ids) are left to inheritance — so they
//     take the rebased snapshot's;
//   - each file it reads is at most 64 MiB, and one over 8 MiB finds one of
//     the two slots for such rebases free (memory: each is parsed whole).
// Reads go through `io` (or `pending`); the committed snapshots' manifest
// lists through `lists`, where each rebase leaves the list it made (the next
// rebase's head). Nothing is written here — the caller writes the returned
// manifest list with the commit. Thread-safe (stateless).
#pragma once

#include <string>
#include <vector>

#include "skade/cache/manifest_cache.h"
#include "skade/catalog/catalog.h"
#include "skade/catalog/skade_table_properties.h"
#include "skade/catalog/table_file_scope.h"
#include "skade/io/file_io.h"
#include "skade/spec/table_metadata.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// Summary property of a rebased snapshot: the parent the client built on
/// ("none" for an empty table).
inline constexpr char kRebasedFromSummaryKey[] = "skade.rebased-from";

struct RebasedAppend {
  /// Replace the request's updates.
  std::vector<spec::TableUpdate> updates;
  /// The new manifest list, to write before the commit.
  UnsyncedFile manifest_list;
  /// The client's manifest list, which nothing references once the rebased
  /// snapshot commits.
  std::string replaced_manifest_list;
};

/// `request` failed `ref_failure` (its assert-ref-snapshot-id) against
/// `current`. Returns the rebased updates, or `ref_failure` with the reason
/// it cannot be rebased appended to its message. A client file that cannot
/// be read or parsed is such a reason too (the client gets 409, never 5xx).
/// `pending`: manifest lists of earlier rebases in the same batch, not yet
/// written, that `current` may name.
Result<RebasedAppend> RebaseAppend(const CommitTableRequest& request,
                                   const spec::TableMetadata& current, const Error& ref_failure,
                                   io::FileIO& io, const TableFileScope& scope,
                                   const std::vector<UnsyncedFile>& pending,
                                   cache::ManifestCache& lists);

}  // namespace skade::catalog
