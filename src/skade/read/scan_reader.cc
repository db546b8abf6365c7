#include "skade/read/scan_reader.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "skade/data/arrow_error_internal.h"
#include "skade/data/arrow_schema.h"
#include "skade/read/delete_cache_internal.h"
#include "skade/read/name_mapping.h"
#include "skade/read/task_reader_internal.h"

namespace skade::read {

namespace {

using BatchPtr = std::shared_ptr<arrow::RecordBatch>;

// The pool and the bounded hand-over between it and the consumer.
//
// Workers take tasks in order and push their batches; a push waits while
// `max_in_flight_` batches are waiting for the consumer, except — in
// ordered mode — for the task the consumer reads next, so the head of the
// order always progresses and memory stays bounded by max_in_flight_ plus
// what one decoder holds. All state is under `mutex_`.
class ScanReader : public arrow::RecordBatchReader {
 public:
  ScanReader(scan::ScanPlan plan, io::FileIO& io, const ScanReadOptions& options,
             std::shared_ptr<arrow::Schema> schema, std::optional<NameMapping> mapping)
      : plan_(std::move(plan)),
        options_(options),
        schema_(std::move(schema)),
        mapping_(std::move(mapping)),
        outputs_(plan_.tasks.size()) {
    int threads = options_.threads > 0 ? options_.threads
                                       : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::max(1, std::min<int>(threads, static_cast<int>(plan_.tasks.size())));
    if (plan_.tasks.empty()) threads = 0;
    max_in_flight_ = 2 * static_cast<int64_t>(std::max(threads, 1)) + 2;
    ParquetReadOptions parquet;
    parquet.batch_rows = std::max<int64_t>(1, options_.batch_rows);
    // Few files for many cores: let Arrow decode a file's columns in parallel.
    int cores = static_cast<int>(std::thread::hardware_concurrency());
    parquet.use_threads = static_cast<int>(plan_.tasks.size()) < std::max(cores, 1);
    deletes_ =
        std::make_unique<DeleteCache>(io, plan_.schema, mapping_ ? &*mapping_ : nullptr, parquet);
    context_.plan = &plan_;
    context_.io = &io;
    context_.output_schema = schema_;
    context_.mapping = mapping_ ? &*mapping_ : nullptr;
    context_.deletes = deletes_.get();
    context_.parquet = parquet;
    for (const auto& task : plan_.tasks) progress_.bytes_total += task.data_file.file_size_in_bytes;
    progress_.tasks_total = static_cast<int64_t>(plan_.tasks.size());
    if (options_.limit && *options_.limit <= 0) limit_reached_ = stopping_ = true;
    for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { Work(); });
  }

  ~ScanReader() override { Stop(); }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status Close() override {
    Stop();
    return arrow::Status::OK();
  }

  arrow::Status ReadNext(BatchPtr* batch) override {
    *batch = nullptr;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ReportProgress(lock);
      if (closed_) return arrow::Status::OK();
      if (!error_.has_value() && limit_reached_) return arrow::Status::OK();
      if (error_.has_value()) return *error_;
      if (options_.ordered) {
        if (head_ >= outputs_.size()) return arrow::Status::OK();
        TaskOutput& head = outputs_[head_];
        if (!head.batches.empty()) {
          *batch = Take(head.batches);
          break;
        }
        if (head.done) {
          if (!head.status.ok()) {
            error_ = head.status;
            stopping_ = true;
            consumed_.notify_all();
            continue;
          }
          ++head_;
          consumed_.notify_all();  // the new head's worker may wait
          continue;
        }
      } else {
        if (!queue_.empty()) {
          *batch = Take(queue_);
          break;
        }
        if (progress_.tasks_done == progress_.tasks_total) return arrow::Status::OK();
      }
      produced_.wait(lock);
    }
    if (options_.limit) {
      int64_t left = *options_.limit - progress_.rows_out;
      if ((*batch)->num_rows() >= left) {
        if ((*batch)->num_rows() > left) *batch = (*batch)->Slice(0, left);
        limit_reached_ = true;
        stopping_ = true;
        consumed_.notify_all();
      }
    }
    progress_.rows_out += (*batch)->num_rows();
    return arrow::Status::OK();
  }

 private:
  struct TaskOutput {
    std::deque<BatchPtr> batches;
    bool done = false;
    arrow::Status status;
  };

  BatchPtr Take(std::deque<BatchPtr>& from) {
    BatchPtr batch = std::move(from.front());
    from.pop_front();
    --in_flight_;
    consumed_.notify_all();
    return batch;
  }

  // Calls on_progress (without the lock) when tasks finished since the last
  // call.
  void ReportProgress(std::unique_lock<std::mutex>& lock) {
    if (!options_.on_progress || progress_.tasks_done == reported_tasks_) return;
    reported_tasks_ = progress_.tasks_done;
    ScanProgress snapshot = progress_;
    lock.unlock();
    options_.on_progress(snapshot);
    lock.lock();
  }

