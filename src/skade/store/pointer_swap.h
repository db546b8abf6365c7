// PointerSwap: one table's part of an atomic CatalogStore::SwapPointers().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/store/commit_log_record.h"
#include "skade/store/idempotency_record.h"
#include "skade/store/journaled_file.h"

namespace skade::store {

/// One table's part of an atomic commit: move its pointer from
/// `expected_location` to `new_location`. No `expected_location` means the
/// table is being created and must not exist yet.
///
/// An empty `new_location` makes it compare-only (see CompareOnly()): the
/// pointer must still be at `expected_location`, and nothing is written for
/// it — no pointer change, no commit-log entry, no commit_seq step. That is
/// how a multi-table transaction pins the tables it read but did not change.
///
/// `journaled_files` are kept by the store in the same transaction as the
/// pointer (CatalogStore::ReadJournaledFiles) until released: the metadata
/// file the new pointer names, written without sync. `released_files` drops
/// entries in that transaction (files the commit is about to delete on
/// purpose, which recovery must not bring back); locations not journaled are
/// ignored. A swap that fails keeps none of its files and releases nothing.
///
/// `idempotency_records` are written in the same transaction as the pointer
/// (CatalogStore::FindIdempotencyRecord), so a commit that answers a request
/// with an Idempotency-Key is never durable without the key, nor the key
/// without the commit. If a live record of one of their keys exists, the
/// whole SwapPointers() call fails with kIdempotencyKeyUsed and writes
/// nothing: the request was answered before, and its caller replays that
/// answer. The same record on several swaps of one call (a transaction's
/// tables) is written once.
///
/// `owned_locations`, when set, are claimed for the table besides those it
/// owns (CatalogStore's table locations): the whole SwapPointers() call
/// fails with kForbidden if one overlaps another table's. A created table
/// without them has its locations unrecorded.
///
/// `snapshot_operations` (each added snapshot's operation, parallel to
/// `added_snapshot_ids`) and `origins` (the requests it answers) go into the
/// commit-log entry as they are (CommitLogRecord).
struct PointerSwap {
  spec::TableIdentifier identifier;
  std::optional<std::string> expected_location;
  std::string new_location;
  std::vector<int64_t> added_snapshot_ids;
  std::vector<JournaledFile> journaled_files;
  std::vector<std::string> released_files;
  std::vector<IdempotencyRecord> idempotency_records;
  std::vector<std::string> snapshot_operations;
  std::vector<CommitOrigin> origins;
  std::optional<std::vector<std::string>> owned_locations;

  /// Asserts that `identifier` still points at `location`.
  static PointerSwap CompareOnly(spec::TableIdentifier identifier, std::string location) {
    PointerSwap swap;
    swap.identifier = std::move(identifier);
    swap.expected_location = std::move(location);
    return swap;
  }
  bool compare_only() const { return new_location.empty(); }
};

}  // namespace skade::store
