// A FileIO wrapper around a real one that counts reads per location (for
// single-flight and cache tests). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "skade/io/file_io.h"

namespace skade::testing {

class CountingFileIO : public io::FileIO {
 public:
  explicit CountingFileIO(std::shared_ptr<io::FileIO> base) : base_(std::move(base)) {}

  /// How many times `location` was read.
  int Reads(const std::string& location) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = reads_.find(location);
    return it == reads_.end() ? 0 : it->second;
  }

  Result<std::string> ReadFile(std::string_view location) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++reads_[std::string(location)];
    }
    return base_->ReadFile(location);
  }
  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    return base_->WriteFile(location, contents, durable);
  }
  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location,
                                                        bool durable) override {
    return base_->NewOutputFile(location, durable);
  }
  Status DeleteFile(std::string_view location) override { return base_->DeleteFile(location); }
  Result<bool> Exists(std::string_view location) override { return base_->Exists(location); }
  Result<int64_t> FileSize(std::string_view location) override { return base_->FileSize(location); }
  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    return base_->ListDirectory(location);
  }
  Status RemoveEmptyDirectory(std::string_view location) override {
    return base_->RemoveEmptyDirectory(location);
  }
  Status SyncFile(std::string_view location) override { return base_->SyncFile(location); }
  Status SyncDirectory(std::string_view location) override {
    return base_->SyncDirectory(location);
  }

 private:
  std::shared_ptr<io::FileIO> base_;
  mutable std::mutex mutex_;
  std::map<std::string, int> reads_;
};

}  // namespace skade::testing
