// PointerSwap: one table's part of an atomic CatalogStore::SwapPointers().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "skade/spec/table_identifier.h"

namespace skade::store {

/// One table's part of an atomic commit: move its pointer from
/// `expected_location` to `new_location`. No `expected_location` means the
/// table is being created and must not exist yet.
///
/// An empty `new_location` makes it compare-only (see CompareOnly()): the
/// pointer must still be at `expected_location`, and nothing is written for
/// it — no pointer change, no commit-log entry, no commit_seq step. That is
/// how a multi-table transaction pins the tables it read but did not change.
struct PointerSwap {
  spec::TableIdentifier identifier;
  std::optional<std::string> expected_location;
  std::string new_location;
  std::vector<int64_t> added_snapshot_ids;

  /// Asserts that `identifier` still points at `location`.
  static PointerSwap CompareOnly(spec::TableIdentifier identifier, std::string location) {
    return {std::move(identifier), std::move(location), {}, {}};
  }
  bool compare_only() const { return new_location.empty(); }
};

}  // namespace skade::store
