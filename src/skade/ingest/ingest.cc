#include "skade/ingest/ingest.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "skade/data/data_file_namer.h"
#include "skade/data/fanout_data_writer.h"
#include "skade/data/partition_path.h"
#include "skade/ingest/bounded_queue.h"
#include "skade/ingest/data_file_encoder_internal.h"
#include "skade/ingest/encoded_file_stream_internal.h"
#include "skade/ingest/ordered_writer_internal.h"
#include "skade/ingest/snapshot_action_internal.h"
#include "skade/ingest/snapshot_committer_internal.h"
#include "skade/table/transaction.h"
#include "skade/util/clock.h"
#include "skade/util/uuid.h"
#include "skade/util/worker_pool.h"

namespace skade::ingest {

namespace {

using table::Table;

// Serializes progress reports from the writer and committer threads.
class ProgressReporter {
 public:
  ProgressReporter(const std::function<void(const IngestProgress&)>& callback, int64_t files)
      : callback_(callback) {
    progress_.files_total = files;
  }

  /// `files_known`: the total as far as it is known yet (a streaming
  /// encode learns it as it goes); 0 keeps the one given at construction.
  void Written(const spec::DataFile& file, int64_t files_known = 0) {
    std::lock_guard lock(mutex_);
    progress_.files_total = std::max(progress_.files_total, files_known);
    ++progress_.files_written;
    progress_.rows_written += file.record_count;
    progress_.bytes_written += file.file_size_in_bytes;
    if (callback_) callback_(progress_);
  }

  void Committed() {
    std::lock_guard lock(mutex_);
    ++progress_.commits;
    if (callback_) callback_(progress_);
  }

