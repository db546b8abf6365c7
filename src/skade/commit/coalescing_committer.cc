#include "skade/commit/coalescing_committer.h"

#include <arrow/record_batch.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "skade/commit/commit_properties.h"
#include "skade/commit/equality_delete_spec_internal.h"
#include "skade/commit/pending_write_internal.h"
#include "skade/commit/row_encoder_internal.h"
#include "skade/commit/table_flush_internal.h"
#include "skade/commit/upsert_keys_internal.h"
#include "skade/data/conform_batch.h"
#include "skade/data/record_batches.h"
#include "skade/store/table_key.h"
#include "skade/table/table.h"
#include "skade/table/transaction.h"
#include "skade/table/written_manifest_list.h"

namespace skade::commit {

namespace {

constexpr std::chrono::microseconds kMaxDelayCap = std::chrono::seconds(1);
// How long after a flush its writers' next writes are awaited, as a share of
// the flush's duration: what the wait adds to a write's latency stays a
// fraction of one commit; what it saves them (a commit of their own) is one.
// A stalled flush (a slow object store) does not stretch it past the cap.
constexpr int kReturnWindowShareOfFlush = 4;
constexpr std::chrono::milliseconds kReturnWindowCap{100};
// Tables whose last manifest list the committer keeps in memory, and the
// longest list it keeps (~250 bytes a manifest): a longer one is read back.
constexpr size_t kMaxRememberedLists = 64;
constexpr size_t kMaxRememberedManifests = 10000;
// Times a flush is staged again because a write's own requirement stopped
// holding before its commit landed (each time that write is refused).
constexpr int kMaxRestages = 4;

}  // namespace

class CoalescingCommitter::Impl {
 public:
  Impl(std::shared_ptr<catalog::EmbeddedCatalog> catalog, CoalescingCommitterOptions options)
      : catalog_(std::move(catalog)), options_(options) {
    options_.max_delay = std::clamp(options_.max_delay, std::chrono::microseconds(0), kMaxDelayCap);
    options_.max_ops = std::max<size_t>(1, options_.max_ops);
  }

  Result<CommitReceipt> Write(PendingWrite::Kind kind, const spec::TableIdentifier& table,
                              const std::shared_ptr<arrow::RecordBatch>& batch,
                              std::vector<spec::DataFile> files,
                              const std::vector<std::string>& key_columns,
                              const WriteOptions& options);

  CoalescingCommitterStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {logical_writes_.load(), failed_writes_.load(), physical_commits_.load(),
            data_files_.load(), static_cast<int64_t>(queue_.size())};
  }

 private:
  bool durable() const { return catalog_->durability() == store::Durability::kImmediate; }
  // Fills `write` on the calling thread: conforms the rows, or writes them
  // when they are too large to defer. An error fails the write alone.
  Status Prepare(PendingWrite* write, const std::shared_ptr<arrow::RecordBatch>& batch);
  // The queue: waits until a flush has taken `write`, or leads one.
  Result<CommitReceipt> Submit(PendingWrite* write);
  // Counts a write in (preparing_, returning_); LeavePreparing counts out
  // one that will not reach the queue.
  void EnterPreparing();
  void LeavePreparing();
  // The leader's wait for writes about to join (see preparing_).
  template <typename Full>
  void AwaitReturning(std::unique_lock<std::mutex>& lock, PendingWrite* leader, const Full& full);
  // One physical commit of `batch` (the front of the queue). Never throws.
  void Flush(const std::vector<PendingWrite*>& batch);
  void FlushOrThrow(const std::vector<PendingWrite*>& batch);
  // One try at it, for the writes of `batch` still without a result; true
  // when they are to be staged again (TableFlush::Abandon), which only a
  // try that `may_restage` does.
  bool TryFlush(const std::vector<PendingWrite*>& batch, bool may_restage);
  // Whether `tables`' commit failed because a write's own requirement no
  // longer holds on the table as it is now.
  bool ARequirementFailed(const std::vector<std::unique_ptr<TableFlush>>& tables,
                          const Error& error) const;

