// A FileIO wrapper around a real one that counts reads per location (for
// single-flight and cache tests) and records each WriteFiles and SyncFiles
// batch (for tests of what is written or synced together); it forwards the
// batch, keeping the inner FileIO's concurrency and batching. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "skade/io/forwarding_file_io.h"

namespace skade::testing {

class CountingFileIO : public io::ForwardingFileIO {
 public:
  explicit CountingFileIO(std::shared_ptr<io::FileIO> base) : ForwardingFileIO(std::move(base)) {}

  /// How many times `location` was read.
  int Reads(const std::string& location) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = reads_.find(location);
    return it == reads_.end() ? 0 : it->second;
  }

  /// How many reads there were, of any location.
  int TotalReads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int total = 0;
    for (const auto& [location, count] : reads_) total += count;
    return total;
  }

  Result<std::string> ReadFile(std::string_view location) override {
    Count(location);
    return inner().ReadFile(location);
  }
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    Count(location);
    return inner().ReadFileUpTo(location, max_bytes);
  }

  Status WriteFiles(const std::vector<io::NewFile>& files) override {
    std::vector<std::string> batch;
    for (const io::NewFile& file : files) batch.push_back(file.location);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      write_batches_.push_back(std::move(batch));
    }
    return inner().WriteFiles(files);
  }

  /// The locations of each WriteFiles call so far, and forgets them.
  std::vector<std::vector<std::string>> TakeWriteBatches() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(write_batches_, {});
  }

  Status SyncFiles(const std::vector<std::string>& locations) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sync_batches_.push_back(locations);
    }
    return inner().SyncFiles(locations);
  }

  /// The locations of each SyncFiles call so far, and forgets them.
  std::vector<std::vector<std::string>> TakeSyncBatches() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(sync_batches_, {});
  }

 private:
  void Count(std::string_view location) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++reads_[std::string(location)];
  }

  mutable std::mutex mutex_;
  std::map<std::string, int> reads_;
  std::vector<std::vector<std::string>> write_batches_;
  std::vector<std::vector<std::string>> sync_batches_;
};

}  // namespace skade::testing
