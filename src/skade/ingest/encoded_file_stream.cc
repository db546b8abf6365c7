#include <algorithm>

#include "skade/ingest/encoded_file_stream_internal.h"
#include "skade/util/clock.h"

namespace skade::ingest {

EncodedFileStream::EncodedFileStream(data::DataFileNamer namer, DataFileEncoder encoder,
                                     GroupSource groups, WorkerPool& pool, size_t max_groups,
                                     std::stop_token stop)
    : namer_(std::move(namer)),
      encoder_(std::move(encoder)),
      groups_(std::move(groups)),
      pool_(pool),
      max_groups_(std::max<size_t>(max_groups, 1)),
      stop_(std::move(stop)),
      group_pending_(groups_.count, 0) {
  producer_ = std::thread([this] { Produce(); });
}

EncodedFileStream::~EncodedFileStream() {
  Abort();
  producer_.join();
}

void EncodedFileStream::Produce() {
  size_t next_group = 0;
  while (next_group < groups_.count) {
    size_t batch;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return aborted_ || groups_in_flight_ < max_groups_; });
      if (aborted_) break;
      batch = std::min({max_groups_ - groups_in_flight_, pool_.size(), groups_.count - next_group});
      groups_in_flight_ += batch;
    }
    if (stop_.stop_requested()) {
      std::lock_guard lock(mutex_);
      status_ = MakeError(ErrorKind::kCancelled, "Ingest cancelled");
      break;
    }
    const int64_t started = MonotonicMicros();
    std::vector<Result<std::vector<EncodedFile>>> results(batch);
    pool_.ParallelFor(batch, [&](size_t i) {
      Result<BatchStream> group = groups_.read(next_group + i);
      results[i] = group ? encoder_.Encode(*group) : tl::unexpected(std::move(group).error());
    });
    std::lock_guard lock(mutex_);
    encode_us_ += MonotonicMicros() - started;
    for (size_t i = 0; i < batch; ++i, ++next_group) {
      if (!results[i]) {
        status_ = tl::unexpected(std::move(results[i]).error());
        break;
      }
      group_pending_[next_group] = results[i]->size();
      if (results[i]->empty()) --groups_in_flight_;
      for (EncodedFile& file : *results[i]) {
        file.data_file.file_path = namer_.Next(file.partition_path);
        files_.push_back(std::move(file));
        file_group_.push_back(next_group);
        ++live_files_;
      }
    }
    peak_files_ = std::max(peak_files_, live_files_);
    changed_.notify_all();
    if (!status_) break;
  }
  std::lock_guard lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

std::optional<FileToWrite> EncodedFileStream::Next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return aborted_ || next_ < files_.size() || finished_; });
  // An encode error ends the stream at once; the caller reports status().
  if (aborted_ || !status_ || next_ >= files_.size()) return std::nullopt;
  EncodedFile& file = files_[next_++];
  return FileToWrite{file.data_file.file_path, &file.bytes};
}

void EncodedFileStream::Delivered(size_t index) {
  std::lock_guard lock(mutex_);
  std::string().swap(files_[index].bytes);
  --live_files_;
  if (--group_pending_[file_group_[index]] == 0) {
    --groups_in_flight_;
    changed_.notify_all();
  }
}

void EncodedFileStream::Abort() {
  std::lock_guard lock(mutex_);
  aborted_ = true;
  changed_.notify_all();
}

spec::DataFile EncodedFileStream::data_file(size_t index) const {
  std::lock_guard lock(mutex_);
  return files_[index].data_file;
}

Status EncodedFileStream::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

int64_t EncodedFileStream::files_encoded() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(files_.size());
}

int64_t EncodedFileStream::peak_files() const {
  std::lock_guard lock(mutex_);
  return peak_files_;
}

int64_t EncodedFileStream::encode_us() const {
  std::lock_guard lock(mutex_);
  return encode_us_;
}

}  // namespace skade::ingest