  std::shared_ptr<catalog::EmbeddedCatalog> catalog_;
  CoalescingCommitterOptions options_;

  mutable std::mutex mutex_;
  std::deque<PendingWrite*> queue_;  // guarded by mutex_; front = the leader
  int64_t buffered_bytes_ = 0;       // guarded by mutex_
  std::condition_variable room_;     // buffered_bytes_ went down
  // Writers that loop (write, wait for the acknowledgement, write again)
  // come back together after each flush. A leader that started at once
  // would commit the first of them alone and leave the rest for the next
  // commit: half the writers per commit. So within a short window after a
  // flush (a quarter of its duration, at most 100 ms), a leader waits while
  // writes are being prepared (inside Write(), not queued yet) or fewer
  // writes have arrived than the flush acknowledged. Past the window, or
  // with nobody to wait for, it leads at once: an idle committer adds no
  // latency.
  int preparing_ = 0;         // guarded by mutex_
  size_t returning_ = 0;      // guarded by mutex_; acknowledged, not yet back
  bool awaiting_ = false;     // guarded by mutex_; a leader in AwaitReturning
  int waiting_for_room_ = 0;  // guarded by mutex_; writes blocked on room_
  std::chrono::steady_clock::time_point last_flush_end_;  // guarded by mutex_
  std::chrono::steady_clock::duration last_flush_{0};     // guarded by mutex_

  // The manifest list each table's last flush wrote, by table key: the next
  // flush builds on it instead of reading the file back. Only a flush's
  // leader touches it (one flush at a time); bounded by dropping them all.
  std::unordered_map<std::string, std::shared_ptr<const table::WrittenManifestList>> last_lists_;

  std::atomic<int64_t> logical_writes_{0};
  std::atomic<int64_t> failed_writes_{0};
  std::atomic<int64_t> physical_commits_{0};
  std::atomic<int64_t> data_files_{0};
};

Status CoalescingCommitter::Impl::Prepare(PendingWrite* write,
                                          const std::shared_ptr<arrow::RecordBatch>& batch) {
  SKADE_ASSIGN_OR_RAISE(spec::TableMetadataPtr metadata, catalog_->ResolveMetadata(write->table));
  SKADE_ASSIGN_OR_RAISE(CommitProperties properties, CommitProperties::Of(*metadata));
  if (write->kind == PendingWrite::Kind::kUpsert) {
    SKADE_ASSIGN_OR_RAISE(write->key_field_ids,
                          ResolveKeyFields(*metadata->Schema(), *metadata->Spec(),
                                           write->key_columns, metadata->format_version));
  }
  if (!batch) return OkStatus();
  SKADE_ASSIGN_OR_RAISE(auto rows, data::ConformBatch(batch, *metadata->Schema()));
  int64_t bytes = data::BatchBytes(*rows);
  bool defer = bytes < properties.deferred_max_bytes;
  spec::PartitionSpecPtr delete_spec;
  if (!defer && write->kind == PendingWrite::Kind::kUpsert) {
    SKADE_ASSIGN_OR_RAISE(delete_spec,
                          EqualityDeleteSpec(*metadata, catalog_->file_io(), nullptr, {}));
    // Its deletes need a spec the table lacks yet: the flush adds it.
    defer = delete_spec == nullptr;
  }
  if (defer) {
    write->rows = std::move(rows);
    write->schema_id = metadata->Schema()->schema_id();
    write->bytes = bytes;
    return OkStatus();
  }
  // Too large to hold: encode and write it here, so no flush waits on it.
  std::vector<std::string> written;
  auto encoded = EncodeRows(*metadata, RowSink{catalog_->file_io_ptr(), durable(), 0}, {rows},
                            write->key_field_ids, delete_spec, &written);
  if (!encoded) {
    DeleteFiles(catalog_->file_io(), written);
    return tl::unexpected(encoded.error());
  }
  write->data_files = std::move(encoded->data_files);
  write->delete_files = std::move(encoded->delete_files);
  write->owns_files = true;
  return OkStatus();
}

