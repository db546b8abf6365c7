// MemoryFileIO: a FileIO that keeps files in memory, for tests that want
// real FileIO semantics (create-once, streamed writes visible on Close)
// without touching a disk. Names are opaque keys; there are no directories.
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "skade/io/file_io.h"

namespace skade::testing {

class MemoryFileIO : public io::FileIO {
 public:
  Result<std::string> ReadFile(std::string_view location) override {
    std::lock_guard lock(mutex_);
    auto it = files_.find(location);
    if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
    return it->second;
  }
  Status WriteFile(std::string_view location, std::string_view contents, bool) override {
    return Store(std::string(location), std::string(contents));
  }
  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location, bool) override {
    return std::unique_ptr<io::OutputFile>(new MemoryOutputFile(this, std::string(location)));
  }
  Status DeleteFile(std::string_view location) override {
    std::lock_guard lock(mutex_);
    auto it = files_.find(location);
    if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
    files_.erase(it);
    return OkStatus();
  }
  Result<bool> Exists(std::string_view location) override {
    std::lock_guard lock(mutex_);
    return files_.find(location) != files_.end();
  }
  Result<int64_t> FileSize(std::string_view location) override {
    std::lock_guard lock(mutex_);
    auto it = files_.find(location);
    if (it == files_.end()) return MakeError(ErrorKind::kNotFound, "No such file: ", location);
    return static_cast<int64_t>(it->second.size());
  }
  Result<std::vector<std::string>> ListDirectory(std::string_view) override {
    return Unsupported("MemoryFileIO has no directories");
  }
  Status RemoveEmptyDirectory(std::string_view) override { return OkStatus(); }

 private:
  // Collects the bytes and stores them on Close(); dropped without Close(),
  // the file never exists.
  class MemoryOutputFile : public io::OutputFile {
   public:
    MemoryOutputFile(MemoryFileIO* owner, std::string location)
        : owner_(owner), location_(std::move(location)) {}

    Status Write(std::string_view data) override {
      if (closed_) return IoError("Write to closed file ", location_);
      bytes_.append(data);
      return OkStatus();
    }
    int64_t BytesWritten() const override {
      return closed_ ? size_ : static_cast<int64_t>(bytes_.size());
    }
    Status Close() override {
      if (closed_) return OkStatus();
      closed_ = true;
      size_ = static_cast<int64_t>(bytes_.size());
      return owner_->Store(location_, std::move(bytes_));
    }

   private:
    MemoryFileIO* owner_;
    std::string location_;
    std::string bytes_;
    int64_t size_ = 0;
    bool closed_ = false;
  };

  Status Store(std::string location, std::string contents) {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = files_.try_emplace(std::move(location), std::move(contents));
    if (!inserted) return MakeError(ErrorKind::kAlreadyExists, "File exists: ", it->first);
    return OkStatus();
  }

  std::mutex mutex_;
  std::map<std::string, std::string, std::less<>> files_;
};

}  // namespace skade::testing
