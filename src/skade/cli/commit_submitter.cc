#include "skade/cli/commit_submitter.h"

#include <arrow/record_batch.h>

#include <optional>

#include "skade/data/record_batches.h"

namespace skade::cli {

namespace {

// `parts` as one batch, in order (they share the table's schema).
Result<std::shared_ptr<arrow::RecordBatch>> Concatenate(const std::vector<Submission>& parts) {
  if (parts.size() == 1) return parts.front().rows;
  arrow::RecordBatchVector batches;
  for (const Submission& part : parts) batches.push_back(part.rows);
  auto combined = arrow::ConcatenateRecordBatches(batches);
  if (!combined.ok()) {
    return InvalidArgument("cannot merge batches: ", combined.status().message());
  }
  return std::move(combined).ValueUnsafe();
}

}  // namespace

CommitSubmitter::CommitSubmitter(commit::CoalescingCommitter& committer,
                                 spec::TableIdentifier table, CommitSubmitterOptions options,
                                 DoneCallback on_done)
    : committer_(committer),
      table_(std::move(table)),
      options_(std::move(options)),
      on_done_(std::move(on_done)) {
  // Upserts keep input order with one thread; appends may overtake each other.
  int threads = options_.upsert_keys.empty() ? std::max(1, options_.writers) : 1;
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

CommitSubmitter::~CommitSubmitter() { Finish(); }

bool CommitSubmitter::Submit(Submission submission) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < options_.queue_depth || failed_ || stopped_; });
  if (failed_ || stopped_) {
    Error error = NotSubmitted();
    lock.unlock();
    Report(submission, tl::unexpected(std::move(error)));
    return false;
  }
  queue_.push_back(std::move(submission));
  changed_.notify_all();
  return true;
}

void CommitSubmitter::Finish() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
}

void CommitSubmitter::Stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

Error CommitSubmitter::NotSubmitted() const {
  return Error{
      ErrorKind::kCancelled,
      failed_ ? "not submitted: an earlier batch failed" : "not submitted: the ingest was stopped",
      false};
}

bool CommitSubmitter::failed() const {
  std::lock_guard lock(mutex_);
  return failed_;
}

void CommitSubmitter::Report(const Submission& submission,
                             const Result<commit::CommitReceipt>& result) {
  std::lock_guard lock(report_mutex_);
  on_done_(submission, result);
}

void CommitSubmitter::Run() {
  for (;;) {
    std::vector<Submission> taken;
    std::optional<Error> cancelled;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || closed_; });
      if (queue_.empty()) return;
      if (failed_ || stopped_) cancelled = NotSubmitted();
      int64_t bytes = 0;
      do {
        bytes += data::BatchBytes(*queue_.front().rows);
        taken.push_back(std::move(queue_.front()));
        queue_.pop_front();
      } while (!queue_.empty() && (cancelled || (!options_.upsert_keys.empty() &&
                                                 bytes + data::BatchBytes(*queue_.front().rows) <=
                                                     options_.max_upsert_bytes)));
      changed_.notify_all();  // room for the reader
    }
    if (cancelled) {
      for (const Submission& submission : taken) Report(submission, tl::unexpected(*cancelled));
      continue;
    }
    Result<commit::CommitReceipt> result = [&]() -> Result<commit::CommitReceipt> {
      SKADE_ASSIGN_OR_RAISE(auto rows, Concatenate(taken));
      if (options_.upsert_keys.empty()) return committer_.Append(table_, rows);
      return committer_.Upsert(table_, rows, options_.upsert_keys);
    }();
    if (!result) {
      std::lock_guard lock(mutex_);
      failed_ = true;
      changed_.notify_all();
    }
    for (const Submission& submission : taken) Report(submission, result);
  }
}

}  // namespace skade::cli