Result<CommitReceipt> CoalescingCommitter::Impl::Write(
    PendingWrite::Kind kind, const spec::TableIdentifier& table,
    const std::shared_ptr<arrow::RecordBatch>& batch, std::vector<spec::DataFile> files,
    const std::vector<std::string>& key_columns, const WriteOptions& options) {
  auto fail = [&](Error error) -> Result<CommitReceipt> {
    ++failed_writes_;
    return tl::unexpected(std::move(error));
  };
  if (Status valid = spec::ValidateTableIdentifier(table); !valid) return fail(valid.error());
  PendingWrite write;
  write.kind = kind;
  write.table = table;
  write.table_key = store::TableKey(table);
  write.options = options;
  write.data_files = std::move(files);
  write.key_columns = key_columns;
  // Counted as preparing until Submit() queues it, or it leaves here (an
  // error, an exception, nothing to commit).
  EnterPreparing();
  bool submitted = false;
  struct Leave {
    Impl* impl;
    const bool& submitted;
    ~Leave() {
      if (!submitted) impl->LeavePreparing();
    }
  } leave{this, submitted};
  Status prepared = Prepare(&write, batch);
  if (!prepared) return fail(prepared.error());
  if (batch && batch->num_rows() == 0 && options.requirements.empty()) {
    // Checked, and nothing to commit: where the table is now.
    auto loaded = catalog_->LoadTable(table);
    if (!loaded) return fail(loaded.error());
    CommitReceipt receipt;
    receipt.metadata_location = loaded->metadata_location;
    if (auto current = loaded->metadata->CurrentSnapshot()) {
      receipt.snapshot_id = current->snapshot_id;
      receipt.sequence_number = current->sequence_number;
    }
    return receipt;
  }
  submitted = true;
  auto result = Submit(&write);
  if (!result) {
    ++failed_writes_;
  } else {
    ++logical_writes_;
  }
  return result;
}

void CoalescingCommitter::Impl::EnterPreparing() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++preparing_;
  if (returning_ > 0) --returning_;
}

void CoalescingCommitter::Impl::LeavePreparing() {
  std::lock_guard<std::mutex> lock(mutex_);
  --preparing_;
  if (awaiting_) queue_.front()->wake.notify_one();
}

template <typename Full>
void CoalescingCommitter::Impl::AwaitReturning(std::unique_lock<std::mutex>& lock,
                                               PendingWrite* leader, const Full& full) {
  // A writer blocked on a full buffer cannot join: flushing is what frees it.
  auto nobody = [&] { return (preparing_ == 0 && returning_ == 0) || waiting_for_room_ > 0; };
  if (nobody()) return;
  awaiting_ = true;
  auto window = std::min<std::chrono::steady_clock::duration>(
      last_flush_ / kReturnWindowShareOfFlush, kReturnWindowCap);
  leader->wake.wait_until(lock, last_flush_end_ + window, [&] { return nobody() || full(); });
  awaiting_ = false;
}

