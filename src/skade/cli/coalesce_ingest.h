// `skade ingest --coalesce`: many small input files into one table through
// a commit::CoalescingCommitter, so they become few physical commits.
//
// Each file is read in groups of at most `rows_per_group` rows
// (ingest/input_files.h), conformed to the table, and each group is one
// write submitted by a CommitSubmitter: appends from several threads,
// which the committer merges; upserts in file order (see
// commit_submitter.h).
//
// Unlike a plain `skade ingest`, the ingest is not one snapshot: each write
// commits on its own, so a failure leaves the writes before it committed.
// The first error stops reading; the error names the files that were not
// (or not wholly) committed. So does a stop (`stop`, from SIGINT/SIGTERM):
// no write starts after it, the writes being committed land or fail whole
// (the committer deletes a failed write's files), and the result is a
// kCancelled error.
//
// Not thread-safe: one call at a time.
#pragma once

#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "skade/cli/commit_submitter.h"
#include "skade/commit/coalescing_committer.h"
#include "skade/spec/schema.h"
#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace skade::cli {

struct CoalesceIngestOptions {
  std::string format;  // as ingest::InputFormatOf; empty: by each file's suffix
  int64_t rows_per_group = 1 << 20;
  CommitSubmitterOptions submit;
  std::stop_token stop;
};

/// Ingests `files` into `table` (of schema `schema`) and prints the summary.
Status CoalesceIngest(const std::vector<std::string>& files, commit::CoalescingCommitter& committer,
                      const spec::TableIdentifier& table, const spec::Schema& schema,
                      const CoalesceIngestOptions& options);

}  // namespace skade::cli
