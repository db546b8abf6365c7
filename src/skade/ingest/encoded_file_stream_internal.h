// EncodedFileStream: the encode stage of the streaming ingest pipelines.
// Encodes groups on a WorkerPool lazily — only while fewer than
// `max_groups` groups are encoded but not yet fully written — names their
// files in submission order, and hands them to the write stage one by one
// (a FileSource for WriteInOrder). That bound is what keeps peak memory at
// about channel_depth + workers groups' encoded files, however long the
// input.
//
// A producer thread submits up to `pool.size()` groups at a time to the
// pool (never blocking a pool worker on the writer), so encode of the next
// groups overlaps the writes of earlier ones. Each worker reads its group
// from the GroupSource first, so reading an input runs on the pool too. Files come out exactly as
// DataFileEncoder::EncodeAll would give them, named by `namer` in that
// order, so every path writes the same bytes under the same names.
//
// Thread-safe: Next() from the write stage's threads (one at a time),
// Delivered() and Abort() from any thread. The destructor aborts and joins
// the producer.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "skade/data/data_file_namer.h"
#include "skade/ingest/data_file_encoder_internal.h"
#include "skade/ingest/ordered_writer_internal.h"
#include "skade/util/worker_pool.h"

namespace skade::ingest {

class EncodedFileStream {
 public:
  /// `pool` must outlive the stream. `max_groups` ≥ 1. A read error of a
  /// group ends the stream like an encode error.
  EncodedFileStream(data::DataFileNamer namer, DataFileEncoder encoder, GroupSource groups,
                    WorkerPool& pool, size_t max_groups, std::stop_token stop);
  ~EncodedFileStream();
  EncodedFileStream(const EncodedFileStream&) = delete;
  EncodedFileStream& operator=(const EncodedFileStream&) = delete;

  /// The next file (index = number of earlier calls that returned one), or
  /// nullopt at the end of the input, after an encode error, a stop
  /// request or Abort(). Blocks while the next file is being encoded.
  std::optional<FileToWrite> Next();

  /// The file at `index` was written and handed on: frees its bytes (and
  /// its group's slot once all the group's files are in).
  void Delivered(size_t index);

  /// Ends the stream: Next() returns nullopt, the producer stops.
  void Abort();

  /// The DataFile of file `index` (named), for a file Next() returned.
  spec::DataFile data_file(size_t index) const;

  /// The encode error that ended the stream early, if any (kCancelled for
  /// a stop request); OK otherwise. Valid once Next() returned nullopt.
  Status status() const;

  /// Files encoded so far.
  int64_t files_encoded() const;
  /// The most files held encoded at once.
  int64_t peak_files() const;
  /// Wall-clock microseconds spent inside encode batches.
  int64_t encode_us() const;

 private:
  void Produce();

  data::DataFileNamer namer_;  // used by the producer thread only
  const DataFileEncoder encoder_;
  const GroupSource groups_;
  WorkerPool& pool_;
  const size_t max_groups_;
  const std::stop_token stop_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<EncodedFile> files_;      // every file produced, bytes freed once delivered
  std::vector<size_t> file_group_;     // the group of each file
  std::vector<size_t> group_pending_;  // files of each group not yet delivered
  size_t next_ = 0;                    // the next file Next() returns
  size_t groups_in_flight_ = 0;        // encoding, or with files not all delivered
  int64_t live_files_ = 0;
  int64_t peak_files_ = 0;
  int64_t encode_us_ = 0;
  bool finished_ = false;  // the producer is done (end, error or abort)
  bool aborted_ = false;
  Status status_;
  std::thread producer_;
};

}  // namespace skade::ingest