Result<CommitReceipt> CoalescingCommitter::Impl::Submit(PendingWrite* write) {
  std::unique_lock<std::mutex> lock(mutex_);
  --preparing_;
  auto has_room = [&] {
    return queue_.empty() || buffered_bytes_ + write->bytes <= options_.max_buffered_bytes;
  };
  if (!has_room()) {
    ++waiting_for_room_;
    if (awaiting_) queue_.front()->wake.notify_one();
    room_.wait(lock, has_room);
    --waiting_for_room_;
  }
  buffered_bytes_ += write->bytes;
  queue_.push_back(write);
  // With a delay, a waiting leader may now have enough to flush.
  if ((options_.max_delay.count() > 0 || awaiting_) && queue_.size() > 1) {
    queue_.front()->wake.notify_one();
  }
  write->wake.wait(lock, [&] { return write->done || queue_.front() == write; });
  if (write->done) return std::move(write->result);

  // The leader. Wait for writes about to join, and for more only if asked.
  auto full = [&] {
    return queue_.size() >= options_.max_ops || buffered_bytes_ >= options_.max_bytes;
  };
  if (options_.max_delay.count() > 0) {
    write->wake.wait_for(lock, options_.max_delay, full);
  } else {
    AwaitReturning(lock, write, full);
  }
  std::vector<PendingWrite*> batch;
  int64_t batch_bytes = 0;
  for (PendingWrite* queued : queue_) {
    if (!batch.empty() &&
        (batch.size() >= options_.max_ops || batch_bytes + queued->bytes > options_.max_bytes)) {
      break;
    }
    batch.push_back(queued);
    batch_bytes += queued->bytes;
  }
  lock.unlock();
  auto began = std::chrono::steady_clock::now();
  Flush(batch);
  lock.lock();
  last_flush_end_ = std::chrono::steady_clock::now();
  last_flush_ = last_flush_end_ - began;
  returning_ = batch.size();
  for (PendingWrite* taken : batch) {
    queue_.pop_front();
    buffered_bytes_ -= taken->bytes;
    taken->done = true;
    if (taken != write) taken->wake.notify_one();
  }
  room_.notify_all();
  if (!queue_.empty()) queue_.front()->wake.notify_one();
  return std::move(write->result);
}

void CoalescingCommitter::Impl::Flush(const std::vector<PendingWrite*>& batch) {
  try {
    FlushOrThrow(batch);
  } catch (const std::exception& e) {
    // Past the first staged file the commit may have begun: say so.
    for (PendingWrite* write : batch) {
      if (!write->settled) {
        write->result = MakeError(ErrorKind::kCommitStateUnknown,
                                  "Commit state unknown: the flush failed: ", e.what());
      }
    }
  }
}

void CoalescingCommitter::Impl::FlushOrThrow(const std::vector<PendingWrite*>& batch) {
  int restages = 0;
  while (TryFlush(batch, restages < kMaxRestages)) ++restages;
}

bool CoalescingCommitter::Impl::ARequirementFailed(
    const std::vector<std::unique_ptr<TableFlush>>& tables, const Error& error) const {
  if (error.kind != ErrorKind::kCommitFailed) return false;
  for (const auto& flush : tables) {
    if (!flush->carries_requirements()) continue;
    auto now = catalog_->LoadTable(flush->transaction().table().identifier());
    if (now && flush->ARequirementFailsOn(*now->metadata)) return true;
  }
  return false;
}