 private:
  const std::function<void(const IngestProgress&)>& callback_;
  std::mutex mutex_;
  IngestProgress progress_;
};

Result<data::DataWriterOptions> WriterOptions(const Table& table, const IngestOptions& options) {
  data::DataWriterOptions writer;
  if (options.writer_options) {
    writer = *options.writer_options;
  } else {
    SKADE_ASSIGN_OR_RAISE(writer,
                          data::DataWriterOptions::FromProperties(table.metadata().properties));
  }
  writer.durable = table.durable_files();
  return writer;
}

// What `committer` committed, into `stats`.
void AddCommitted(const SnapshotCommitter& committer, IngestStats* stats) {
  stats->rows = committer.committed_rows();
  stats->files = committer.committed_files();
  stats->bytes = committer.committed_bytes();
  stats->commits = committer.commits();
  stats->snapshots = committer.snapshots();
  stats->commit_us = committer.commit_us();
}

// The encode stage of IngestMulti: every group on the pool, flattened in
// submission order and named in that order, as EncodedFileStream names them.
Result<std::vector<EncodedFile>> EncodeAndName(const Table& table,
                                               const std::vector<RecordBatchGroup>& groups,
                                               const IngestOptions& options,
                                               const std::string& prefix) {
  const spec::TableMetadata& metadata = table.metadata();
  SKADE_ASSIGN_OR_RAISE(data::DataWriterOptions writer_options, WriterOptions(table, options));
  DataFileEncoder encoder(metadata.Schema(), metadata.Spec(), std::move(writer_options));
  WorkerPool& pool = options.pool != nullptr ? *options.pool : WorkerPool::Default();
  SKADE_ASSIGN_OR_RAISE(auto encoded, encoder.EncodeAll(groups, pool));
  data::DataFileNamer namer(metadata, prefix);
  std::vector<EncodedFile> files;
  for (auto& group : encoded) {
    for (EncodedFile& file : group) {
      file.data_file.file_path = namer.Next(file.partition_path);
      files.push_back(std::move(file));
    }
  }
  return files;
}

std::vector<spec::DataFile> DataFiles(const std::vector<EncodedFile>& files) {
  std::vector<spec::DataFile> data_files;
  for (const EncodedFile& file : files) data_files.push_back(file.data_file);
  return data_files;
}

std::vector<FileToWrite> WriteList(const std::vector<EncodedFile>& files) {
  std::vector<FileToWrite> list;
  for (const EncodedFile& file : files) list.push_back({file.data_file.file_path, &file.bytes});
  return list;
}

// Best effort: deletes the stored files from `first` on, which no snapshot
// references.
void DeleteUncommitted(io::FileIO& io, const std::vector<FileToWrite>& files,
                       const std::vector<uint8_t>& stored, size_t first) {
  for (size_t i = first; i < files.size(); ++i) {
    if (i < stored.size() && stored[i]) (void)io.DeleteFile(files[i].location);
  }
}

tl::unexpected<Error> Failed(Error error, int64_t snapshots) {
  StrAppend(&error.message, " (ingest stopped; ", snapshots, " snapshot", snapshots == 1 ? "" : "s",
            " committed before the failure)");
  return tl::unexpected(std::move(error));
}

// Failed, also saying which rows and files those snapshots committed.
tl::unexpected<Error> Failed(Error error, const IngestStats& committed) {
  StrAppend(&error.message, " (ingest stopped; ", committed.snapshots, " snapshot",
            committed.snapshots == 1 ? "" : "s", " committed before the failure: ", committed.rows,
            " row", committed.rows == 1 ? "" : "s", " in ", committed.files, " data file",
            committed.files == 1 ? "" : "s", ")");
  return tl::unexpected(std::move(error));
}

// IngestParallel, IngestPipelined and IngestPipelinedOverlap: encode
// lazily (EncodedFileStream) → write in order → commit, after the writes
// or (`overlap`) beside them.
Result<IngestResult> RunPipeline(const Table& table, GroupSource groups,
                                 const IngestOptions& options, int64_t files_per_commit,
                                 bool overlap) {
  const int64_t start = MonotonicMicros();
  IngestStats stats;
  const spec::TableMetadata& metadata = table.metadata();
  SKADE_ASSIGN_OR_RAISE(data::DataWriterOptions writer_options, WriterOptions(table, options));
  WorkerPool& pool = options.pool != nullptr ? *options.pool : WorkerPool::Default();
  const int depth = std::max(options.channel_depth, 1);
  EncodedFileStream stream(
      data::DataFileNamer(metadata, options.file_prefix),
      DataFileEncoder(metadata.Schema(), metadata.Spec(), std::move(writer_options)),
      std::move(groups), pool, static_cast<size_t>(depth) + pool.size(), options.stop);

  ProgressReporter progress(options.progress, 0);
  SnapshotCommitter committer(table, files_per_commit, SnapshotAction::Of(options), options.stop,
                              [&] { progress.Committed(); });
  auto next = [&] { return stream.Next(); };
  auto unblock = [&] { stream.Abort(); };
  // Hands file `i` on: its bytes are freed, its DataFile goes to `sink`.
  auto take = [&](size_t i) {
    spec::DataFile file = stream.data_file(i);
    stream.Delivered(i);
    progress.Written(file, stream.files_encoded());
    return file;
  };
  std::vector<uint8_t> stored;
  Status status;
  if (!overlap) {
    std::vector<spec::DataFile> written;
    status = WriteInOrder(
        table.io(), table.durable_files(), next, unblock, depth, options.stop,
        [&](size_t i) {
          written.push_back(take(i));
          return OkStatus();
        },
        &stored);
    if (status) status = stream.status();
    stats.write_us = MonotonicMicros() - start;
    for (size_t i = 0; status && i < written.size(); ++i) status = committer.Add(written[i]);
    if (status) status = committer.Flush();
  } else {
    // Written files wait here, metadata only (their bytes are freed): up to
    // `depth` commit groups, besides the ones the committer holds.
    BoundedQueue<spec::DataFile> queue(static_cast<size_t>(depth) *
                                       static_cast<size_t>(std::max<int64_t>(files_per_commit, 1)));
    std::atomic<bool> all_written{false};
    Status commit_status;
    std::thread committer_thread([&] {
      // Every file written while a commit was under way joins the next one:
      // the full groups among them land in one catalog commit.
      while (std::optional<spec::DataFile> file = queue.Pop()) {
        committer.Hold(std::move(*file));
        while (std::optional<spec::DataFile> more = queue.TryPop())
          committer.Hold(std::move(*more));
        commit_status = committer.CommitFullGroups();
        if (!commit_status) {
          queue.Abort();  // the writer sees a refused Push and stops
          return;
        }
      }
      // Closed after the last file, or aborted after a failed write: only
      // the first commits the rest.
      if (all_written.load()) commit_status = committer.Flush();
    });
    status = WriteInOrder(
        table.io(), table.durable_files(), next, unblock, depth, options.stop,
        [&](size_t i) -> Status {
          if (!queue.Push(take(i)))
            return MakeError(ErrorKind::kCancelled, "The committer stopped");
          return OkStatus();
        },
        &stored);
    if (status) status = stream.status();
    stats.write_us = MonotonicMicros() - start;
    if (status) {
      all_written = true;
      queue.Close();
    } else {
      queue.Abort();
    }
    committer_thread.join();
    if (!commit_status) status = std::move(commit_status);
  }
  stream.Abort();  // the producer stops at its next batch

  stats.encode_us = stream.encode_us();
  stats.peak_encoded_files = stream.peak_files();
  AddCommitted(committer, &stats);
  stats.total_us = MonotonicMicros() - start;
  if (!status) {
    if (!committer.outcome_unknown()) {
      for (size_t i = static_cast<size_t>(committer.committed_files()); i < stored.size(); ++i) {
        if (stored[i]) (void)table.io().DeleteFile(stream.data_file(i).file_path);
      }
    }
    return Failed(std::move(status).error(), stats);
  }
  return IngestResult{committer.table(), stats};
}

}  // namespace

Result<IngestResult> Append(const Table& table, const RecordBatchGroup& batches,
                            const IngestOptions& options) {
  const int64_t start = MonotonicMicros();
  IngestStats stats;
  const spec::TableMetadata& metadata = table.metadata();
  SKADE_ASSIGN_OR_RAISE(data::DataWriterOptions writer_options, WriterOptions(table, options));
  data::DataFileNamer namer(metadata, options.file_prefix);
  std::vector<FileToWrite> locations;  // every file started, for clean-up
  auto next_location = [&](const std::vector<spec::Literal>& partition) -> Result<std::string> {
    std::string partition_path;
    if (!metadata.Spec()->fields.empty()) {
      SKADE_ASSIGN_OR_RAISE(partition_path,
                            data::PartitionPath(*metadata.Spec(), *metadata.Schema(), partition));
    }
    locations.push_back({namer.Next(partition_path), nullptr});
    return locations.back().location;
  };
  auto written = [&]() -> Result<std::vector<spec::DataFile>> {
    SKADE_ASSIGN_OR_RAISE(
        auto writer, data::FanoutDataWriter::Make(table.io_ptr(), metadata.Schema(),
                                                  metadata.Spec(), writer_options, next_location));
    for (const auto& batch : batches) {
      if (options.stop.stop_requested()) {
        return MakeError(ErrorKind::kCancelled, "Ingest cancelled");
      }
      SKADE_RETURN_NOT_OK(writer->Write(batch));
    }
    return writer->Close();
  }();
  stats.write_us = MonotonicMicros() - start;
  std::vector<uint8_t> all_stored(locations.size(), 1);
  if (!written) {
    DeleteUncommitted(table.io(), locations, all_stored, 0);
    return Failed(std::move(written).error(), 0);
  }
  if (written->empty() && !options.overwrite) {
    stats.total_us = MonotonicMicros() - start;
    return IngestResult{table, stats};
  }

  ProgressReporter progress(options.progress, static_cast<int64_t>(written->size()));
  for (const spec::DataFile& file : *written) progress.Written(file);
  SnapshotCommitter committer(table, 0, SnapshotAction::Of(options), options.stop,
                              [&] { progress.Committed(); });
  Status status;
  for (size_t i = 0; status && i < written->size(); ++i) status = committer.Add((*written)[i]);
  if (status) status = committer.Flush();
  AddCommitted(committer, &stats);
  stats.total_us = MonotonicMicros() - start;
  if (!status) {
    if (!committer.outcome_unknown()) DeleteUncommitted(table.io(), locations, all_stored, 0);
    return Failed(std::move(status).error(), 0);
  }
  return IngestResult{committer.table(), stats};
}

Result<IngestResult> IngestParallel(const Table& table, const std::vector<RecordBatchGroup>& groups,
                                    const IngestOptions& options) {
  return IngestParallel(table, GroupSource::Of(groups), options);
}

Result<IngestResult> IngestParallel(const Table& table, const GroupSource& groups,
                                    const IngestOptions& options) {
  return RunPipeline(table, groups, options, 0, false);
}

Result<IngestResult> IngestPipelined(const Table& table,
                                     const std::vector<RecordBatchGroup>& groups,
                                     const IngestOptions& options) {
  return IngestPipelined(table, GroupSource::Of(groups), options);
}

Result<IngestResult> IngestPipelined(const Table& table, const GroupSource& groups,
                                     const IngestOptions& options) {
  return RunPipeline(table, groups, options, options.files_per_commit, false);
}

Result<IngestResult> IngestPipelinedOverlap(const Table& table,
                                            const std::vector<RecordBatchGroup>& groups,
                                            const IngestOptions& options) {
  return IngestPipelinedOverlap(table, GroupSource::Of(groups), options);
}

Result<IngestResult> IngestPipelinedOverlap(const Table& table, const GroupSource& groups,
                                            const IngestOptions& options) {
  return RunPipeline(table, groups, options, options.files_per_commit, true);
}

Result<IngestMultiResult> IngestMulti(const std::vector<TableIngest>& tables,
                                      const IngestOptions& options) {
  const int64_t start = MonotonicMicros();
  IngestStats stats;
  const std::string prefix = options.file_prefix.empty() ? NewUuid() : options.file_prefix;
  std::vector<std::vector<EncodedFile>> files;  // per table
  for (const TableIngest& ingest : tables) {
    SKADE_ASSIGN_OR_RAISE(auto encoded,
                          EncodeAndName(ingest.table, ingest.groups, options, prefix));
    files.push_back(std::move(encoded));
  }
  stats.encode_us = MonotonicMicros() - start;

  std::vector<FileToWrite> to_write;
  for (const auto& table_files : files) {
    for (const FileToWrite& file : WriteList(table_files)) to_write.push_back(file);
  }
  ProgressReporter progress(options.progress, static_cast<int64_t>(to_write.size()));
  std::vector<const spec::DataFile*> by_index;
  for (const auto& table_files : files) {
    for (const EncodedFile& file : table_files) by_index.push_back(&file.data_file);
  }
  if (to_write.empty()) {
    IngestMultiResult result{{}, stats};
    for (const TableIngest& ingest : tables) result.tables.push_back(ingest.table);
    result.stats.total_us = MonotonicMicros() - start;
    return result;
  }
  std::vector<uint8_t> stored;
  const int64_t write_start = MonotonicMicros();
  // Every table's files go through the first table's FileIO: the tables
  // share a catalog and, by contract, a storage.
  const Table& first = tables.front().table;
  Status status = WriteInOrder(
      first.io(), first.durable_files(), to_write, options.channel_depth, options.stop,
      [&](size_t i) {
        progress.Written(*by_index[i]);
        return OkStatus();
      },
      &stored);
  stats.write_us = MonotonicMicros() - write_start;

  std::vector<table::Transaction> transactions;
  std::vector<table::Transaction*> pointers;
  transactions.reserve(tables.size());
  const SnapshotAction action = SnapshotAction::Of(options);
  for (size_t t = 0; t < tables.size(); ++t) {
    transactions.emplace_back(tables[t].table);
    if (files[t].empty()) continue;
    std::vector<spec::DataFile> data_files = DataFiles(files[t]);
    if (status) status = action.CheckAdded(tables[t].table.metadata(), data_files);
    ReplacedPartitions replaced;
    action.Stage(transactions.back(), std::move(data_files), &replaced);
  }
  for (auto& transaction : transactions) pointers.push_back(&transaction);

  std::vector<Table> committed;
  bool unknown = false;
  if (status && options.stop.stop_requested()) {
    status = MakeError(ErrorKind::kCancelled, "Ingest cancelled");
  }
  if (status) {
    const int64_t commit_start = MonotonicMicros();
    auto result = table::CommitTransactions(pointers);
    stats.commit_us = MonotonicMicros() - commit_start;
    if (result) {
      committed = std::move(*result);
      stats.commits = 1;
      stats.snapshots = std::count_if(files.begin(), files.end(),
                                      [](const auto& table_files) { return !table_files.empty(); });
      progress.Committed();
    } else {
      unknown = result.error().kind == ErrorKind::kCommitStateUnknown;
      status = tl::unexpected(result.error());
    }
  }
  stats.total_us = MonotonicMicros() - start;
  if (!status) {
    if (!unknown) DeleteUncommitted(first.io(), to_write, stored, 0);
    return Failed(std::move(status).error(), 0);
  }
  for (const auto& table_files : files) {
    for (const EncodedFile& file : table_files) {
      ++stats.files;
      stats.rows += file.data_file.record_count;
      stats.bytes += file.data_file.file_size_in_bytes;
    }
  }
  return IngestMultiResult{std::move(committed), stats};
}

}  // namespace skade::ingest