  void Work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_ && next_task_ < plan_.tasks.size()) {
      size_t index = next_task_++;
      lock.unlock();
      const scan::FileScanTask& task = plan_.tasks[index];
      PageIndexStats pages;
      Status status = data::CatchArrowExceptions(task.data_file.file_path, [&] {
        return ReadTask(
            context_, task, [&](BatchPtr batch) { return Push(index, std::move(batch)); }, &pages);
      });
      lock.lock();
      progress_.tasks_done += 1;
      progress_.pages_skipped += pages.pages_skipped;
      progress_.rows_skipped += pages.rows_skipped;
      progress_.bytes_done += task.data_file.file_size_in_bytes;
      arrow::Status arrow_status =
          status ? arrow::Status::OK() : data::ToArrowStatus(status.error());
      if (options_.ordered) {
        outputs_[index].done = true;
        outputs_[index].status = arrow_status;
      } else if (!arrow_status.ok() && !error_.has_value()) {
        error_ = arrow_status;
        stopping_ = true;
        consumed_.notify_all();
      }
      produced_.notify_all();
    }
  }

  // False when the scan stops (the reader is destroyed, the limit reached
  // or another task failed).
  bool Push(size_t index, BatchPtr batch) {
    if (batch->num_rows() == 0) return true;
    std::unique_lock<std::mutex> lock(mutex_);
    consumed_.wait(lock, [&] {
      return stopping_ || in_flight_ < max_in_flight_ || (options_.ordered && index == head_);
    });
    if (stopping_) return false;
    ++in_flight_;
    if (options_.ordered) {
      outputs_[index].batches.push_back(std::move(batch));
    } else {
      queue_.push_back(std::move(batch));
    }
    produced_.notify_all();
    return true;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      closed_ = true;
      consumed_.notify_all();
      produced_.notify_all();
    }
    for (auto& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

  const scan::ScanPlan plan_;
  const ScanReadOptions options_;
  const std::shared_ptr<arrow::Schema> schema_;
  const std::optional<NameMapping> mapping_;
  std::unique_ptr<DeleteCache> deletes_;
  ScanContext context_;
  int64_t max_in_flight_ = 0;

  std::mutex mutex_;
  std::condition_variable produced_;  // a batch or a finished task for the consumer
  std::condition_variable consumed_;  // room for a push, a new head, or stopping
  size_t next_task_ = 0;
  std::vector<TaskOutput> outputs_;  // ordered: per task
  std::deque<BatchPtr> queue_;       // unordered
  size_t head_ = 0;                  // ordered: the task read next
  int64_t in_flight_ = 0;
  bool stopping_ = false;
  bool limit_reached_ = false;
  bool closed_ = false;  // Close() was called: the stream has ended
  std::optional<arrow::Status> error_;
  ScanProgress progress_;
  int64_t reported_tasks_ = 0;
  std::vector<std::thread> threads_;  // last: started once the rest is set
};

}  // namespace

Result<std::shared_ptr<arrow::Schema>> ScanSchema(const scan::ScanPlan& plan) {
  if (plan.schema == nullptr) return InvalidArgument("The scan plan has no schema");
  arrow::FieldVector fields;
  for (int32_t id : plan.projected_field_ids) {
    const spec::NestedField* field = plan.schema->FindFieldById(id);
    if (field == nullptr || plan.schema->FindParentId(id) != -1) {
      return InvalidArgument("Projected field id ", id, " is not a top-level column of the schema");
    }
    SKADE_ASSIGN_OR_RAISE(auto arrow_field, data::ToArrowField(*field));
    fields.push_back(std::move(arrow_field));
  }
  return arrow::schema(std::move(fields));
}

Result<std::shared_ptr<arrow::RecordBatchReader>> ReadScan(scan::ScanPlan plan, io::FileIO& io,
                                                           const ScanReadOptions& options) {
  SKADE_ASSIGN_OR_RAISE(auto schema, ScanSchema(plan));
  std::optional<NameMapping> mapping;
  if (plan.metadata != nullptr) {
    auto property = plan.metadata->properties.find(kDefaultNameMappingProperty);
    if (property != plan.metadata->properties.end()) {
      auto parsed = NameMapping::Parse(property->second);
      if (!parsed) {
        return MakeError(parsed.error().kind, "Table property ", kDefaultNameMappingProperty, ": ",
                         parsed.error().message);
      }
      mapping = std::move(*parsed);
    }
  }
  return std::shared_ptr<arrow::RecordBatchReader>(
      new ScanReader(std::move(plan), io, options, std::move(schema), std::move(mapping)));
}

}  // namespace skade::read
