#include "skade/cli/coalesce_ingest.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>

#include "skade/data/arrow_schema.h"
#include "skade/data/conform_batch.h"
#include "skade/ingest/input_files.h"
#include "skade/util/clock.h"
#include "skade/util/strings.h"

namespace skade::cli {

namespace {

// One group of a file as one batch of the table's rows.
Result<std::shared_ptr<arrow::RecordBatch>> ReadGroup(
    const ingest::GroupSource& groups, size_t i, const spec::Schema& schema,
    const std::shared_ptr<arrow::Schema>& arrow_schema) {
  SKADE_ASSIGN_OR_RAISE(ingest::BatchStream stream, groups.read(i));
  arrow::RecordBatchVector batches;
  for (;;) {
    SKADE_ASSIGN_OR_RAISE(auto batch, stream());
    if (batch == nullptr) break;
    SKADE_ASSIGN_OR_RAISE(auto rows, data::ConformBatch(batch, schema));
    batches.push_back(std::move(rows));
  }
  if (batches.size() == 1) return batches.front();
  auto combined = batches.empty() ? arrow::RecordBatch::MakeEmpty(arrow_schema)
                                  : arrow::ConcatenateRecordBatches(batches);
  if (!combined.ok()) return InvalidArgument(combined.status().message());
  return std::move(combined).ValueUnsafe();
}

// `error` naming the input file it came from, once: the readers' own
// errors already name it, a conversion error does not.
tl::unexpected<Error> NamingFile(Error error, const std::string& path) {
  if (error.message.find(path) == std::string::npos) {
    error.message = StrCat(path, ": ", error.message);
  }
  return tl::unexpected(std::move(error));
}

Status Stopped() { return MakeError(ErrorKind::kCancelled, "ingest stopped"); }

}  // namespace

Status CoalesceIngest(const std::vector<std::string>& files, commit::CoalescingCommitter& committer,
                      const spec::TableIdentifier& table, const spec::Schema& schema,
                      const CoalesceIngestOptions& options) {
  const int64_t start = MonotonicMicros();
  SKADE_ASSIGN_OR_RAISE(auto arrow_schema, data::ToArrowSchema(schema));
  std::mutex mutex;  // guards what the callback records
  int64_t rows = 0;
  int64_t writes = 0;
  std::optional<Error> failure;
  std::set<std::string> not_committed;
  std::set<std::string> reached;  // files whose reading began
  {
    CommitSubmitter submitter(
        committer, table, options.submit,
        [&](const Submission& submission, const Result<commit::CommitReceipt>& result) {
          std::lock_guard lock(mutex);
          if (result) {
            rows += submission.rows->num_rows();
            return;
          }
          not_committed.insert(submission.source);
          if (result.error().kind != ErrorKind::kCancelled && !failure) {
            failure =
                Error{result.error().kind, StrCat(submission.source, ": ", result.error().message),
                      result.error().retryable};
          }
        });
    // From the thread that stops: a reader waiting for room wakes too.
    std::stop_callback on_stop(options.stop, [&] { submitter.Stop(); });
    for (const std::string& path : files) {
      reached.insert(path);
      auto read = [&]() -> Status {
        auto opened =
            ingest::InputGroups({path}, options.format, options.rows_per_group, *arrow_schema);
        if (!opened) return NamingFile(std::move(opened).error(), path);
        const ingest::GroupSource& groups = *opened;
        for (size_t i = 0; i < groups.count; ++i) {
          if (options.stop.stop_requested()) return Stopped();
          auto batch = ReadGroup(groups, i, schema, arrow_schema);
          if (!batch) return NamingFile(std::move(batch).error(), path);
          {
            std::lock_guard lock(mutex);
            ++writes;
          }
          if (!submitter.Submit({std::move(*batch), 0, 0, path})) return OkStatus();
        }
        return OkStatus();
      }();
      bool failed = submitter.failed();
      {
        std::lock_guard lock(mutex);  // the submitter's threads set `failure` too
        if (!read) {
          if (!failure) failure = read.error();
          not_committed.insert(path);
        }
        failed = failed || failure.has_value();
      }
      if (failed) break;
    }
    submitter.Finish();
  }
  // Stopped after its last write was read: those still queued were cancelled.
  if (!failure && !not_committed.empty()) failure = Stopped().error();

  if (failure) {
    for (const std::string& path : files) {
      if (reached.count(path) == 0) not_committed.insert(path);
    }
  }
  // Only what was committed: after a failure, the files not (wholly)
  // committed are not counted.
  const auto committed_files =
      std::count_if(files.begin(), files.end(),
                    [&](const std::string& path) { return !not_committed.count(path); });
  const std::string from = failure ? StrCat(committed_files, " of ", files.size(), " files")
                                   : StrCat(files.size(), " files");
  commit::CoalescingCommitterStats stats = committer.stats();
  double seconds = static_cast<double>(MonotonicMicros() - start) / 1e6;
  std::printf(
      "ingested %lld rows from %s into %s: %lld logical writes, %lld physical commits, "
      "%lld data files in %.2f s\n",
      static_cast<long long>(rows), from.c_str(), spec::QuotedIdentifier(table).c_str(),
      static_cast<long long>(stats.logical_writes), static_cast<long long>(stats.physical_commits),
      static_cast<long long>(stats.data_files), seconds);
  if (!failure) return OkStatus();
  std::vector<std::string> names(not_committed.begin(), not_committed.end());
  failure->message = StrCat(failure->message, "; committed ", rows, " rows of ", writes,
                            " writes; not (wholly) committed: ", Join(names, ", "));
  return tl::unexpected(*failure);
}

}  // namespace skade::cli
