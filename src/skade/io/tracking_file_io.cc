#include "skade/io/tracking_file_io.h"

#include <utility>

namespace skade::io {

// Records its location when Close() succeeds; the owning TrackingFileIO must
// outlive it (as it must outlive any OutputFile of a FileIO).
class TrackingFileIO::TrackedOutputFile : public OutputFile {
 public:
  TrackedOutputFile(TrackingFileIO* owner, std::string location, std::unique_ptr<OutputFile> base)
      : owner_(owner), location_(std::move(location)), base_(std::move(base)) {}

  Status Write(std::string_view data) override { return base_->Write(data); }
  int64_t BytesWritten() const override { return base_->BytesWritten(); }
  Status Close() override {
    if (closed_) return OkStatus();
    SKADE_RETURN_NOT_OK(base_->Close());
    closed_ = true;
    owner_->Record(location_);
    return OkStatus();
  }

 private:
  TrackingFileIO* owner_;
  std::string location_;
  std::unique_ptr<OutputFile> base_;
  bool closed_ = false;
};

std::vector<std::string> TrackingFileIO::TakeWritten() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(written_, {});
}

void TrackingFileIO::Record(std::string_view location) {
  std::lock_guard<std::mutex> lock(mutex_);
  written_.emplace_back(location);
}

Status TrackingFileIO::WriteFile(std::string_view location, std::string_view contents,
                                 bool durable) {
  SKADE_RETURN_NOT_OK(inner().WriteFile(location, contents, durable));
  if (!durable) Record(location);
  return OkStatus();
}

Status TrackingFileIO::WriteConfinedFile(std::string_view location, std::string_view contents,
                                         bool durable,
                                         const std::function<Status(const Location&)>& allowed) {
  SKADE_RETURN_NOT_OK(inner().WriteConfinedFile(location, contents, durable, allowed));
  if (!durable) Record(location);
  return OkStatus();
}

Status TrackingFileIO::WriteFiles(const std::vector<NewFile>& files) {
  Status written = inner().WriteFiles(files);
  for (const NewFile& file : files) {
    if (!file.durable) Record(file.location);
  }
  return written;
}

Result<std::unique_ptr<OutputFile>> TrackingFileIO::NewOutputFile(std::string_view location,
                                                                  bool durable) {
  SKADE_ASSIGN_OR_RAISE(auto file, inner().NewOutputFile(location, durable));
  if (durable) return file;
  return std::unique_ptr<OutputFile>(
      new TrackedOutputFile(this, std::string(location), std::move(file)));
}

}  // namespace skade::io
