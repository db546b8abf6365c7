#include "skade/ingest/latency_file_io.h"

#include <thread>

namespace skade::ingest {

namespace {

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

}  // namespace

std::chrono::microseconds LatencyFileIO::LatencyOf(std::string_view location) const {
  size_t slash = location.rfind('/');
  std::string_view directory = location.substr(0, slash == std::string_view::npos ? 0 : slash);
  return directory.ends_with("/metadata") || directory == "metadata" ? metadata_write_
                                                                     : data_write_;
}

Status LatencyFileIO::WriteFile(std::string_view location, std::string_view contents,
                                bool durable) {
  Status written = base_->WriteFile(location, contents, durable);
  std::this_thread::sleep_for(LatencyOf(location));
  return written;
}

Result<std::unique_ptr<io::OutputFile>> LatencyFileIO::NewOutputFile(std::string_view location,
                                                                     bool durable) {
  SKADE_ASSIGN_OR_RAISE(auto file, base_->NewOutputFile(location, durable));
  return std::unique_ptr<io::OutputFile>(
      new LatencyOutputFile(std::move(file), LatencyOf(location)));
}

}  // namespace skade::ingest
