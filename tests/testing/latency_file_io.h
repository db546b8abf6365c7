// LatencyFileIO: wraps a FileIO and makes every file write take longer, to
// simulate a slow object store or a slow fsync in benchmarks and tests
// (writes to an object store cost milliseconds each; so does an fsync on
// many disks). Used by tests/ingest and bench/ingest; not a product FileIO.
//
// A write (WriteFile, or Close() of a streamed file) first does the real
// write, then sleeps: `metadata_write` for files in a `metadata/` directory
// — manifests, manifest lists and the metadata file each commit writes —
// and `data_write` for all others. Reads and the rest pass straight
// through. Thread-safe when the wrapped FileIO is; sleeps happen on the
// calling thread, so concurrent writes overlap their latencies as they
// would against a remote store.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "skade/io/forwarding_file_io.h"

namespace skade::testing {

class LatencyFileIO : public io::ForwardingFileIO {
 public:
  LatencyFileIO(std::shared_ptr<io::FileIO> base, std::chrono::microseconds data_write,
                std::chrono::microseconds metadata_write)
      : ForwardingFileIO(std::move(base)),
        data_write_(data_write),
        metadata_write_(metadata_write) {}

  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    Status written = inner().WriteFile(location, contents, durable);
    std::this_thread::sleep_for(LatencyOf(location));
    return written;
  }
  Result<std::unique_ptr<io::OutputFile>> NewOutputFile(std::string_view location,
                                                        bool durable) override {
    SKADE_ASSIGN_OR_RAISE(auto file, inner().NewOutputFile(location, durable));
    return std::unique_ptr<io::OutputFile>(
        new LatencyOutputFile(std::move(file), LatencyOf(location)));
  }

  /// The delay a write to `location` gets.
  std::chrono::microseconds LatencyOf(std::string_view location) const {
    size_t slash = location.rfind('/');
    std::string_view directory = location.substr(0, slash == std::string_view::npos ? 0 : slash);
    return directory.ends_with("/metadata") || directory == "metadata" ? metadata_write_
                                                                       : data_write_;
  }

 private:
  class LatencyOutputFile : public io::OutputFile {
   public:
    LatencyOutputFile(std::unique_ptr<io::OutputFile> base, std::chrono::microseconds latency)
        : base_(std::move(base)), latency_(latency) {}

    Status Write(std::string_view data) override { return base_->Write(data); }
    int64_t BytesWritten() const override { return base_->BytesWritten(); }
    Status Close() override {
      Status closed = base_->Close();
      std::this_thread::sleep_for(latency_);
      return closed;
    }

   private:
    std::unique_ptr<io::OutputFile> base_;
    std::chrono::microseconds latency_;
  };

  std::chrono::microseconds data_write_;
  std::chrono::microseconds metadata_write_;
};

}  // namespace skade::testing