bool CoalescingCommitter::Impl::TryFlush(const std::vector<PendingWrite*>& batch,
                                         bool may_restage) {
  // The writes of each table, tables in order of first arrival.
  std::vector<std::vector<PendingWrite*>> by_table;
  std::map<std::string_view, size_t> table_index;
  for (PendingWrite* write : batch) {
    if (write->settled) continue;
    auto [it, added] = table_index.emplace(write->table_key, by_table.size());
    if (added) by_table.emplace_back();
    by_table[it->second].push_back(write);
  }
  std::vector<std::unique_ptr<TableFlush>> tables;
  std::vector<std::string> table_keys;
  std::vector<table::Transaction*> transactions;
  for (auto& writes : by_table) {
    auto table =
        table::Table::Load(catalog_, catalog_->file_io_ptr(), writes.front()->table, durable());
    if (auto last = last_lists_.find(writes.front()->table_key);
        table && last != last_lists_.end()) {
      // Used only while it is still main's list (SnapshotUpdate::Apply).
      table = table->WithWrittenList(last->second);
    }
    if (!table) {
      for (PendingWrite* write : writes) {
        DeleteFiles(catalog_->file_io(), write->OwnedLocations());
        write->result = tl::unexpected(table.error());
        write->settled = true;
      }
      continue;
    }
    std::string key = writes.front()->table_key;
    auto flush = std::make_unique<TableFlush>(std::move(*table), std::move(writes));
    if (!flush->Stage()) continue;
    table_keys.push_back(std::move(key));
    transactions.push_back(&flush->transaction());
    tables.push_back(std::move(flush));
  }
  if (tables.empty()) return false;
  int64_t writes_in_commit = 0;
  for (const auto& flush : tables) {
    writes_in_commit += static_cast<int64_t>(flush->staged_writes());
  }
  auto committed = table::CommitTransactions(transactions);
  if (!committed) {
    if (may_restage && ARequirementFailed(tables, committed.error())) {
      for (auto& flush : tables) flush->Abandon();
      return true;
    }
    for (auto& flush : tables) flush->Failed(committed.error());
    return false;
  }
  ++physical_commits_;
  if (last_lists_.size() + tables.size() > kMaxRememberedLists) last_lists_.clear();
  for (size_t i = 0; i < tables.size(); ++i) {
    tables[i]->Committed((*committed)[i], writes_in_commit);
    const auto& list = (*committed)[i].written_list_ptr();
    if (list && list->manifests.size() <= kMaxRememberedManifests) {
      last_lists_[table_keys[i]] = list;
    } else {
      last_lists_.erase(table_keys[i]);
    }
    data_files_ += static_cast<int64_t>(tables[i]->files_written());
  }
  // The files the writes brought: written before the flush (a large batch)
  // or by the caller (AppendFiles).
  for (const PendingWrite* write : batch) {
    if (write->settled && write->result) {
      data_files_ += static_cast<int64_t>(write->data_files.size() + write->delete_files.size());
    }
  }
  return false;
}

// --- The public face ----------------------------------------------------------

Result<std::unique_ptr<CoalescingCommitter>> CoalescingCommitter::Make(
    std::shared_ptr<catalog::EmbeddedCatalog> catalog, CoalescingCommitterOptions options) {
  if (!catalog) return InvalidArgument("A coalescing committer needs a catalog");
  if (options.max_bytes <= 0 || options.max_buffered_bytes <= 0) {
    return InvalidArgument("The committer's byte limits must be positive");
  }
  return std::unique_ptr<CoalescingCommitter>(
      new CoalescingCommitter(std::make_unique<Impl>(std::move(catalog), options)));
}

CoalescingCommitter::CoalescingCommitter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CoalescingCommitter::~CoalescingCommitter() = default;

Result<CommitReceipt> CoalescingCommitter::Append(const spec::TableIdentifier& table,
                                                  const std::shared_ptr<arrow::RecordBatch>& batch,
                                                  const WriteOptions& options) {
  if (!batch) return InvalidArgument("Cannot append a null batch");
  return impl_->Write(PendingWrite::Kind::kAppend, table, batch, {}, {}, options);
}

Result<CommitReceipt> CoalescingCommitter::AppendFiles(const spec::TableIdentifier& table,
                                                       std::vector<spec::DataFile> files,
                                                       const WriteOptions& options) {
  return impl_->Write(PendingWrite::Kind::kAppend, table, nullptr, std::move(files), {}, options);
}

Result<CommitReceipt> CoalescingCommitter::Upsert(const spec::TableIdentifier& table,
                                                  const std::shared_ptr<arrow::RecordBatch>& batch,
                                                  const std::vector<std::string>& key_columns,
                                                  const WriteOptions& options) {
  if (!batch) return InvalidArgument("Cannot upsert a null batch");
  return impl_->Write(PendingWrite::Kind::kUpsert, table, batch, {}, key_columns, options);
}

CoalescingCommitterStats CoalescingCommitter::stats() const { return impl_->stats(); }

}  // namespace skade::commit
