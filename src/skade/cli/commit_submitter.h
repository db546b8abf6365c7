// CommitSubmitter: hands the batches `skade ingest --stream|--coalesce`
// reads to a commit::CoalescingCommitter from a small pool of threads, so
// reading overlaps the commits and concurrent batches share physical
// commits.
//
// Appends go out from `writers` threads, one batch per call, in no set
// order. Upserts keep input order, which decides which row of a key wins:
// one thread submits, and the batches that queued while its last upsert
// committed go out together as one Upsert (later rows win within it).
//
// Every batch's outcome is reported exactly once through `on_done`, from a
// submitter thread, one call at a time: its receipt, its error, or
// kCancelled for a batch that was never submitted because an earlier one
// failed or Stop() was called. After the first failure, or Stop(), Submit()
// refuses new batches, so the caller stops reading.
//
// Submit() and Finish() are called from one thread (the reader), Stop()
// from any; the committer must outlive the submitter.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "skade/commit/coalescing_committer.h"

namespace skade::cli {

/// One batch of input rows and where they came from, for the reports.
struct Submission {
  std::shared_ptr<arrow::RecordBatch> rows;  // conformed to the table
  int64_t first_line = 0;                    // --stream: input lines, 1-based
  int64_t last_line = 0;
  std::string source;  // --coalesce: the input file
};

struct CommitSubmitterOptions {
  int writers = 8;                        // threads calling Append
  size_t queue_depth = 16;                // batches read ahead of the commits
  std::vector<std::string> upsert_keys;   // non-empty: upsert by these columns
  int64_t max_upsert_bytes = 64ll << 20;  // most bytes merged into one Upsert
};

class CommitSubmitter {
 public:
  using DoneCallback = std::function<void(const Submission&, const Result<commit::CommitReceipt>&)>;

  CommitSubmitter(commit::CoalescingCommitter& committer, spec::TableIdentifier table,
                  CommitSubmitterOptions options, DoneCallback on_done);
  /// Finishes if Finish() was not called.
  ~CommitSubmitter();
  CommitSubmitter(const CommitSubmitter&) = delete;
  CommitSubmitter& operator=(const CommitSubmitter&) = delete;

  /// Queues `submission`, blocking while the queue is full. False (and the
  /// submission reported as kCancelled) once a batch has failed.
  bool Submit(Submission submission);

  /// Waits until every queued batch has been reported; stops the threads.
  void Finish();

  /// Cancels the batches still queued (and any Submit() waiting for room):
  /// only those being committed go on, and land or fail whole. Thread-safe.
  void Stop();

  /// Whether a batch has failed.
  bool failed() const;

 private:
  void Run();
  void Report(const Submission& submission, const Result<commit::CommitReceipt>& result);
  // Why a batch is not submitted; mutex_ held.
  Error NotSubmitted() const;

  commit::CoalescingCommitter& committer_;
  const spec::TableIdentifier table_;
  const CommitSubmitterOptions options_;
  const DoneCallback on_done_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // queue_, closed_, failed_ or stopped_ changed
  std::deque<Submission> queue_;     // guarded by mutex_
  bool closed_ = false;              // guarded by mutex_
  bool failed_ = false;              // guarded by mutex_
  bool stopped_ = false;             // guarded by mutex_
  std::mutex report_mutex_;          // serializes on_done_
  std::vector<std::thread> threads_;
};

}  // namespace skade::cli
