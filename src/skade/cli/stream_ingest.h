// `skade ingest --stream`: JSON lines or CSV from a file descriptor
// (stdin), committed as they come through a commit::CoalescingCommitter.
//
// Lines are gathered into batches of at most `batch_rows` rows, and a
// batch is sent at the latest `batch_ms` after its first line arrived, so
// a slow producer still sees its rows committed soon. Each batch is parsed
// (ingest/input_files.h) and conformed to the table on the reading thread,
// then handed to a CommitSubmitter, which commits while reading goes on.
// One record per line: a CSV quoted field left open at the end of its
// line, a JSON object across lines or two on one, and a line longer than
// 16 MiB are bad lines; blank lines are skipped; CSV input starts with a
// header line. A batch also goes once its lines take 64 MiB.
//
// Contract:
//   - Nothing is acknowledged (--ack line, the summary's row count) before
//     the committer says it is durable.
//   - A bad line (the reader rejects it, or it does not fit the table)
//     stops the stream: the lines before it are committed, no line from it
//     on is, and the error names its line number. With `skip_bad` the line
//     is reported on stderr and left out instead. A CSV header that names a
//     column twice, or one the table lacks, is an error at its own line.
//   - SIGINT or SIGTERM stops reading; what was read is committed, and the
//     summary says so (exit 0). A second signal exits at once (130), saying
//     which lines were not acknowledged (read into a batch, being parsed,
//     being committed) — also while reading waits for room behind slow
//     commits.
//   - With `ack`, stdout closing (EPIPE; SIGPIPE is ignored) stops reading
//     as a signal does; what was read is committed, and the error names the
//     lines committed without an acknowledgement.
//   - A failed commit stops the stream; the summary names the line ranges
//     that were not committed.
//
// Not thread-safe: one call at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "skade/cli/commit_submitter.h"
#include "skade/commit/coalescing_committer.h"
#include "skade/ingest/input_files.h"
#include "skade/spec/schema.h"
#include "skade/spec/table_identifier.h"
#include "skade/util/result.h"

namespace arrow {
class Schema;
}  // namespace arrow

namespace skade::cli {

/// Blocks SIGINT and SIGTERM in the calling thread — and so in every thread
/// it starts afterwards, which inherit the mask — and delivers them through
/// fd() (a signalfd) instead: no system call of the catalog, the store or
/// Arrow is interrupted. StreamIngest watches it on a thread of its own for
/// the whole run, so a signal is seen even while the reader waits for a
/// commit.
/// Make it before any thread starts; the destructor restores the mask.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// Readable once a signal is pending; -1 if signalfd failed (then signals
  /// keep their default action).
  int fd() const { return fd_; }
  /// The pending signal's number, taken from fd(); 0 if none could be read.
  int Read() const;
  /// "SIGINT" or "SIGTERM".
  static const char* Name(int signal);
  /// Calls `on_signal` with each signal that arrives, on the calling thread,
  /// until `done_fd` is readable.
  void Watch(int done_fd, const std::function<void(int signal)>& on_signal) const;

 private:
  int fd_ = -1;
  bool blocked_ = false;
};

struct StreamIngestOptions {
  ingest::InputFormat format = ingest::InputFormat::kJson;
  int64_t batch_rows = 10000;
  int64_t batch_ms = 100;
  bool skip_bad = false;
  /// Print one JSON line per committed batch on stdout (the summary then
  /// goes to stderr).
  bool ack = false;
  CommitSubmitterOptions submit;
};

/// The table the stream goes into: its schema, or (schema null) how to
/// create it from the first batch's inferred Arrow schema.
struct StreamTarget {
  spec::TableIdentifier table;
  spec::SchemaPtr schema;
  std::function<Result<spec::SchemaPtr>(const arrow::Schema&)> create;
};

/// Reads `input_fd` to its end (or a signal on `signals`), committing as
/// described above, and prints the summary. An error for a bad line, a
/// failed commit or an unreadable input.
Status StreamIngest(int input_fd, const StopSignals& signals,
                    commit::CoalescingCommitter& committer, StreamTarget target,
                    const StreamIngestOptions& options);

}  // namespace skade::cli
