// CommitListener: observes a CatalogStore's committed writes, so that an
// in-memory copy of the table pointers (catalog::TablePointerMirror) can be
// kept exact write-through, before each commit returns to its caller.
#pragma once

#include <cstdint>
#include <vector>

#include "skade/store/table_change.h"

namespace skade::store {

/// Told about every write of the store instance it is registered with (also
/// those that change no table), on the writing thread, while that write
/// still excludes every other writer of the store in any process: calls
/// arrive one at a time in commit order, and between OnCommitting() and its
/// OnCommitted()/OnCommitFailed() no other write commits anywhere.
/// Implementations must not call back into the store's write methods, and
/// should be quick: every writer waits for them.
class CommitListener {
 public:
  virtual ~CommitListener() = default;
  /// A write is about to commit as change version `version`; the store is
  /// at `previous` (its last committed version) until it does.
  virtual void OnCommitting(uint64_t previous, uint64_t version) = 0;
  /// It committed; `changes` are the table pointers it changed, in order.
  virtual void OnCommitted(uint64_t previous, uint64_t version,
                           const std::vector<TableChange>& changes) = 0;
  /// Its commit failed; it may or may not have reached the store
  /// (kCommitStateUnknown), so the listener must not assume either.
  virtual void OnCommitFailed(uint64_t version) = 0;
};

}  // namespace skade::store
