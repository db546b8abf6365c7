// The ingest family: Arrow record batches in, Parquet data files +
// manifests + snapshots out.
//
//   Append                  one thread writes and encodes as it goes; one
//                           snapshot.
//   IngestParallel          encode on all cores, write, one snapshot.
//   IngestPipelined         encode → write (≤ channel_depth in flight,
//                           submission order) → then commit one snapshot
//                           per files_per_commit files.
//   IngestPipelinedOverlap  as IngestPipelined, but the committer runs
//                           beside the writer, fed through a bounded queue
//                           (capacity channel_depth = backpressure), so
//                           commit latency hides behind write I/O.
//   IngestMulti             many tables, one snapshot each, committed in
//                           one atomic catalog transaction.
//
// Input: groups of record batches in memory, or a GroupSource that reads
// each group on the encode worker that takes it (input files:
// input_files.h), so a file's decode runs on every core and only the groups
// in flight are in memory.
//
// Encode: each group becomes one data file per partition it touches, on a
// pool of one worker per core, byte-identical whichever path encodes it.
// Every path names files by one rule (data/data_file_namer.h):
// `<file_prefix>-<seq:08>.parquet` under `<data dir>/<partition path>/`,
// seq counting files in the order they are started, groups in submission
// order.
// IngestParallel and the pipelines encode lazily, beside the writes: a
// group is encoded only while fewer than channel_depth + workers groups
// are encoded and not yet written, so memory holds about that many groups'
// files whatever the input's length (IngestStats::peak_encoded_files).
// IngestMulti encodes everything first.
//
// Replacing (IngestOptions::overwrite, replace_partitions): an overwrite by
// filter is one snapshot at the end; replace_partitions replaces each
// partition in the snapshot that adds its first new files (see
// ingest_options.h). Concurrent commits into a replaced partition fail the
// ingest (kCommitFailed) under the default serializable isolation.
//
// Identical results: IngestPipelined and IngestPipelinedOverlap write the
// same bytes under the same names in the same order, group the files into
// the same snapshots (same count, same parents), so a reader sees the same
// rows in the same order, and report the same IngestStats rows, files,
// bytes and snapshots. Only the timing differs, and how many catalog
// commits carry the snapshots: IngestPipelined makes one per snapshot;
// IngestPipelinedOverlap commits, in one catalog commit, every full group
// written while its previous commit was under way (a snapshot each, chained
// in order), so a slow commit does not hold back the groups behind it.
// (Such a commit adds several snapshots: a REST server that rebases a
// refused append — skade's does — refuses to rebase it, and the commit loop
// retries it from the client instead.)
//
// Failure contract:
//   - A snapshot is committed whole or not at all; no reader ever sees part
//     of one, and no committed snapshot references a file that is missing.
//   - IngestPipelined writes everything before its first commit: a write
//     or encode failure commits nothing; a commit failure leaves the
//     snapshots committed before it.
//   - IngestPipelinedOverlap commits while it writes, so a write or encode
//     failure can land after earlier snapshots are durable: that committed
//     prefix (whole snapshots, in submission order) stays; no later file is
//     committed. Like IngestPipelined, it is not atomic across commits; the
//     snapshots one catalog commit chains land together or not at all.
//   - A stop request (IngestOptions::stop) ends the ingest with kCancelled
//     at the next step: a commit under way completes or rolls back as a
//     whole, nothing after it starts.
//   - Append, IngestParallel and IngestMulti commit once: all or nothing.
//     IngestMulti commits every table in one catalog transaction.
//   - After a failure, the data files the ingest wrote but did not commit
//     are deleted (best effort), unless the last commit's outcome is
//     unknown (kCommitStateUnknown), when nothing is deleted.
//   The error says how many snapshots were committed before it.
//
// Empty input commits nothing. Batches must conform to the table's current
// schema (data/conform_batch.h); files use its default partition spec.
// Thread-safe: concurrent ingests share the encode pool; ingests into one
// table from several threads or processes rebase on each other.
#pragma once

#include <memory>
#include <vector>

#include "skade/ingest/ingest_options.h"
#include "skade/ingest/record_batch_group.h"
#include "skade/table/table.h"
#include "skade/util/result.h"

namespace skade::ingest {

struct IngestResult {
  table::Table table;  // as committed (unchanged when nothing was)
  IngestStats stats;
};

/// Writes `batches` on the calling thread, rolling files at
/// write.target-file-size-bytes per partition, and commits them in one
/// snapshot. Its encode time is part of write_us.
Result<IngestResult> Append(const table::Table& table, const RecordBatchGroup& batches,
                            const IngestOptions& options = {});

/// Encodes on all cores, writes, and commits everything in one snapshot
/// (files_per_commit is ignored).
Result<IngestResult> IngestParallel(const table::Table& table,
                                    const std::vector<RecordBatchGroup>& groups,
                                    const IngestOptions& options = {});
Result<IngestResult> IngestParallel(const table::Table& table, const GroupSource& groups,
                                    const IngestOptions& options = {});

Result<IngestResult> IngestPipelined(const table::Table& table,
                                     const std::vector<RecordBatchGroup>& groups,
                                     const IngestOptions& options = {});
Result<IngestResult> IngestPipelined(const table::Table& table, const GroupSource& groups,
                                     const IngestOptions& options = {});

Result<IngestResult> IngestPipelinedOverlap(const table::Table& table,
                                            const std::vector<RecordBatchGroup>& groups,
                                            const IngestOptions& options = {});
Result<IngestResult> IngestPipelinedOverlap(const table::Table& table, const GroupSource& groups,
                                            const IngestOptions& options = {});

struct TableIngest {
  table::Table table;
  std::vector<RecordBatchGroup> groups;
};

struct IngestMultiResult {
  std::vector<table::Table> tables;  // in input order, reloaded after the commit
  IngestStats stats;                 // summed over tables; commits is 0 or 1
};

/// Encodes and writes every table's groups, then commits one snapshot per
/// table that got files in one atomic catalog transaction. The tables must
/// be distinct and share one catalog. files_per_commit is ignored.
Result<IngestMultiResult> IngestMulti(const std::vector<TableIngest>& tables,
                                      const IngestOptions& options = {});

}  // namespace skade::ingest
