// The running totals of a snapshot summary ("total-records",
// "total-files-size", "total-data-files", "total-delete-files",
// "total-position-deletes", "total-equality-deletes"), as Iceberg Java's
// SnapshotProducer.updateTotal() keeps them: total = parent total + added −
// removed, starting from 0 when there is no parent, and left out when the
// parent's summary lacks it (or a total would be negative).
#pragma once

#include <map>
#include <string>

#include "skade/spec/snapshot.h"

namespace skade::spec {

/// Sets the totals of `summary` (whose added-*/removed-* counts are final)
/// from `parent`'s summary (null for the first snapshot). Totals `summary`
/// already has are replaced or, when the parent lacks them, removed.
void CarryTotals(const Snapshot* parent, std::map<std::string, std::string>* summary);

}  // namespace skade::spec
