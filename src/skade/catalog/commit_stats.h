// CommitStats: what an EmbeddedCatalog's table commits have done since it
// opened, for monitoring (GET /metrics). Thread-safe: the counters and the
// histogram are updated lock-free by the committing threads and may be read
// at any time (counter.h, histogram.h).
//
// A logical commit is one client's request (CommitTable, or one table of a
// CommitTransaction) answered with success; a physical commit is one new
// metadata file made current by a pointer swap. Per-table batching
// (table_commit_queue.h) merges concurrent logical commits of a table into
// one physical commit; `batch_size` is how many each physical commit of
// CommitTable carried.
#pragma once

#include <vector>

#include "skade/metrics/counter.h"
#include "skade/metrics/histogram.h"

namespace skade::catalog {

struct CommitStats {
  /// The buckets of `batch_size`: 1, 2, 4, … 256 (TableCommitQueue::kMaxBatch).
  static std::vector<double> BatchBounds() {
    return metrics::Histogram::ExponentialBounds(1, 2, 9);
  }

  metrics::Counter logical_commits;
  metrics::Counter physical_commits;
  /// Requests answered kCommitFailed (409 CommitFailedException): a
  /// requirement did not hold, or the table changed too fast.
  metrics::Counter conflicts;
  /// Pointer swaps lost to a concurrent writer (another process) and retried
  /// by the catalog; the client never sees these.
  metrics::Counter swap_retries;
  /// Appends rebased onto a newer snapshot by the server (append_rebase.h)
  /// in commits that succeeded.
  metrics::Counter rebases;
  /// Logical commits per physical commit of CommitTable.
  metrics::Histogram batch_size{BatchBounds()};
};

}  // namespace skade::catalog
