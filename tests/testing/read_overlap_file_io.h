// ReadOverlapFileIO: a FileIO wrapper around a real one that shows whether
// its caller reads files concurrently. Each read (ReadFile, ReadFileUpTo) of
// a location containing `pattern` waits until another such read is in
// flight, until two have overlapped once. A caller that reads one file at a
// time is only slowed down (each such read gives up waiting after 10 s)
// and overlapped() stays false: no hang, and nothing timed is asserted.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "skade/io/forwarding_file_io.h"

namespace skade::testing {

class ReadOverlapFileIO : public io::ForwardingFileIO {
 public:
  ReadOverlapFileIO(std::shared_ptr<io::FileIO> base, std::string pattern)
      : ForwardingFileIO(std::move(base)), pattern_(std::move(pattern)) {}

  /// Whether two matching reads were ever in flight at once.
  bool overlapped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return overlapped_;
  }

  Result<std::string> ReadFile(std::string_view location) override {
    InFlight read(*this, location);
    return inner().ReadFile(location);
  }
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    InFlight read(*this, location);
    return inner().ReadFileUpTo(location, max_bytes);
  }

 private:
  class InFlight {
   public:
    InFlight(ReadOverlapFileIO& io, std::string_view location)
        : io_(io), counted_(location.find(io.pattern_) != std::string_view::npos) {
      if (!counted_) return;
      std::unique_lock<std::mutex> lock(io_.mutex_);
      if (++io_.in_flight_ >= 2) io_.overlapped_ = true;
      io_.changed_.notify_all();
      io_.changed_.wait_for(lock, std::chrono::seconds(10), [&] { return io_.overlapped_; });
    }
    ~InFlight() {
      if (!counted_) return;
      std::lock_guard<std::mutex> lock(io_.mutex_);
      --io_.in_flight_;
    }

   private:
    ReadOverlapFileIO& io_;
    bool counted_;
  };

  const std::string pattern_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int in_flight_ = 0;
  bool overlapped_ = false;
};

}  // namespace skade::testing
